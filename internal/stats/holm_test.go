package stats

import (
	"math"
	"strings"
	"testing"
)

func TestHolm(t *testing.T) {
	tests := []struct {
		name     string
		ps, want []float64
	}{
		// sorted 0.005, 0.01, 0.03, 0.04 -> x4, x3, x2, x1 = 0.02, 0.03, 0.06, 0.04 -> running max 0.06
		{"step-down with the running maximum", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		{"capped at one", []float64{0.5, 0.6}, []float64{1, 1}},
		{"a family of one is unchanged", []float64{0.2}, []float64{0.2}},
		{"ties", []float64{0.01, 0.01, 0.5}, []float64{0.03, 0.03, 0.5}},
		{"empty", nil, []float64{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Holm(tc.ps)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if math.Abs(got[i]-tc.want[i]) > 1e-12 {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
				if got[i] < tc.ps[i] {
					t.Fatalf("adjusted %v below raw %v", got[i], tc.ps[i])
				}
			}
		})
	}
}

func TestBootstrapWarnsBelowTenClusters(t *testing.T) {
	ref, def, clusters := map[string]bool{}, map[string]bool{}, map[string]string{}
	for i := range 40 {
		id := string(rune('a'+i/10)) + string(rune('0'+i%10))
		ref[id], def[id] = i%2 == 0, i%3 == 0
		clusters[id] = id[:1] // 4 clusters of 10 ids
	}
	tests := []struct {
		name     string
		clusters map[string]string
		n        int
		warn     bool
	}{
		{"four clusters", clusters, 4, true},
		{"every id its own cluster", nil, 40, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := BootstrapNetEffect(ref, def, BootstrapOptions{Reps: 200, Seed: 1, Cluster: tc.clusters})
			if err != nil {
				t.Fatal(err)
			}
			if b.Clusters != tc.n || (b.Warning != "") != tc.warn {
				t.Fatalf("%d clusters, warning %q; want %d clusters, warning %v", b.Clusters, b.Warning, tc.n, tc.warn)
			}
			if tc.warn && !strings.Contains(b.Warning, "only 4 clusters (fewer than 10)") {
				t.Errorf("warning %q does not say how many clusters", b.Warning)
			}
		})
	}
}
