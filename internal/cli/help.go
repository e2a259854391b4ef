package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// valuesAnnotation marks a flag whose values form a closed set. The set is
// listed in the flag's help and offered to shell completion; the help test
// checks that every enumerated flag carries it.
const valuesAnnotation = "mcpsec_values"

// textJSON is the --format set of the commands that print either a
// human-readable text or the same content as JSON.
var textJSON = []string{"text", "json"}

// flagValues lists the valid values of cmd's flag name (a local or
// persistent flag) in its help and offers them to shell completion. The
// values come from the package that owns them, never from a second list.
func flagValues(cmd *cobra.Command, name string, values ...string) {
	annotateValues(cmd, name, "one of", values)
}

// flagListValues is flagValues for a comma-separated list flag.
func flagListValues(cmd *cobra.Command, name string, values ...string) {
	annotateValues(cmd, name, "comma-separated, from", values)
}

func annotateValues(cmd *cobra.Command, name, lead string, values []string) {
	f := lookupFlag(cmd, name)
	if f == nil {
		panic("flagValues: " + cmd.CommandPath() + " has no flag --" + name)
	}
	f.Usage += " (" + lead + ": " + strings.Join(values, ", ") + ")"
	if f.Annotations == nil {
		f.Annotations = map[string][]string{}
	}
	f.Annotations[valuesAnnotation] = values
	vals := append([]string(nil), values...)
	_ = cmd.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return vals, cobra.ShellCompDirectiveNoFileComp
	})
}

func lookupFlag(cmd *cobra.Command, name string) *pflag.Flag {
	if f := cmd.Flags().Lookup(name); f != nil {
		return f
	}
	return cmd.PersistentFlags().Lookup(name)
}
