package mcpconn

import (
	"fmt"
	"strings"
)

// A stdio server is started with a minimal environment because the server
// is under inspection and may be hostile: mcpsec's own environment holds
// provider API keys and other credentials that such a server must never
// see. What it gets is what a program needs to start and find its tools,
// plus what the caller deliberately adds (a client config's env block,
// --pass-env).

// minimalEnvNames are the variables of our environment a stdio server
// always receives.
var minimalEnvNames = []string{"PATH", "HOME", "TMPDIR", "LANG", "LANGUAGE"}

// minimalEnvPrefixes are the variable families a stdio server always
// receives (the locale categories).
var minimalEnvPrefixes = []string{"LC_"}

// MinimalEnvNames describes, for help texts and docs, which of our
// variables a stdio server receives without being asked.
const MinimalEnvNames = "PATH, HOME, TMPDIR, LANG, LANGUAGE and LC_*"

// ServerEnv builds the environment of a stdio server from ours (environ,
// in os.Environ form): the minimal variables, then each variable named in
// pass that is set in environ, then extra (NAME=value entries, such as a
// client config's env block). A later entry for the same name wins, so
// extra overrides what was passed.
func ServerEnv(environ, pass, extra []string) []string {
	ours := map[string]string{}
	var order []string
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if _, dup := ours[k]; !dup {
			order = append(order, k)
		}
		ours[k] = v
	}
	out := map[string]string{}
	var names []string
	set := func(k, v string) {
		if _, dup := out[k]; !dup {
			names = append(names, k)
		}
		out[k] = v
	}
	for _, k := range order {
		if isMinimal(k) {
			set(k, ours[k])
		}
	}
	for _, k := range pass {
		if v, ok := ours[k]; ok {
			set(k, v)
		}
	}
	for _, kv := range extra {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		set(k, v)
	}
	env := make([]string, 0, len(names))
	for _, k := range names {
		env = append(env, k+"="+out[k])
	}
	return env
}

func isMinimal(name string) bool {
	for _, n := range minimalEnvNames {
		if name == n {
			return true
		}
	}
	for _, p := range minimalEnvPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// CheckEnvName rejects a --pass-env argument that cannot name a variable.
func CheckEnvName(name string) error {
	if name == "" || strings.ContainsAny(name, "= \t\n\x00") {
		return fmt.Errorf("%w: %q is not an environment variable name", ErrInvalidOption, name)
	}
	return nil
}
