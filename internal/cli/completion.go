package cli

import (
	"github.com/spf13/cobra"
)

func init() { register(newCompletionCmd) }

// completionShells are the shells cobra generates completion scripts for.
var completionShells = []string{"bash", "zsh", "fish", "powershell"}

func newCompletionCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print a completion script for your shell. It completes commands, flags
and the values of flags that take one of a fixed set (--arm, --class,
--format, ...).`,
		Example: `  # bash, for the current shell and for every new one
  source <(mcpsec completion bash)
  mcpsec completion bash > /etc/bash_completion.d/mcpsec

  # zsh
  mcpsec completion zsh > "${fpath[1]}/_mcpsec"

  # fish
  mcpsec completion fish > ~/.config/fish/completions/mcpsec.fish

  # PowerShell
  mcpsec completion powershell | Out-String | Invoke-Expression`,
		ValidArgs: completionShells,
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(env.Stdout, true)
			case "zsh":
				return root.GenZshCompletion(env.Stdout)
			case "fish":
				return root.GenFishCompletion(env.Stdout, true)
			default:
				return root.GenPowerShellCompletionWithDesc(env.Stdout)
			}
		},
	}
}
