package proxytest_test

import (
	"github.com/mcpsec/mcpsec/internal/testkit"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTSClientResourcesThroughProxy: the official TypeScript client,
// through `mcpsec proxy` in front of the official server-everything, sees
// the same resources and resource templates as directly, reads a URI
// through a template, subscribes to it, and receives the server's
// resources/updated for it (server-everything sends one for every
// subscribed URI when toggle-subscriber-updates is called).
func TestTSClientResourcesThroughProxy(t *testing.T) {
	everything := testkit.OfficialServer(t, "server-everything", "stdio")
	const uri = "demo://resource/dynamic/text/1"
	flags := []string{"--resources", "--read", uri, "--subscribe", uri}
	call := [2]string{"toggle-subscriber-updates", "{}"}
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	viaArgv, viaEnv := mcpsec(append([]string{"proxy", "--audit", audit, "--"}, everything...)...)

	direct := testkit.TSClient(t, flags, os.Environ(), [][2]string{call}, everything...)
	via := testkit.TSClient(t, flags, viaEnv, [][2]string{call}, viaArgv...)

	// The proxy lists in URI order, the server in its own.
	for _, l := range [][]string{direct.Templates, via.Templates, direct.Resources, via.Resources} {
		slices.Sort(l)
	}
	if len(direct.Templates) == 0 || !slices.Equal(via.Templates, direct.Templates) {
		t.Errorf("templates through the proxy %v, directly %v", via.Templates, direct.Templates)
	}
	if len(direct.Resources) == 0 || !slices.Equal(via.Resources, direct.Resources) {
		t.Errorf("resources through the proxy %v, directly %v", via.Resources, direct.Resources)
	}
	if len(via.Reads) != 1 || via.Reads[0].Error != "" || !strings.HasPrefix(via.Reads[0].Text, "Resource 1: ") {
		t.Errorf("read through a template: %+v", via.Reads)
	}
	if direct.Updated != uri {
		t.Fatalf("test is wrong: server-everything sent no update directly (%q)", direct.Updated)
	}
	if via.Updated != uri {
		t.Errorf("resources/updated through the proxy: %q, want %q", via.Updated, uri)
	}
	if seen := validateAudit(t, audit); seen["resource_template_passed"] != len(direct.Templates) {
		t.Errorf("audit log: %v", seen)
	}
}
