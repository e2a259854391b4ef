package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

func init() { register(newVersionCmd) }

func newVersionCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print mcpsec's version, git revision and Go version",
		Example: `  mcpsec version
  mcpsec --version`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v, rev, dirty := BuildInfo()
			d := ""
			if dirty {
				d = " (dirty)"
			}
			fmt.Fprintf(env.Stdout, "mcpsec %s\nrevision %s%s\n%s %s/%s\n", v, rev, d, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}

// versionLine is what --version prints after "mcpsec ".
func versionLine() string {
	v, rev, dirty := BuildInfo()
	if dirty {
		rev += "-dirty"
	}
	return v + " (revision " + rev + ", " + runtime.Version() + ")"
}
