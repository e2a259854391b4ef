package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpsec/mcpsec/internal/fixture"
)

func init() { fixtureChildren = append(fixtureChildren, newFixtureFaultyCmd) }

// newFixtureFaultyCmd runs the deliberately broken stdio server that the
// hardening tests (and anyone checking a client) point at.
func newFixtureFaultyCmd(env *Env) *cobra.Command {
	var mode string
	cmd := &cobra.Command{
		Use:     "faulty --mode MODE",
		Short:   "Serve a deliberately broken MCP server on stdio",
		Long:    "Modes: " + strings.Join(fixture.FaultyModes, ", ") + ".",
		Example: "  mcpsec fixture faulty --mode " + fixture.FaultyModes[0],
		Hidden:  true,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if mode == "" {
				return inputErrf("fixture faulty: --mode is required (one of %s)", strings.Join(fixture.FaultyModes, ", "))
			}
			valid := false
			for _, m := range fixture.FaultyModes {
				valid = valid || m == mode
			}
			if !valid {
				return inputErrf("fixture faulty: unknown --mode %q (one of %s)", mode, strings.Join(fixture.FaultyModes, ", "))
			}
			return fixture.RunFaulty(cmd.Context(), mode, env.Stdin, env.Stdout)
		},
	}
	cmd.Flags().StringVar(&mode, "mode", "", "how to misbehave")
	flagValues(cmd, "mode", fixture.FaultyModes...)
	return cmd
}
