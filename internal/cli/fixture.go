package cli

import (
	"github.com/spf13/cobra"
)

func init() { register(newFixtureCmd) }

// fixtureChildren holds constructors of `mcpsec fixture` subcommands that
// live in other files (for example the faulty server). Files append to it
// in their init so that no two files edit one shared list literal.
var fixtureChildren []func(*Env) *cobra.Command

func newFixtureCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fixture",
		Short: "Run the defanged fixture MCP servers and list attack payloads",
		Long: `The fixture commands expose mcpsec's own test world as real MCP servers:
a benign notes/users/calculator server, its poisoned twins (one per attack
class) and a shadow server for cross-server attacks. The attacker sink
export_data only records its arguments; nothing leaves the process.`,
		Args: cobra.NoArgs,
	}
	for _, f := range fixtureChildren {
		cmd.AddCommand(f(env))
	}
	return cmd
}
