package redteam

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpsec/mcpsec/internal/model"
)

func compileSchema(t *testing.T, name string) (*jsonschema.Schema, map[string]any) {
	t.Helper()
	path := filepath.Join("..", "..", "schema", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(path, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s, doc.(map[string]any)
}

func validate(t *testing.T, s *jsonschema.Schema, data []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(v)
}

// TestSchemasValidateRealOutput runs two scenarios with two control agents,
// adaptive, into a trace directory, and validates the JSON report and every
// envelope written against the schemas in schema/. Both schemas carry the
// version the outputs carry.
func TestSchemasValidateRealOutput(t *testing.T) {
	t.Parallel()
	reportSchema, reportDoc := compileSchema(t, "redteam-report.schema.json")
	envSchema, envDoc := compileSchema(t, "redteam-envelope.schema.json")
	if v := reportDoc["x-schema-version"]; v != json.Number("1") || ReportVersion != 1 {
		t.Errorf("report schema version %v, ReportVersion %d", v, ReportVersion)
	}
	if v := envDoc["x-schema-version"]; v != json.Number("1") || EnvelopeVersion != 1 {
		t.Errorf("envelope schema version %v, EnvelopeVersion %d", v, EnvelopeVersion)
	}
	var scs []Scenario
	for _, s := range corpus(t) {
		if s.ID == "td-exfil-token" || s.ID == "xs-hijack-precise" || s.ID == "ev-td-exfil-echo" {
			scs = append(scs, s)
		}
	}
	dir := t.TempDir()
	rep, err := Execute(context.Background(), Options{Models: []string{model.ControlCompromised, model.ControlReference}, Scenarios: scs,
		Adaptive: true, MaxAttempts: 2, Runner: &Runner{Target: &Target{}, FixedCanary: true, TraceDir: dir, Arm: "meta_filter"}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if err := validate(t, reportSchema, buf.Bytes()); err != nil {
		t.Fatalf("report does not match its schema: %v\n%s", err, buf.String())
	}
	var got struct {
		SchemaVersion int `json:"schema_version"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil || got.SchemaVersion != ReportVersion {
		t.Errorf("report schema_version = %d (%v)", got.SchemaVersion, err)
	}
	envs, _ := filepath.Glob(filepath.Join(dir, "*", "*.envelope.json"))
	if len(envs) < 4 {
		t.Fatalf("%d envelopes written, want one per completed attempt (at least 4)", len(envs))
	}
	for _, e := range envs {
		data, err := os.ReadFile(e)
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(t, envSchema, data); err != nil {
			t.Errorf("%s does not match the envelope schema: %v", filepath.Base(e), err)
		}
	}
	// The schemas reject what they must.
	bad := bytes.Replace(buf.Bytes(), []byte(`"outcome": "exploited"`), []byte(`"outcome": "maybe"`), 1)
	if err := validate(t, reportSchema, bad); err == nil {
		t.Error("the report schema accepted an unknown outcome")
	}
	if err := validate(t, envSchema, []byte(`{"tool_calls": [{"name": 3, "arguments": {}}], "tool_results": [], "blocked_calls": [], "final_response": ""}`)); err == nil {
		t.Error("the envelope schema accepted a numeric tool name")
	}
}
