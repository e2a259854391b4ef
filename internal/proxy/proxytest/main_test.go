// Package proxytest_test runs the real `mcpsec proxy` command as a
// subprocess, in front of real stdio servers (mcpsec's fixtures and
// faulty servers, and the official TypeScript servers), driven by the
// official TypeScript client and by mcpsec's Go client. The test binary
// doubles as mcpsec: it lives apart from internal/proxy so that those
// tests do not pay the whole command tree's initialisation.
package proxytest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpsec/mcpsec/internal/cli"
	"github.com/mcpsec/mcpsec/internal/proxy"
	"github.com/mcpsec/mcpsec/internal/testkit"
)

// The test binary runs mcpsec with the JSON argument list in envArgs, or
// (for an upstream the proxy starts with its minimal environment, which
// the proxy is told to pass envInner through) in envInner. With envPid
// set it first writes its pid there, so tests can check it is gone.
const (
	envArgs  = "MCPSEC_PROXYTEST_ARGS"
	envInner = "MCPSEC_PROXYTEST_INNER"
	envPid   = "MCPSEC_PROXYTEST_PIDFILE"
	envDump  = "MCPSEC_PROXYTEST_ENVFILE" // write the environment here first
	// envProfile makes the process run from envArgs (the proxy in the
	// benchmarks) write a CPU profile there, for finding its per-call cost:
	//	MCPSEC_PROXYTEST_CPUPROFILE=/tmp/proxy.prof go test -run '^$' -bench ToolsCall/proxy ...
	envProfile = "MCPSEC_PROXYTEST_CPUPROFILE"
	// envStubborn makes the process outlive its stdin: a server that does
	// not exit when its client goes away.
	envStubborn = "MCPSEC_PROXYTEST_STUBBORN"
)

func TestMain(m *testing.M) {
	if os.Getenv(envRawServer) != "" && os.Getenv(envArgs) == "" {
		serveRaw(os.Stdin, os.Stdout)
		os.Exit(0)
	}
	spec := os.Getenv(envArgs)
	if spec == "" {
		spec = os.Getenv(envInner)
	}
	if spec != "" {
		if f := os.Getenv(envPid); f != "" {
			_ = os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600)
		}
		if f := os.Getenv(envDump); f != "" {
			_ = os.WriteFile(f, []byte(strings.Join(os.Environ(), "\n")), 0o600)
		}
		var args []string
		if err := json.Unmarshal([]byte(spec), &args); err != nil {
			fmt.Fprintln(os.Stderr, "proxytest: bad argument list:", err)
			os.Exit(2)
		}
		if f := os.Getenv(envProfile); f != "" && os.Getenv(envArgs) != "" {
			if out, err := os.Create(f); err == nil && pprof.StartCPUProfile(out) == nil {
				code := cli.Run(args, os.Stdin, os.Stdout, os.Stderr)
				pprof.StopCPUProfile()
				out.Close()
				if hf, err := os.Create(f + ".allocs"); err == nil {
					_ = pprof.Lookup("allocs").WriteTo(hf, 0)
					hf.Close()
				}
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				_ = os.WriteFile(f+".gc", fmt.Appendf(nil, "gc cycles %d, heap in use %d MiB, total alloc %d MiB, gc pause total %v\n",
					ms.NumGC, ms.HeapInuse>>20, ms.TotalAlloc>>20, time.Duration(ms.PauseTotalNs)), 0o600)
				os.Exit(code)
			}
		}
		code := cli.Run(args, os.Stdin, os.Stdout, os.Stderr)
		if os.Getenv(envStubborn) != "" {
			select {}
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func jsonArgs(args ...string) string {
	b, _ := json.Marshal(args)
	return string(b)
}

// mcpsec returns argv and environment that run `mcpsec ARGS...`.
func mcpsec(args ...string) ([]string, []string) {
	env := []string{envArgs + "=" + jsonArgs(args...)}
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "GOCOVERDIR"} {
		if v := os.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return []string{os.Args[0]}, env
}

// proxyOver returns argv and environment that run `mcpsec proxy FLAGS...`
// in front of `mcpsec INNER...` as its stdio upstream. The inner argument
// list reaches the upstream only because the proxy is told to pass that
// one variable through its minimal environment.
func proxyOver(flags []string, inner ...string) ([]string, []string) {
	args := append([]string{"proxy"}, flags...)
	args = append(args, "--pass-env", envInner, "--", os.Args[0])
	argv, env := mcpsec(args...)
	return argv, append(env, envInner+"="+jsonArgs(inner...))
}

// tsClient runs the official TypeScript client against argv (with env),
// asking for each tool and result as it was parsed (--raw).
func tsClient(t *testing.T, argv, env []string, calls ...[2]string) testkit.TSProbe {
	t.Helper()
	return testkit.TSClient(t, []string{"--raw"}, env, calls, argv...)
}

// assertGone reads the pid a process wrote to pidFile and waits for it
// to stop: its parent (a proxy) reaps it, or the init process does.
func assertGone(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Errorf("no pid file %s: %v", pidFile, err)
		return
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Errorf("pid file %s: %v", pidFile, err)
		return
	}
	testkit.AssertStopped(t, pid)
}

// auditSchema is the published schema of an audit line.
const auditSchema = "../../../schema/proxy-audit.schema.json"

// compileAuditSchema compiles the audit line's schema with a real
// validator, formats asserted.
func compileAuditSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	raw, err := os.ReadFile(auditSchema)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: %v", auditSchema, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	id, _ := doc.(map[string]any)["$id"].(string)
	if id != fmt.Sprintf("https://mcpsec.invalid/schema/proxy-audit/%d", proxy.AuditVersion) {
		t.Fatalf("%s: $id %q does not carry version %d", auditSchema, id, proxy.AuditVersion)
	}
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatalf("compile %s: %v", auditSchema, err)
	}
	return sch
}

// validateAudit checks every line of an audit log the proxy wrote against
// schema/proxy-audit.schema.json and returns how often each decision
// occurs.
func validateAudit(t *testing.T, path string) map[string]int {
	t.Helper()
	sch := compileAuditSchema(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for i, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
		if err != nil {
			t.Fatalf("%s line %d: not JSON: %v", path, i+1, err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s line %d does not match %s:\n%v", path, i+1, auditSchema, err)
		}
		var rec proxy.Record
		_ = json.Unmarshal(line, &rec)
		seen[rec.Decision]++
	}
	return seen
}

// TestAuditSchemaRejects: lines the proxy must never write fail the
// schema (so that validateAudit can fail).
func TestAuditSchemaRejects(t *testing.T) {
	sch := compileAuditSchema(t)
	for _, bad := range []string{
		`{"v":2,"time":"2026-11-30T10:00:00Z","decision":"started"}`,
		`{"v":1,"time":"yesterday","decision":"started"}`,
		`{"v":1,"time":"2026-11-30T10:00:00Z","decision":"tool_allowed"}`,
		`{"v":1,"time":"2026-11-30T10:00:00Z","decision":"started","extra":1}`,
		`{"v":1,"time":"2026-11-30T10:00:00Z","decision":"tool_passed","server":"s","tool":"t","client_name":"t"}`,
		`{"v":1,"time":"2026-11-30T10:00:00Z","decision":"call_denied","client_name":"t","call_id":"call-1"}`,
	} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		if sch.Validate(v) == nil {
			t.Errorf("schema accepts %s", bad)
		}
	}
}
