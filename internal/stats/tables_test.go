package stats

import (
	"errors"
	"strings"
	"testing"
)

func TestParseLabels(t *testing.T) {
	tests := []struct {
		name, file, data string
		want             map[string]bool
		err              error
		where            string
	}{
		{name: "json", file: "b.json", data: `{"T1": true, "T2": false}`, want: map[string]bool{"T1": true, "T2": false}},
		{name: "csv", file: "b.csv", data: "id,value\nT1,true\nT2,0\n", want: map[string]bool{"T1": true, "T2": false}},
		{name: "csv alias header", file: "b.csv", data: "task_id,utility\nT1,1\n", want: map[string]bool{"T1": true}},
		{name: "sniff json", file: "b.txt", data: "\n {\"T1\": true}", want: map[string]bool{"T1": true}},
		{name: "sniff csv", file: "b", data: "id,value\nT1,false\n", want: map[string]bool{"T1": false}},
		{name: "json null", file: "b.json", data: "{\"T1\": true,\n \"T2\": null}", err: ErrLabel, where: `b.json line 2: key "T2"`},
		{name: "json number", file: "b.json", data: `{"T1": 1}`, err: ErrLabel, where: `key "T1"`},
		{name: "json string", file: "b.json", data: `{"T1": "true"}`, err: ErrLabel, where: `key "T1"`},
		{name: "json duplicate", file: "b.json", data: "{\"T1\": true,\n\"T1\": false}", err: ErrDuplicate, where: `b.json line 2: key "T1" already appeared on line 1`},
		{name: "json array", file: "b.json", data: `[true]`, err: ErrSyntax, where: "b.json line 1"},
		{name: "json empty", file: "b.json", data: `{}`, err: ErrEmpty, where: "b.json"},
		{name: "json truncated", file: "b.json", data: "{\"T1\": true,\n", err: ErrSyntax, where: "b.json line 2"},
		{name: "json trailing", file: "b.json", data: "{\"T1\": true}\n{}", err: ErrSyntax, where: "b.json line 2"},
		{name: "csv empty value", file: "b.csv", data: "id,value\nT1,true\nT2,\n", err: ErrLabel, where: `b.csv line 3: id "T2"`},
		{name: "csv bad value", file: "b.csv", data: "id,value\nT1,yes\n", err: ErrLabel, where: `b.csv line 2`},
		{name: "csv duplicate", file: "b.csv", data: "id,value\nT1,true\nT1,true\n", err: ErrDuplicate, where: "b.csv line 3"},
		{name: "csv header", file: "b.csv", data: "name,value\nT1,true\n", err: ErrSyntax, where: `b.csv line 1: header lacks column "id"`},
		{name: "csv ragged", file: "b.csv", data: "id,value\nT1,true,extra\n", err: ErrSyntax, where: "line 2"},
		{name: "csv no rows", file: "b.csv", data: "id,value\n", err: ErrEmpty, where: "b.csv"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseLabels(tc.file, []byte(tc.data))
			if tc.err != nil {
				if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.where) {
					t.Fatalf("err = %v, want %v containing %q", err, tc.err, tc.where)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if g, ok := got[k]; !ok || g != v {
					t.Errorf("%s = %v,%v want %v", k, g, ok, v)
				}
			}
		})
	}
}

func TestParseCases(t *testing.T) {
	const header = "user_task,injection_goal,utility,attack_success,side_effect,exposed\n"
	tests := []struct {
		name, file, data string
		want             []Case
		err              error
		where            string
	}{
		{name: "json", file: "c.json", data: `[{"user_task":"T1","injection_goal":"G1","utility":true,"attack_success":false,"side_effect":true,"exposed":false,"note":"ignored"}]`,
			want: []Case{{UserTask: "T1", InjectionGoal: "G1", Utility: true, SideEffect: true}}},
		{name: "csv reordered columns", file: "c.csv", data: "exposed,side_effect,attack_success,utility,injection_goal,user_task\n1,1,1,0,G1,T2\n",
			want: []Case{{UserTask: "T2", InjectionGoal: "G1", AttackSuccess: true, SideEffect: true, Exposed: true}}},
		{name: "json missing label", file: "c.json", data: "[\n{\"user_task\":\"T1\",\"injection_goal\":\"G1\",\"utility\":true,\"attack_success\":false,\"side_effect\":false}\n]",
			err: ErrLabel, where: `c.json line 2: row 1: key "exposed" is missing`},
		{name: "json null label", file: "c.json", data: "[{\"user_task\":\"T1\",\"injection_goal\":\"G1\",\"utility\":true,\"attack_success\":false,\"side_effect\":false,\"exposed\":false},\n{\"user_task\":\"T2\",\"injection_goal\":\"G1\",\"utility\":null,\"attack_success\":false,\"side_effect\":false,\"exposed\":false}]",
			err: ErrLabel, where: `c.json line 2: row 2: key "utility": value is null`},
		{name: "json missing label in a later row", file: "c.json", data: "[{\"user_task\":\"T1\",\"injection_goal\":\"G1\",\"utility\":true,\"attack_success\":false,\"side_effect\":false,\"exposed\":false},\n{\"user_task\":\"T2\",\"injection_goal\":\"G1\",\"utility\":true,\"attack_success\":false,\"side_effect\":false}]",
			err: ErrLabel, where: `c.json line 2: row 2: key "exposed" is missing`},
		{name: "json duplicate key", file: "c.json", data: `[{"user_task":"T1","user_task":"T2"}]`, err: ErrDuplicate, where: `row 1: key "user_task" appears twice`},
		{name: "json not array", file: "c.json", data: `{"user_task":"T1"}`, err: ErrSyntax, where: "c.json line 1"},
		{name: "json row not object", file: "c.json", data: "[\n 3]", err: ErrSyntax, where: "c.json line 2: row 1 is not an object"},
		{name: "json empty task", file: "c.json", data: `[{"user_task":"","injection_goal":"G"}]`, err: ErrSyntax, where: `"user_task" must be a non-empty string`},
		{name: "csv unknown label", file: "c.csv", data: header + "T1,G1,true,false,false,false\nT2,G1,true,maybe,false,false\n", err: ErrLabel, where: "c.csv line 3 (case T2/G1): column attack_success"},
		{name: "csv missing column", file: "c.csv", data: "user_task,injection_goal,utility,attack_success,side_effect\nT1,G1,1,0,0\n", err: ErrSyntax, where: `header lacks column "exposed"`},
		{name: "json empty", file: "c.json", data: `[]`, err: ErrEmpty, where: "c.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCases(tc.file, []byte(tc.data))
			if tc.err != nil {
				if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.where) {
					t.Fatalf("err = %v, want %v containing %q", err, tc.err, tc.where)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i := range got {
				g := got[i]
				g.Source = ""
				if g != tc.want[i] {
					t.Errorf("row %d = %+v, want %+v", i, g, tc.want[i])
				}
			}
		})
	}
}

func TestParseCasesSourceFeedsComputeErrors(t *testing.T) {
	data := "user_task,injection_goal,utility,attack_success,side_effect,exposed\nT1,G1,1,0,0,0\nT1,G1,1,0,0,0\n"
	cases, err := ParseCases("c.csv", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ComputeCases(map[string]bool{"T1": true}, cases)
	if !errors.Is(err, ErrDuplicate) || !strings.Contains(err.Error(), "c.csv line 3") || !strings.Contains(err.Error(), "c.csv line 2") {
		t.Errorf("err = %v, want duplicate naming lines 3 and 2", err)
	}
}

func TestParseClusters(t *testing.T) {
	got, err := ParseClusters("k.csv", []byte("id,cluster\nT1/G1,T1\nT1/G2,T1\n"))
	if err != nil || got["T1/G2"] != "T1" || len(got) != 2 {
		t.Fatalf("got %v, %v", got, err)
	}
	if _, err := ParseClusters("k.json", []byte(`{"a": 3}`)); !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), `key "a"`) {
		t.Errorf("err = %v", err)
	}
}
