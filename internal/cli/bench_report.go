package cli

import "github.com/mcpsec/mcpsec/internal/defense"

func checkArms(arms []string) error {
	ok := map[string]bool{}
	for _, a := range defense.Arms {
		ok[a] = true
	}
	for _, a := range arms {
		if !ok[a] {
			return inputErrf("unknown arm %q (known: %v)", a, defense.Arms)
		}
	}
	return nil
}

// writeReports is replaced once the report package lands.
func writeReports(env *Env, dir string) error { return nil }
