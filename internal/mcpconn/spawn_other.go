//go:build !linux

package mcpconn

import "os/exec"

// startCmd starts a stdio server. Only Linux can have the kernel kill it
// with mcpsec (see spawn_linux.go); elsewhere a server outlives a killed
// mcpsec until it notices its stdin closed.
func startCmd(cmd *exec.Cmd) error { return cmd.Start() }
