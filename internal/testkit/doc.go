// Package testkit starts what mcpsec's tests drive from outside the code
// under test: Debian's Chromium for the HTML pages (chromium.go), the
// official TypeScript MCP client and reference servers from interop/
// (tsclient.go), a command that serves on loopback and prints its URL
// (serve.go), and the checks that a test left no process or goroutine
// behind (process.go). Each set-up has its one owner here, so a fix to
// how Chromium starts or how the TypeScript client is called is made once.
//
// Only tests import testkit (a convention, not enforced by the compiler):
// every helper takes a testing.TB and fails it. What a test needs and
// finds missing (chromium, node, interop/node_modules) fails the test
// with a message saying to run `make deps`; nothing here skips, since a
// skipped test would let a regression through unnoticed.
//
// testkit imports no mcpsec package, so any package's internal tests can
// use it without an import cycle.
package testkit
