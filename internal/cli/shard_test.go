package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mcpsec/mcpsec/internal/bench"
)

// runEnv is run with an environment.
func runEnv(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := RunContext(context.Background(), args, &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] }})
	return code, out.String(), errb.String()
}

func TestBenchShardAuto(t *testing.T) {
	dry := []string{"bench", "--dry-run", "--model", "control:reference", "--arms", "none,policy", "--format", "json"}
	_, want, _ := run(t, append(dry, "--shard", "2/3")...)
	_, all, _ := run(t, dry...)
	code, got, errs := runEnv(t, map[string]string{"JOB_COMPLETION_INDEX": "1", "MCPSEC_SHARD_COUNT": "3"}, append(dry, "--shard", "auto")...)
	if code != 0 || got != want || got == all {
		t.Fatalf("--shard auto with index 1 of 3: exit %d (%s); same as --shard 2/3: %v; differs from the whole grid: %v", code, errs, got == want, got != all)
	}
	code, _, errs = runEnv(t, map[string]string{"MCPSEC_SHARD_COUNT": "3"}, append(dry, "--shard", "auto")...)
	if code != 2 || !strings.Contains(errs, "JOB_COMPLETION_INDEX is not set") {
		t.Errorf("without the index: exit %d, stderr %q", code, errs)
	}
}

// TestDeployExamples keeps the shipped Kubernetes and GitHub Actions
// examples consistent with mcpsec: the grid in the ConfigMap loads, the
// shard count equals the Job's completions (and the matrix size), and
// every shard runs bench --shard auto.
func TestDeployExamples(t *testing.T) {
	b, err := os.ReadFile("../../deploy/k8s/bench-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job, configMap map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("bench-indexed-job.yaml: %v", err)
		}
		switch doc["kind"] {
		case "Job":
			job = doc
		case "ConfigMap":
			configMap = doc
		}
	}
	if job == nil || configMap == nil {
		t.Fatal("bench-indexed-job.yaml lacks the Job or the ConfigMap")
	}
	grid := filepath.Join(t.TempDir(), "grid.yaml")
	os.WriteFile(grid, []byte(dig(t, configMap, "data", "grid.yaml").(string)), 0o644)
	if _, err := bench.LoadGrid(grid); err != nil {
		t.Errorf("the ConfigMap's grid does not load: %v", err)
	}
	spec := dig(t, job, "spec").(map[string]any)
	if spec["completionMode"] != "Indexed" {
		t.Errorf("completionMode %v, want Indexed", spec["completionMode"])
	}
	ctr := dig(t, spec, "template", "spec", "containers").([]any)[0].(map[string]any)
	count := ""
	for _, e := range ctr["env"].([]any) {
		if e := e.(map[string]any); e["name"] == bench.EnvShardCount {
			count, _ = e["value"].(string)
		}
	}
	if want := fmt.Sprint(spec["completions"]); count != want {
		t.Errorf("%s=%q but completions is %s", bench.EnvShardCount, count, want)
	}
	script := fmt.Sprint(ctr["args"])
	for _, want := range []string{"--shard auto", "--resume", "${JOB_COMPLETION_INDEX}"} {
		if !strings.Contains(script, want) {
			t.Errorf("the shard pod's command lacks %q", want)
		}
	}

	b, err = os.ReadFile("../../deploy/github-actions/bench-matrix.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf map[string]any
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatalf("bench-matrix.yml: %v", err)
	}
	shard := dig(t, wf, "jobs", "shard").(map[string]any)
	indexes := dig(t, shard, "strategy", "matrix", "index").([]any)
	env := shard["env"].(map[string]any)
	if fmt.Sprint(env[bench.EnvShardCount]) != fmt.Sprint(len(indexes)) || fmt.Sprint(dig(t, wf, "env", "SHARDS")) != fmt.Sprint(len(indexes)) {
		t.Errorf("matrix of %d shards, %s=%v, SHARDS=%v", len(indexes), bench.EnvShardCount, env[bench.EnvShardCount], dig(t, wf, "env", "SHARDS"))
	}
	for i, x := range indexes {
		if x != i {
			t.Errorf("matrix index %d is %v, want %d (0-based like JOB_COMPLETION_INDEX)", i, x, i)
		}
	}
	if !strings.Contains(string(b), "--shard auto") || !strings.Contains(string(b), "mcpsec merge") {
		t.Error("the workflow does not run bench --shard auto and mcpsec merge")
	}
}

// dig walks nested YAML maps.
func dig(t *testing.T, m map[string]any, keys ...string) any {
	t.Helper()
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok || mm[k] == nil {
			t.Fatalf("no %s in %v", strings.Join(keys, "."), keys)
		}
		v = mm[k]
	}
	return v
}
