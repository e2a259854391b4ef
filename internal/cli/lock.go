package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mcpsec/mcpsec/internal/scan"
)

func init() { register(newLockCmd) }

func newLockCmd(env *Env) *cobra.Command {
	var (
		sf  sourceFlags
		out string
	)
	cmd := &cobra.Command{
		Use:   "lock",
		Short: "Pin server catalogs in a lockfile to detect drift later",
		Long: `Lock records, per server, its name, version and instructions and, per
tool, the SHA-256 of its canonical definition, the hash without the name
(to recognise renames) and the full definition (to diff against later).

Canonical form: object keys sorted, no insignificant whitespace, numbers
in shortest form, the order of "required" ignored, tool order ignored.
Text inside strings is hashed byte for byte: a whitespace change in a
description is a change, reported by "scan --lock" as info.`,
		Example: `  mcpsec lock --catalog tools.json --out mcp.lock
  mcpsec scan --catalog tools.json --lock mcp.lock`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ld, err := sf.load(cmd.Context(), env)
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			lf := scan.NewLock(ld.cat)
			for _, s := range ld.servers {
				lf.SetIdentity(s.Def.Name, identity(s))
			}
			if err := lf.Write(&buf); err != nil {
				return err
			}
			if out == "" || out == "-" {
				_, err := env.Stdout.Write(buf.Bytes())
				return err
			}
			return writeFileAtomic(out, buf.Bytes())
		},
	}
	sf.add(cmd)
	cmd.Flags().StringVar(&out, "out", "", "write the lockfile to `LOCK` (default stdout)")
	return cmd
}

// writeFileAtomic replaces path only once the new content is complete,
// so a failed run never leaves a truncated lockfile behind.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".mcpsec-lock-*")
	if err != nil {
		return inputErrf("--out: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
