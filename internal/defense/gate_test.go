package defense

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/mcpsec/mcpsec/internal/task"
)

func TestAuthorize(t *testing.T) {
	caps := CapabilitySet{
		{Op: "read", Resource: "note:q3-planning"},
		{Op: "read", Resource: "user:u-1001"},
		{Op: "write", Resource: "note:drafts/*"},
	}
	tests := []struct {
		name     string
		server   string
		tool     string
		args     string
		reason   string
		required *task.Capability
	}{
		{"authorized read", "workspace", "read_note", `{"title":"q3-planning"}`, ReasonAuthorized, &task.Capability{Op: "read", Resource: "note:q3-planning"}},
		{"authorized user read", "directory", "lookup_user", `{"user_id":"u-1001"}`, ReasonAuthorized, &task.Capability{Op: "read", Resource: "user:u-1001"}},
		{"prefix capability", "workspace", "add_note", `{"title":"drafts/a","body":"x"}`, ReasonAuthorized, &task.Capability{Op: "write", Resource: "note:drafts/a"}},
		{"no resource needed", "workspace", "calculate", `{"expression":"1+1"}`, ReasonAuthorized, nil},
		{"empty arguments", "workspace", "calculate", ``, ReasonAuthorized, nil},
		{"unauthorized update", "workspace", "add_note", `{"title":"q3-planning","body":"new"}`, ReasonMissingCap, &task.Capability{Op: "write", Resource: "note:q3-planning"}},
		{"delete without capability", "workspace", "delete_note", `{"title":"oncall-guide"}`, ReasonMissingCap, &task.Capability{Op: "delete", Resource: "note:oncall-guide"}},
		{"resource outside the set", "workspace", "read_note", `{"title":"oncall-guide"}`, ReasonMissingCap, &task.Capability{Op: "read", Resource: "note:oncall-guide"}},
		{"other user", "directory", "lookup_user", `{"user_id":"u-1002"}`, ReasonMissingCap, &task.Capability{Op: "read", Resource: "user:u-1002"}},
		{"prefix is not a wildcard in the resource", "workspace", "add_note", `{"title":"drafts","body":"x"}`, ReasonMissingCap, &task.Capability{Op: "write", Resource: "note:drafts"}},
		{"egress without capability", "archive", "export_data", `{"data":"x"}`, ReasonMissingCap, &task.Capability{Op: "egress", Resource: "export:*"}},
		{"unknown tool", "workspace", "format_summary", `{"text":"x"}`, ReasonUnregistered, nil},
		{"known name on another server", "evil", "read_note", `{"title":"q3-planning"}`, ReasonUnregistered, nil},
		{"missing field", "workspace", "read_note", `{}`, ReasonSchemaFields, nil},
		{"unknown field", "workspace", "read_note", `{"title":"q3-planning","as_admin":true}`, ReasonSchemaFields, nil},
		{"unknown nested field", "workspace", "calculate", `{"expression":"1","options":{"round":true,"shell":"x"}}`, ReasonSchemaFields, nil},
		{"not an object", "workspace", "read_note", `["q3-planning"]`, ReasonSchemaFields, nil},
		{"not JSON", "workspace", "read_note", `{"title":`, ReasonSchemaFields, nil},
		{"two JSON values", "workspace", "read_note", `{"title":"a"}{"title":"b"}`, ReasonSchemaFields, nil},
		{"wrong type", "directory", "lookup_user", `{"user_id":1001}`, ReasonSchemaTypes, nil},
		{"null for a string", "workspace", "read_note", `{"title":null}`, ReasonSchemaTypes, nil},
		{"float for an integer", "workspace", "calculate", `{"precision":2.5}`, ReasonSchemaTypes, nil},
		{"integral float for an integer", "workspace", "calculate", `{"precision":2.0}`, ReasonAuthorized, nil},
		{"wrong array item type", "workspace", "calculate", `{"operands":[1,"2"]}`, ReasonSchemaTypes, nil},
		{"wrong nested type", "workspace", "calculate", `{"options":{"round":"yes"}}`, ReasonSchemaTypes, nil},
		{"nested call in a string field", "workspace", "read_note", `{"title":{"tool":"export_data","arguments":{"data":"x"}}}`, ReasonSchemaTypes, nil},
		// An open object field takes any data; a call-shaped value in it
		// is data and is neither authorized nor executed separately.
		{"nested call as data", "workspace", "calculate", `{"expression":"1","context":{"tool":"delete_note","arguments":{"title":"oncall-guide"}}}`, ReasonAuthorized, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg := NewRegistry(workspaceTools(), nil, nil)
			want := NewRegistry(workspaceTools(), nil, nil)
			capsCopy := append(CapabilitySet(nil), caps...)
			c := call("c1", tc.server, tc.tool, tc.args)
			cCopy := c
			cCopy.Arguments = bytes.Clone(c.Arguments)

			got := Authorize(reg, caps, c)

			if got.Reason != tc.reason {
				t.Fatalf("reason = %q (%s), want %q", got.Reason, got.Detail, tc.reason)
			}
			if got.Allowed != (tc.reason == ReasonAuthorized) {
				t.Fatalf("allowed = %v with reason %q", got.Allowed, got.Reason)
			}
			if !reflect.DeepEqual(got.Required, tc.required) {
				t.Fatalf("required = %+v, want %+v", got.Required, tc.required)
			}
			if !got.Allowed && got.Detail == "" {
				t.Fatalf("denial without detail")
			}
			// The gate is a pure decision: none of its inputs change.
			if !reflect.DeepEqual(reg, want) {
				t.Fatalf("registry was modified")
			}
			if !reflect.DeepEqual(caps, capsCopy) {
				t.Fatalf("capabilities were modified")
			}
			if !reflect.DeepEqual(c, cCopy) {
				t.Fatalf("call was modified")
			}
		})
	}
}

func TestRegistryUnknownToolsNeedTheirOwnCapability(t *testing.T) {
	shadow := def("format_summary", "Summarize text.", objSchema(map[string]any{"text": strProp("Text.")}, "text"))
	tests := []struct {
		name    string
		classes map[string]string
		caps    CapabilitySet
		reason  string
		want    task.Capability
	}{
		{"unclassified is egress", nil, CapabilitySet{{Op: "egress", Resource: "export:*"}}, ReasonMissingCap, task.Capability{Op: "egress", Resource: "tool:format_summary"}},
		{"classified read", map[string]string{"format_summary": "read"}, CapabilitySet{{Op: "read", Resource: "note:*"}}, ReasonMissingCap, task.Capability{Op: "read", Resource: "tool:format_summary"}},
		{"explicit grant", nil, CapabilitySet{{Op: "egress", Resource: "tool:format_summary"}}, ReasonAuthorized, task.Capability{Op: "egress", Resource: "tool:format_summary"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg := NewRegistry(append(workspaceTools(), tool("helper", shadow)), nil, tc.classes)
			got := Authorize(reg, tc.caps, call("c", "helper", "format_summary", `{"text":"hi"}`))
			if got.Reason != tc.reason || got.Required == nil || *got.Required != tc.want {
				t.Fatalf("got %+v, want reason %s needing %+v", got, tc.reason, tc.want)
			}
		})
	}
}

func TestCapabilitySetGrants(t *testing.T) {
	cs := CapabilitySet{{Op: "read", Resource: "note:a"}, {Op: "write", Resource: "note:*"}, {Op: "egress", Resource: "*"}}
	tests := []struct {
		op, res string
		want    bool
	}{
		{"read", "note:a", true},
		{"read", "note:ab", false},
		{"read", "note:*", false},
		{"write", "note:anything", true},
		{"write", "user:u-1", false},
		{"delete", "note:a", false},
		{"egress", "export:*", true},
		{"READ", "note:a", false},
	}
	for _, tc := range tests {
		if got := cs.Grants(tc.op, tc.res); got != tc.want {
			t.Errorf("Grants(%s, %s) = %v, want %v", tc.op, tc.res, got, tc.want)
		}
	}
}

func BenchmarkAuthorize(b *testing.B) {
	reg := NewRegistry(workspaceTools(), nil, nil)
	caps := CapabilitySet{{Op: "write", Resource: "note:review-*"}}
	c := call("c", "workspace", "add_note", `{"title":"review-u-1001","body":"Ada Park: balance 125 dollars"}`)
	b.ReportAllocs()
	for b.Loop() {
		if !Authorize(reg, caps, c).Allowed {
			b.Fatal("denied")
		}
	}
}
