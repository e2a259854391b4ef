// Package realworld holds the real-world benign check of the scanner: the
// public MCP servers pinned in testdata/realworld are started through
// mcpsec's own client, their tools listed live and scanned. It has no
// non-test code; the package exists so that check has a home of its own
// and runs apart from the scanner's unit tests.
package realworld
