package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpsec/mcpsec/internal/bench"
	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/report"
	"github.com/mcpsec/mcpsec/internal/scan"
	"github.com/mcpsec/mcpsec/internal/stats"
	"github.com/mcpsec/mcpsec/internal/trace"
	"github.com/mcpsec/mcpsec/internal/trial"
)

// schemaDir holds the published JSON Schemas of mcpsec's outputs.
const schemaDir = "../../schema"

// schemaBase prefixes every schema's $id; the last path element is the
// version number.
const schemaBase = "https://mcpsec.invalid/schema/"

// ownSchemas are the schemas of this package's outputs with the Go
// constant whose value the output carries, and the field that carries it.
var ownSchemas = []struct {
	file, name, field string
	version           int
}{
	{"scan.schema.json", "scan", "schema_version", scan.SchemaVersion},
	{"lockfile.schema.json", "lockfile", "lock_version", scan.LockVersion},
	{"trial-record.schema.json", "trial-record", "schema_version", trial.RecordSchemaVersion},
	{"summary.schema.json", "summary", "schema_version", report.SchemaVersion},
	{"trace-event.schema.json", "trace-event", "schema_version", trace.SchemaVersion},
	{"stats-cases.schema.json", "stats-cases", "schema_version", stats.SchemaVersion},
	{"stats-paired.schema.json", "stats-paired", "schema_version", stats.SchemaVersion},
	{"bench-dry-run.schema.json", "bench-dry-run", "schema_version", bench.ProjectionSchemaVersion},
}

// compileSchemas loads every schema under schema/ (so that cross-file
// references resolve) and compiles this package's by name.
func compileSchemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	files, err := filepath.Glob(filepath.Join(schemaDir, "*.json"))
	if err != nil || len(files) < len(ownSchemas) {
		t.Fatalf("schema files: %v (%d found)", err, len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		id, _ := doc.(map[string]any)["$id"].(string)
		if id == "" {
			t.Fatalf("%s has no $id", f)
		}
		if err := c.AddResource(id, doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	out := map[string]*jsonschema.Schema{}
	for _, s := range ownSchemas {
		raw, err := os.ReadFile(filepath.Join(schemaDir, s.file))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Schema     string `json:"$schema"`
			ID         string `json:"$id"`
			Properties map[string]struct {
				Const *int `json:"const"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", s.file, err)
		}
		if doc.Schema != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema %q, want draft 2020-12", s.file, doc.Schema)
		}
		if want := fmt.Sprintf("%s%s/%d", schemaBase, s.name, s.version); doc.ID != want {
			t.Errorf("%s: $id %q, want %q (the version the output carries)", s.file, doc.ID, want)
		}
		if p := doc.Properties[s.field].Const; p == nil || *p != s.version {
			t.Errorf("%s: %s must be const %d, the version mcpsec writes", s.file, s.field, s.version)
		}
		sch, err := c.Compile(doc.ID)
		if err != nil {
			t.Fatalf("compile %s: %v", s.file, err)
		}
		out[s.name] = sch
	}
	return out
}

// validate checks one JSON document against a schema; what names it in
// a failure.
func validate(t *testing.T, sch *jsonschema.Schema, what string, data []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: not JSON: %v", what, err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s does not match %s (update the schema under schema/ with the output):\n%v", what, sch.Location, err)
	}
}

// validateLines checks every line of a JSONL file (plain or, for traces,
// gzip-compressed) and returns the count.
func validateLines(t *testing.T, sch *jsonschema.Schema, path string) int {
	t.Helper()
	f, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() {
		n++
		validate(t, sch, fmt.Sprintf("%s line %d", path, n), sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSchemasValidateRealOutputs runs mcpsec's commands and validates what
// they write: a control-agent bench run (trials.jsonl, every trace,
// summary.json), a trial record, scans and lockfiles of the bundled
// catalogs and of the poisoned fixture servers (drift included), and both
// stats outputs.
func TestSchemasValidateRealOutputs(t *testing.T) {
	schemas := compileSchemas(t)

	t.Run("bench", func(t *testing.T) {
		t.Parallel()
		dir := filepath.Join(t.TempDir(), "run")
		code, _, errs := run(t, "bench", "--model", "control:compromised,control:reference,control:refuse",
			"--arms", "none,policy,pinning,meta_filter", "--limit-per-class", "3", "--out", dir)
		if code != 0 {
			t.Fatalf("bench: exit %d: %s", code, errs)
		}
		recs := validateLines(t, schemas["trial-record"], filepath.Join(dir, "trials.jsonl"))
		traces, _ := filepath.Glob(filepath.Join(dir, "traces", "*"))
		// The traces are packed, one file per worker.
		if recs == 0 || len(traces) == 0 || len(traces) > bench.DefaultGrid().Concurrency {
			t.Fatalf("%d records, %d trace files", recs, len(traces))
		}
		kinds := map[string]bool{}
		for _, tr := range traces {
			validateLines(t, schemas["trace-event"], tr)
			evs, err := trace.ReadFile(tr)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range evs {
				kinds[e.Kind] = true
			}
		}
		// The run must exercise the event kinds worth a schema.
		for _, k := range []string{trace.KindRunConfig, trace.KindAssistant, trace.KindToolCall, trace.KindToolResult,
			trace.KindBlockedToolCall, trace.KindSeamNote, trace.KindMetadataDrift, trace.KindSummary, trace.KindWorldDiff, trace.KindScore} {
			if !kinds[k] {
				t.Errorf("no %s event in the run; the schema test would not see that kind", k)
			}
		}
		b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(`"mcnemar_p"`)) {
			t.Error("summary.json has no paired comparison to validate")
		}
		validate(t, schemas["summary"], "summary.json", b)
	})

	t.Run("dry run", func(t *testing.T) {
		t.Parallel()
		code, out, errs := run(t, "bench", "--dry-run", "--model", "control:reference,openai:gpt-4o-mini", "--format", "json")
		if code != 0 {
			t.Fatalf("bench --dry-run: exit %d: %s", code, errs)
		}
		validate(t, schemas["bench-dry-run"], "bench --dry-run --format json", []byte(out))
	})

	t.Run("trial", func(t *testing.T) {
		t.Parallel()
		code, out, errs := run(t, "trial", "--task", "account_review", "--class", "cross_server", "--model", "control:compromised",
			"--arm", "policy", "--fixed-canary", "--format", "json")
		if code != 0 {
			t.Fatalf("trial: exit %d: %s", code, errs)
		}
		validate(t, schemas["trial-record"], "trial --format json", []byte(out))
	})

	t.Run("scan catalogs", func(t *testing.T) {
		t.Parallel()
		files, _ := filepath.Glob("../scan/testdata/benign/*.json")
		if len(files) == 0 {
			t.Fatal("no catalogs under internal/scan/testdata/benign")
		}
		for _, f := range files {
			code, out, errs := run(t, "scan", "--catalog", f, "--format", "json")
			if code != 0 {
				t.Fatalf("scan %s: exit %d: %s", f, code, errs)
			}
			validate(t, schemas["scan"], "scan of "+f, []byte(out))
			lock := filepath.Join(t.TempDir(), "mcp.lock")
			if code, _, errs := run(t, "lock", "--catalog", f, "--out", lock); code != 0 {
				t.Fatalf("lock %s: exit %d: %s", f, code, errs)
			}
			b, err := os.ReadFile(lock)
			if err != nil {
				t.Fatal(err)
			}
			validate(t, schemas["lockfile"], "lockfile of "+f, b)
		}
	})

	t.Run("scan fixtures", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		drift := 0
		for _, class := range payload.Classes {
			p := payload.Default(class, payload.ObjectiveExfil)
			world := fixture.NewWorld()
			servers := []*mcp.Server{fixture.NewServer(world, fixture.ServerConfig{Name: "workspace",
				Attack: &fixture.Attack{Class: class, Payload: p, RugMode: fixture.RugModeApproval}})}
			if class == payload.ClassCrossServer {
				servers = []*mcp.Server{fixture.NewServer(world, fixture.ServerConfig{Name: "workspace"}),
					fixture.NewShadowServer(world, fixture.ShadowServerName, p)}
			}
			conns, err := demoConnect(ctx, servers, mcpconn.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			cat, err := listCatalog(ctx, conns)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			lf := scan.NewLock(cat)
			if err := lf.Write(&buf); err != nil {
				t.Fatal(err)
			}
			validate(t, schemas["lockfile"], class+" lockfile", buf.Bytes())
			buf.Reset()
			if err := (scan.JSONWriter{}).Write(&buf, scan.Output{Report: scan.Scan(cat, scan.Options{}), Scanned: scan.Count(cat)}); err != nil {
				t.Fatal(err)
			}
			validate(t, schemas["scan"], class+" scan", buf.Bytes())
			// After the first call the drifting servers change what they
			// list; the scan against the lockfile reports it.
			if _, err := conns[0].CallTool(ctx, "calculate", json.RawMessage(`{"expression":"1+1"}`)); err != nil {
				t.Fatal(err)
			}
			after, err := listCatalog(ctx, conns)
			closeConns(conns)
			if err != nil {
				t.Fatal(err)
			}
			buf.Reset()
			if err := (scan.JSONWriter{}).Write(&buf, scan.Output{Report: scan.Scan(after, scan.Options{Lock: lf}), Scanned: scan.Count(after)}); err != nil {
				t.Fatal(err)
			}
			drift += strings.Count(buf.String(), `"drift.`)
			validate(t, schemas["scan"], class+" scan against its lockfile", buf.Bytes())
		}
		if drift == 0 {
			t.Error("no drift finding was validated")
		}
	})

	t.Run("stats", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct {
			schema string
			args   []string
		}{
			{"stats-cases", []string{"stats", "cases", "--benign", "testdata/stats/hand_benign.json", "--cases", "testdata/stats/hand_cases.json"}},
			{"stats-cases", []string{"stats", "cases", "--benign", "testdata/stats/hand_benign.csv", "--cases", "testdata/stats/hand_cases.csv"}},
			{"stats-paired", []string{"stats", "paired", "--reference", "testdata/stats/hand_reference.json", "--defended", "testdata/stats/hand_defended.json"}},
			{"stats-paired", []string{"stats", "paired", "--reference", "testdata/stats/grid_reference.json", "--defended", "testdata/stats/grid_defended.csv", "--clusters", "testdata/stats/grid_clusters.csv"}},
		} {
			code, out, errs := run(t, append(tc.args, "--format", "json")...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
			}
			validate(t, schemas[tc.schema], strings.Join(tc.args, " "), []byte(out))
		}
	})
}

// TestSchemasReject proves the schemas are not vacuous: outputs with a
// field renamed, a field of the wrong type, or the wrong version fail.
func TestSchemasReject(t *testing.T) {
	schemas := compileSchemas(t)
	code, out, errs := run(t, "trial", "--task", "notes_pipeline", "--model", "control:compromised", "--fixed-canary", "--format", "json")
	if code != 0 {
		t.Fatalf("trial: exit %d: %s", code, errs)
	}
	tests := []struct{ name, from, to string }{
		{"renamed field", `"realized":`, `"realised":`},
		{"wrong type", `"seed": 1`, `"seed": "1"`},
		{"other version", `"schema_version": 1`, `"schema_version": 2`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bad := strings.Replace(out, tc.from, tc.to, 1)
			if bad == out {
				t.Fatalf("the record has no %q to mutate", tc.from)
			}
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
			if err != nil {
				t.Fatal(err)
			}
			if schemas["trial-record"].Validate(v) == nil {
				t.Errorf("a record with %s validated", tc.name)
			}
		})
	}
}
