package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpsec/mcpsec/internal/scan"
)

func init() { register(newRulesCmd) }

// ruleDoc is one rule as "mcpsec rules --format json" lists it.
type ruleDoc struct {
	ID             string   `json:"id"`
	Severity       string   `json:"severity"`
	SeverityLogic  string   `json:"severity_logic"`
	Description    string   `json:"description"`
	Flagged        []string `json:"flagged_samples"`
	NotFlagged     []string `json:"not_flagged_samples"`
	SuppressByRule string   `json:"ignore_entry"`
}

func newRulesCmd(env *Env) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List every rule scan applies, with its severity logic and samples",
		Long: `Rules lists every rule "mcpsec scan" can report: its id, what it catches,
how its severity is decided, and samples of text it flags and text it
leaves alone (each rule's samples are checked by mcpsec's own tests).

Use an id in an ignore file (.mcpsec.yaml) to hold back a rule's
findings:

  ignore:
    - rule: RULE_ID
      tool: TOOL        # optional
      reason: why this is expected here`,
		Example: `  mcpsec rules
  mcpsec rules --format json | jq -r '.rules[].id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rules := scan.AllRules()
			switch format {
			case "json":
				docs := make([]ruleDoc, 0, len(rules))
				for _, r := range rules {
					docs = append(docs, ruleDoc{
						ID: r.ID, Severity: r.Severity.String(), SeverityLogic: r.SeverityLogic(), Description: r.Description,
						Flagged: nonNilStrings(r.TruePositives), NotFlagged: nonNilStrings(r.FalsePositives),
						SuppressByRule: "- rule: " + r.ID,
					})
				}
				enc := json.NewEncoder(env.Stdout)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				return enc.Encode(struct {
					Rules []ruleDoc `json:"rules"`
				}{docs})
			case "text":
				for i, r := range rules {
					if i > 0 {
						fmt.Fprintln(env.Stdout)
					}
					fmt.Fprintf(env.Stdout, "%s\n", r.ID)
					for _, line := range strings.Split(r.Help(), "\n") {
						if line == "" {
							continue
						}
						fmt.Fprintf(env.Stdout, "  %s\n", line)
					}
				}
				fmt.Fprintf(env.Stdout, "\n%d rules\n", len(rules))
				return nil
			}
			return inputErrf("--format %q: want text or json", format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format")
	flagValues(cmd, "format", textJSON...)
	return cmd
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
