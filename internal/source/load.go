package source

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
)

// Kind says how a server's catalog was obtained.
type Kind string

const (
	KindFile  Kind = "file"  // a catalog file (--catalog)
	KindStdio Kind = "stdio" // a command mcpsec started
	KindHTTP  Kind = "http"  // a streamable-HTTP endpoint
	KindConn  Kind = "conn"  // a connection the caller opened (the demo)
)

// Server is one server's catalog and where it came from.
type Server struct {
	// Def is what the server defines: tools, prompts, resources.
	Def catalog.Server
	// Kind is how it was obtained.
	Kind Kind
	// URI names the document in reports: the catalog path, the URL, or
	// "stdio:NAME" for a started command.
	URI string
	// Data is the JSON document Def was read from: the catalog file's
	// bytes, or for a live server its listing as received (tool objects
	// byte for byte), indented. Findings point at lines and columns in it.
	Data []byte
	// Pointer is the JSON Pointer of Def inside Data: "/servers/N" in a
	// multi-server file, "" when the document is the server itself.
	Pointer string
	// ToolSuffix follows "/tools/N" to reach a tool's definition: empty,
	// or "/definition" in a lockfile.
	ToolSuffix string
	// Lockfile says the file was an mcpsec lockfile, judged for the
	// definitions it pins.
	Lockfile bool
	// Command is the argv of a started server; URL the endpoint of an
	// HTTP one. Either identifies the server across runs.
	Command []string
	URL     string
	// ConfigFile and ConfigEntry name the client configuration entry the
	// server came from, if any.
	ConfigFile  string
	ConfigEntry string
}

// Spec lists the sources to load, in the order given on a command line.
type Spec struct {
	Catalogs []string // catalog file paths
	Stdio    []string // command lines, split like a shell would
	URLs     []string // streamable-HTTP endpoints
	Configs  []string // MCP client configuration files
	// AllowExec permits starting the commands listed in Configs.
	AllowExec bool
	// Conn bounds each live connection.
	Conn mcpconn.Options
	// PassEnv names variables of our environment handed to started
	// servers on purpose; otherwise they get mcpconn's minimal
	// environment plus what their configuration entry sets.
	PassEnv []string
	// Log receives what a refused configuration would have run.
	Log io.Writer

	// fetch replaces fetchDoc in tests.
	fetch func(context.Context, mcpconn.Source, mcpconn.Options) (catalog.Server, []byte, error)
}

// ErrNoSource means a Spec names nothing to load.
var ErrNoSource = errors.New("no catalog source: give --catalog FILE, --stdio CMD, --url URL or --config FILE")

// ErrExecRefused means a configuration lists commands and AllowExec is off.
var ErrExecRefused = errors.New("refusing to start server commands without --allow-exec")

// Empty reports whether the spec names no source.
func (sp Spec) Empty() bool {
	return len(sp.Catalogs)+len(sp.Stdio)+len(sp.URLs)+len(sp.Configs) == 0
}

// live is one server to connect to and what to record about it.
type live struct {
	src    mcpconn.Source
	server Server
}

// Load obtains every server the spec names. Catalog files are read
// first, then every live server is started or dialled at once, so the
// wall time is that of the slowest server, not the sum. Servers come back
// in the order of the spec; a name used twice gets a "#2" suffix. Errors
// for bad input wrap catalog.ErrInput or name the server that failed.
func Load(ctx context.Context, sp Spec) ([]Server, error) {
	if sp.Empty() {
		return nil, ErrNoSource
	}
	var out []Server
	for _, path := range sp.Catalogs {
		ss, err := ReadFile(path)
		if err != nil {
			return nil, err
		}
		out = append(out, ss...)
	}
	todo, err := sp.liveList()
	if err != nil {
		return nil, err
	}
	got, err := sp.fetchAll(ctx, todo)
	if err != nil {
		return nil, err
	}
	out = append(out, got...)
	names := map[string]int{}
	for i := range out {
		n := out[i].Def.Name
		names[n]++
		if k := names[n]; k > 1 {
			out[i].Def.Name = n + "#" + strconv.Itoa(k)
		}
	}
	return out, nil
}

// liveList turns the spec's --stdio, --url and --config sources into the
// servers to start or dial, in order.
func (sp Spec) liveList() ([]live, error) {
	var todo []live
	for _, line := range sp.Stdio {
		argv, err := SplitCommand(line)
		if err != nil {
			return nil, fmt.Errorf("%w: --stdio: %w", catalog.ErrInput, err)
		}
		todo = append(todo, live{src: mcpconn.Source{Command: argv, PassEnv: sp.PassEnv}, server: Server{Kind: KindStdio, Command: argv}})
	}
	for _, u := range sp.URLs {
		pu, err := url.Parse(u)
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return nil, fmt.Errorf("%w: --url %q: want an http:// or https:// URL", catalog.ErrInput, u)
		}
		todo = append(todo, live{src: mcpconn.Source{URL: u}, server: Server{Kind: KindHTTP, URI: u, URL: u}})
	}
	for _, path := range sp.Configs {
		ls, err := sp.configServers(path)
		if err != nil {
			return nil, err
		}
		todo = append(todo, ls...)
	}
	return todo, nil
}

// LiveSources returns how to reach each live server the spec names,
// without connecting, for callers that keep the connections (redteam).
// Configuration commands are refused without AllowExec, as in Load.
func (sp Spec) LiveSources() ([]mcpconn.Source, error) {
	todo, err := sp.liveList()
	if err != nil {
		return nil, err
	}
	out := make([]mcpconn.Source, len(todo))
	for i, l := range todo {
		out[i] = l.src
	}
	return out, nil
}

// ReadFile reads a catalog file into its servers, each pointing into the
// file's bytes.
func ReadFile(path string) ([]Server, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: catalog: %w", catalog.ErrInput, err)
	}
	return ParseFile(path, data)
}

// ParseFile is ReadFile on bytes already read; path labels errors.
func ParseFile(path string, data []byte) ([]Server, error) {
	if isLockfile(data) {
		return parseLockfile(path, data)
	}
	c, err := catalog.Parse(path, data)
	if err != nil {
		return nil, err
	}
	bare := !hasServers(data)
	out := make([]Server, 0, len(c.Servers))
	for i, s := range c.Servers {
		ptr := ""
		if !bare {
			ptr = "/servers/" + strconv.Itoa(i)
		}
		out = append(out, Server{Def: s, Kind: KindFile, URI: path, Data: data, Pointer: ptr})
	}
	return out, nil
}

// isLockfile reports whether a document is an mcpsec lockfile.
func isLockfile(data []byte) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	_, ok := probe["lock_version"]
	return ok
}

// parseLockfile reads the definitions a lockfile pins, so that passing
// one as a catalog judges what it would let through rather than nothing.
func parseLockfile(path string, data []byte) ([]Server, error) {
	var lf struct {
		Servers []struct {
			Name         string `json:"name"`
			Version      string `json:"version"`
			Instructions string `json:"instructions"`
			Tools        []struct {
				Name       string          `json:"name"`
				Definition json.RawMessage `json:"definition"`
			} `json:"tools"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(data, &lf); err != nil {
		return nil, &catalog.InputError{File: path, Msg: "lockfile: " + err.Error()}
	}
	out := make([]Server, 0, len(lf.Servers))
	for i, ls := range lf.Servers {
		if ls.Name == "" {
			return nil, &catalog.InputError{File: path, Msg: fmt.Sprintf("lockfile: servers[%d]: missing \"name\"", i)}
		}
		def := catalog.Server{Name: ls.Name, Version: ls.Version, Instructions: ls.Instructions, Tools: []catalog.Tool{}}
		for j, lt := range ls.Tools {
			if len(lt.Definition) == 0 {
				return nil, &catalog.InputError{File: path, Msg: fmt.Sprintf("lockfile: servers[%d].tools[%d] (%s): no \"definition\" to judge", i, j, lt.Name)}
			}
			doc := []byte(`{"tools":[` + string(lt.Definition) + `]}`)
			c, err := catalog.Parse(path, doc)
			if err != nil || len(c.Servers) != 1 || len(c.Servers[0].Tools) != 1 {
				return nil, &catalog.InputError{File: path, Msg: fmt.Sprintf("lockfile: servers[%d].tools[%d] (%s): definition: %v", i, j, lt.Name, err)}
			}
			def.Tools = append(def.Tools, c.Servers[0].Tools[0])
		}
		out = append(out, Server{Def: def, Kind: KindFile, URI: path, Data: data,
			Pointer: "/servers/" + strconv.Itoa(i), ToolSuffix: "/definition", Lockfile: true})
	}
	return out, nil
}

// hasServers reports whether a document is a multi-server catalog rather
// than a tools/list result.
func hasServers(data []byte) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	_, ok := probe["servers"]
	return ok
}

func (sp Spec) configServers(path string) ([]live, error) {
	entries, err := LoadConfig(path)
	if err != nil {
		return nil, err
	}
	var cmds []ConfigServer
	for _, e := range entries {
		if len(e.Command) > 0 {
			cmds = append(cmds, e)
		}
	}
	if len(cmds) > 0 && !sp.AllowExec {
		if sp.Log != nil {
			fmt.Fprintf(sp.Log, "%s lists %d server command(s); mcpsec would run:\n", path, len(cmds))
			for _, e := range cmds {
				fmt.Fprintf(sp.Log, "  %s\n", e.Describe())
			}
		}
		return nil, fmt.Errorf("%w: %s: %w", catalog.ErrInput, path, ErrExecRefused)
	}
	var out []live
	for _, e := range entries {
		if e.URL != "" {
			out = append(out, live{
				src:    mcpconn.Source{Name: e.Name, URL: e.URL},
				server: Server{Kind: KindHTTP, URI: e.URL, URL: e.URL, ConfigFile: path, ConfigEntry: e.Name},
			})
			continue
		}
		src := mcpconn.Source{Name: e.Name, Command: e.Command, PassEnv: sp.PassEnv}
		keys := make([]string, 0, len(e.Env))
		for k := range e.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			src.Env = append(src.Env, k+"="+e.Env[k])
		}
		out = append(out, live{src: src, server: Server{Kind: KindStdio, Command: e.Command, ConfigFile: path, ConfigEntry: e.Name}})
	}
	return out, nil
}

// fetchAll connects to every live server concurrently. The first failure
// cancels the others and is the one reported: the later ones are mostly
// the cancellation it caused.
func (sp Spec) fetchAll(ctx context.Context, todo []live) ([]Server, error) {
	if len(todo) == 0 {
		return nil, nil
	}
	fetch := sp.fetch
	if fetch == nil {
		fetch = fetchDoc
	}
	opts := sp.Conn
	if opts.CallTimeout == 0 && opts.ConnectTimeout == 0 {
		opts = mcpconn.DefaultOptions()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make([]Server, len(todo))
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for i, l := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			def, doc, err := fetch(ctx, l.src, opts)
			if err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				cancel()
				return
			}
			s := l.server
			if s.Kind == KindStdio && l.src.Name == "" {
				// A --stdio server is known by its command until it
				// introduces itself.
				if def.Name == "" || def.Name == strings.Join(l.src.Command, " ") {
					def.Name = StdioName(l.src.Command)
				}
			}
			if s.URI == "" {
				s.URI = "stdio:" + url.PathEscape(def.Name)
			}
			s.Def, s.Data = def, doc
			out[i] = s
		}()
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return out, nil
}

// Catalog gathers the servers' definitions into one catalog, in order.
func Catalog(servers []Server) *catalog.Catalog {
	c := &catalog.Catalog{Servers: make([]catalog.Server, 0, len(servers))}
	for _, s := range servers {
		c.Servers = append(c.Servers, s.Def)
	}
	return c
}
