package bench

import (
	"errors"
	"strings"
	"testing"
)

func TestShardFromEnv(t *testing.T) {
	tests := []struct {
		name         string
		index, count string
		want         Shard
		wantErr      string
	}{
		{name: "first pod", index: "0", count: "4", want: Shard{1, 4}},
		{name: "last pod", index: "3", count: "4", want: Shard{4, 4}},
		{name: "one shard", index: "0", count: "1", want: Shard{1, 1}},
		{name: "spaces", index: " 2 ", count: "3\n", want: Shard{3, 3}},
		{name: "index past the count", index: "4", count: "4", wantErr: "JOB_COMPLETION_INDEX=4 is outside 0..3"},
		{name: "negative index", index: "-1", count: "4", wantErr: "JOB_COMPLETION_INDEX=-1 is outside"},
		{name: "no index", count: "4", wantErr: "JOB_COMPLETION_INDEX is not set"},
		{name: "no count", index: "0", wantErr: "MCPSEC_SHARD_COUNT is not set"},
		{name: "zero count", index: "0", count: "0", wantErr: "MCPSEC_SHARD_COUNT=0, want at least 1"},
		{name: "count not a number", index: "0", count: "four", wantErr: `MCPSEC_SHARD_COUNT="four" is not a whole number`},
		{name: "index not a number", index: "1.0", count: "4", wantErr: `JOB_COMPLETION_INDEX="1.0" is not a whole number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{EnvShardIndex: tc.index, EnvShardCount: tc.count}
			got, err := ShardFromEnv(func(k string) string { return env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrConfig) {
					t.Fatalf("got %v, %v; want an ErrConfig containing %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestShardFromEnvPartitionsTheGrid: the pods of an Indexed Job with n
// completions, indexes 0..n-1, run every trial of the grid exactly once.
func TestShardFromEnvPartitionsTheGrid(t *testing.T) {
	trials := DefaultGrid().Expand()
	const n = 5
	var shards []Shard
	for i := range n {
		env := map[string]string{EnvShardIndex: string(rune('0' + i)), EnvShardCount: "5"}
		sh, err := ShardFromEnv(func(k string) string { return env[k] })
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, sh)
	}
	assertPartition(t, trials, shards)
}
