// Command mcpsec measures how MCP tool ecosystems hold up against tool
// poisoning. See README.md.
package main

import (
	"os"

	"github.com/mcpsec/mcpsec/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
