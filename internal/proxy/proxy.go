// Package proxy is mcpsec's defending MCP proxy: an MCP server that
// fronts one or more upstream MCP servers and applies the benchmark's
// defense arms (through the agent's three seams, the very code the bench
// runs) to what passes between them. Every listing is judged before the
// client sees any of it, every call is decided before it reaches its
// server, every decision is written to an audit log, and anything the
// proxy cannot judge is withheld.
package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/defense"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/scan"
)

// Sentinel errors.
var (
	// ErrNoUpstream means no upstream server could be listed, so the
	// proxy has no judged catalog to offer.
	ErrNoUpstream = errors.New("no upstream server is available")
	// ErrConfig marks options the proxy cannot start from.
	ErrConfig = errors.New("proxy configuration")
)

// BlockedPrefix starts the text of every call result the proxy made up
// instead of relaying, so a model and a user can tell who answered.
const BlockedPrefix = "mcpsec blocked this call"

// Options configures a proxy.
type Options struct {
	// Upstreams are the servers fronted; each needs a distinct Name.
	Upstreams []mcpconn.Source
	// Attached are upstreams already connected (the benchmark's fixture
	// servers); the proxy owns them from Start on and closes them.
	Attached []*mcpconn.Conn
	// Conn bounds what each upstream may cost.
	Conn mcpconn.Options
	// Seams are the defenses: tool transforms judge every listing, call
	// policies decide every call, result transforms rewrite results.
	Seams agent.Seams
	// Audit receives every decision (nil: none).
	Audit *Audit
	// Log receives one human-readable line per upstream failure.
	Log io.Writer
	// Version is reported in serverInfo.
	Version string
	// ScanMeta, when set, relays prompts and resources, withholding those
	// with a scan finding at or above it; nil offers neither (nothing
	// unjudged reaches the client).
	ScanMeta *scan.Severity
}

// Proxy is a running proxy. Serve it with Server().Run or an HTTP
// handler; Close stops every upstream.
type Proxy struct {
	opts   Options
	server *mcp.Server
	ups    []*upstream

	refreshMu sync.Mutex // one judging pass at a time

	fastCalls atomic.Int64 // calls served the short way (ServeStdio)

	mu        sync.Mutex
	served    map[string]*served
	withheld  map[string]string // client name -> why, for calls to withheld tools
	logged    map[string]bool   // verdicts already in the audit log
	reasons   map[string][2]string
	prompts   map[string]*servedPrompt
	resources map[string]*servedResource
	templates map[string]*servedTemplate // by URI template
	subs      map[subKey]int             // client subscriptions forwarded upstream
	history   agent.History
	seq       int
	listed    bool
	cancel    context.CancelFunc
	watchers  sync.WaitGroup

	// ready is closed once the upstreams are started and their first
	// listing judged (startErr says how that went); freshAt is when, until
	// a client's tools/list is served from it.
	ready    chan struct{}
	startErr error
	freshAt  time.Time
}

type upstream struct {
	name string
	src  mcpconn.Source

	mu   sync.Mutex
	conn *mcpconn.Conn
	err  error // set once the upstream is given up on

	// The last listing, reused when another upstream announces a change
	// (guarded by the proxy's refreshMu).
	tools     []catalog.Tool
	raw       []json.RawMessage
	ok        bool
	prompts   []catalog.Prompt
	resources []catalog.Resource
}

func (u *upstream) get() (*mcpconn.Conn, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.conn, u.err
}

type served struct {
	tool agent.Tool
	up   *upstream
	// key identifies exactly what the client was given (to tell a real
	// change from a re-listing of the same definition): the wire bytes.
	key  string
	wire json.RawMessage
}

// Start connects every upstream (in parallel), judges the first listing
// and returns a proxy ready to serve. An upstream that fails to start is
// logged and left out; only when none is left is that an error, and even
// then the proxy is returned so that clients get an error on tools/list
// instead of an unjudged catalog.
func Start(ctx context.Context, opts Options) (*Proxy, error) {
	p, err := Begin(ctx, opts)
	if err != nil {
		return nil, err
	}
	<-p.ready
	return p, p.startErr
}

// Begin is Start without the wait: it returns as soon as the options are
// checked, with the upstreams starting and the scanner building its
// indexes in the background, so that the client's initialize is answered
// meanwhile. Every request but initialize and ping waits for the first
// judged listing (Ready); nothing unjudged is served in the meantime.
func Begin(ctx context.Context, opts Options) (*Proxy, error) {
	if len(opts.Upstreams)+len(opts.Attached) == 0 {
		return nil, fmt.Errorf("%w: no upstream server given", ErrConfig)
	}
	names := map[string]bool{}
	for _, s := range opts.Upstreams {
		if s.Name == "" || names[s.Name] {
			return nil, fmt.Errorf("%w: upstream names must be distinct and non-empty (got %q)", ErrConfig, s.Name)
		}
		names[s.Name] = true
	}
	for _, c := range opts.Attached {
		if names[c.Name()] {
			return nil, fmt.Errorf("%w: upstream names must be distinct (got %q twice)", ErrConfig, c.Name())
		}
		names[c.Name()] = true
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	p := &Proxy{opts: opts, served: map[string]*served{}, withheld: map[string]string{}, logged: map[string]bool{}, ready: make(chan struct{})}
	caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}}
	if opts.ScanMeta != nil {
		caps.Prompts = &mcp.PromptCapabilities{ListChanged: true}
		caps.Resources = &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true}
	}
	sopts := &mcp.ServerOptions{
		Instructions: opts.Seams.SystemPreamble,
		Logger:       slog.New(slog.DiscardHandler),
		Capabilities: caps,
	}
	if opts.ScanMeta != nil {
		sopts.SubscribeHandler = func(ctx context.Context, req *mcp.SubscribeRequest) error {
			return p.subscribe(ctx, req.Params.URI, true)
		}
		sopts.UnsubscribeHandler = func(ctx context.Context, req *mcp.UnsubscribeRequest) error {
			return p.subscribe(ctx, req.Params.URI, false)
		}
	}
	p.server = mcp.NewServer(&mcp.Implementation{Name: "mcpsec-proxy", Version: opts.Version}, sopts)
	p.server.AddReceivingMiddleware(p.middleware)
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p.cancel = cancel

	for _, c := range opts.Attached {
		p.ups = append(p.ups, &upstream{name: c.Name(), conn: c})
	}
	for _, src := range opts.Upstreams {
		p.ups = append(p.ups, &upstream{name: src.Name, src: src})
	}
	go p.start(ctx, wctx)
	return p, nil
}

// Ready is closed once the first listing is judged.
func (p *Proxy) Ready() <-chan struct{} { return p.ready }

// StartErr is Start's error, valid once Ready is closed.
func (p *Proxy) StartErr() error {
	<-p.ready
	return p.startErr
}

func (p *Proxy) start(ctx, wctx context.Context) {
	defer close(p.ready)
	opts := p.opts
	var wg sync.WaitGroup
	for _, u := range p.ups {
		if u.src.Name == "" {
			continue // attached
		}
		src := u.src
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := mcpconn.Connect(ctx, src, opts.Conn)
			if err != nil {
				p.upstreamFailed(u, "connect", err)
				return
			}
			u.mu.Lock()
			u.conn = c
			u.mu.Unlock()
		}()
	}
	wg.Wait()
	p.opts.Audit.Log(Record{Decision: DecisionStarted, Evidence: fmt.Sprintf("%d upstream server(s)", len(p.ups))})
	err := p.refresh(ctx)
	p.mu.Lock()
	p.startErr = err
	if err == nil {
		p.freshAt = time.Now()
	}
	p.mu.Unlock()
	for _, u := range p.ups {
		if c, uerr := u.get(); uerr == nil && c != nil {
			p.watchers.Add(1)
			go p.watch(wctx, u, c)
		}
	}
}

// Server is the MCP server the client talks to.
func (p *Proxy) Server() *mcp.Server { return p.server }

// Close stops watching and closes every upstream (reaping its process).
func (p *Proxy) Close() error {
	// Upstreams still starting would be missed (and leak).
	<-p.ready
	p.cancel()
	// In parallel: each Close may wait out a grace period for its server
	// to exit, and a client that stops the proxy will not wait for the
	// sum of them.
	errs := make([]error, len(p.ups))
	var wg sync.WaitGroup
	for i, u := range p.ups {
		u.mu.Lock()
		c := u.conn
		u.conn = nil
		if u.err == nil {
			u.err = errors.New("proxy closed")
		}
		u.mu.Unlock()
		if c != nil {
			wg.Go(func() { errs[i] = c.Close() })
		}
	}
	wg.Wait()
	p.watchers.Wait()
	return errors.Join(errs...)
}

// Offered returns the names the client is currently offered, sorted.
func (p *Proxy) Offered() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Sorted(maps.Keys(p.served))
}

// watch re-judges the listing whenever an upstream announces a change;
// the client hears list_changed only once the new listing is judged and
// installed (the SDK announces the change when tools are replaced).
func (p *Proxy) watch(ctx context.Context, u *upstream, c *mcpconn.Conn) {
	defer p.watchers.Done()
	for {
		var relist func()
		select {
		case <-ctx.Done():
			return
		case _, ok := <-c.ListChanged():
			if !ok {
				return
			}
			relist = func() { _ = p.refreshOnly(ctx, u) }
		case <-c.MetaChanged():
			relist = func() { p.refreshMeta(ctx, u) }
		case <-c.Updated():
			p.forwardUpdated(ctx, u, c.TakeUpdated())
			continue
		}
		if _, err := u.get(); err != nil {
			return
		}
		relist()
		// A server may announce changes without end; re-list it at
		// most this often.
		t := time.NewTimer(minRelistGap)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// freshFor is how long the start-up listing counts as just judged.
const freshFor = 2 * time.Second

// minRelistGap bounds how often one upstream's list_changed makes the
// proxy re-list it.
const minRelistGap = 100 * time.Millisecond

// middleware re-judges every upstream's listing before answering a
// client's tools/list, so a definition changed without notice is judged
// before it can be offered, and fails the request when nothing could be
// judged.
func (p *Proxy) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "initialize", "notifications/initialized", "ping":
		default:
			select {
			case <-p.ready:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		switch method {
		case "tools/list":
			// The listing judged at start-up is served as it is to a
			// tools/list that follows it at once (a client's first, right
			// after initialize); every other tools/list re-lists and
			// re-judges.
			p.mu.Lock()
			fresh := !p.freshAt.IsZero() && time.Since(p.freshAt) < freshFor
			p.freshAt = time.Time{}
			p.mu.Unlock()
			if !fresh {
				if err := p.refresh(ctx); err != nil {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "mcpsec proxy: " + err.Error()}
				}
			}
			// Served from the upstreams' own bytes, not from the SDK's
			// registry, whose Tool type drops what it does not know.
			return p.listResult(), nil
		case "tools/call":
			if params, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && params != nil {
				return p.callResult(ctx, params.Name, params.Arguments)
			}
		}
		return next(ctx, method, req)
	}
}

// callResult answers one tools/call, however it reached the proxy (the
// SDK's server or ServeStdio's short way): once the first listing is
// judged, through p.call, with the upstream's bytes where it relays them.
func (p *Proxy) callResult(ctx context.Context, name string, args json.RawMessage) (mcp.Result, error) {
	select {
	case <-p.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	res, raw, err := p.call(ctx, name, args)
	if err != nil {
		return nil, err
	}
	if raw != nil {
		return &rawResult{raw: raw}, nil
	}
	return res, nil
}

// upstreamFailed gives up on an upstream: its tools are withdrawn, its
// process is reaped, and the failure is logged.
func (p *Proxy) upstreamFailed(u *upstream, op string, err error) {
	u.mu.Lock()
	c := u.conn
	first := u.err == nil
	u.conn = nil
	if u.err == nil {
		u.err = err
	}
	u.mu.Unlock()
	if c != nil {
		_ = c.Close()
	}
	if !first {
		return
	}
	p.opts.Audit.Log(Record{Decision: DecisionUpstreamFailed, Server: u.name, Rule: "fail_closed", Reason: op, Evidence: err.Error()})
	if p.opts.Log != nil {
		fmt.Fprintf(p.opts.Log, "mcpsec proxy: upstream %s failed (%s): %v; its tools are withdrawn\n", u.name, op, err)
	}
}

// fatal reports whether an upstream error means the connection can no
// longer be trusted (as opposed to one slow or rejected request).
func fatal(err error) bool {
	return errors.Is(err, mcpconn.ErrServerExited) || errors.Is(err, mcpconn.ErrProtocol) || errors.Is(err, mcpconn.ErrMessageTooLarge)
}

// refresh lists every live upstream, judges the listing through the tool
// transforms and installs the result.
func (p *Proxy) refresh(ctx context.Context) error { return p.refreshOnly(ctx, nil) }

// refreshOnly re-lists one upstream (nil: all) and judges the whole
// listing, reusing the others' last listings.
func (p *Proxy) refreshOnly(ctx context.Context, only *upstream) error {
	p.refreshMu.Lock()
	defer p.refreshMu.Unlock()
	var all []agent.Tool
	raws := map[string]json.RawMessage{}
	var failures []string
	live := 0
	var namer agent.Namer
	for _, u := range p.ups {
		c, err := u.get()
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", u.name, err))
			continue
		}
		if only != nil && u != only && u.ok {
			live++
			for i, t := range u.tools {
				name, _ := namer.Name(u.name, t.Name)
				raws[u.name+"\x00"+t.Name] = u.raw[i]
				all = append(all, agent.Tool{Server: u.name, ModelName: name, Def: t})
			}
			continue
		}
		u.ok = false
		tools, doc, err := c.ListTools(ctx)
		if err != nil {
			// Fail closed: this upstream contributes nothing to this
			// listing; a broken connection is given up for good.
			if fatal(err) {
				p.upstreamFailed(u, "tools/list", err)
			} else {
				p.opts.Audit.Log(Record{Decision: DecisionUpstreamFailed, Server: u.name, Rule: "fail_closed", Reason: "tools/list", Evidence: err.Error()})
			}
			failures = append(failures, fmt.Sprintf("%s: %v", u.name, err))
			continue
		}
		live++
		var page struct {
			Tools []json.RawMessage `json:"tools"`
		}
		_ = json.Unmarshal(doc, &page)
		if len(page.Tools) != len(tools) {
			page.Tools = make([]json.RawMessage, len(tools))
		}
		u.tools, u.raw, u.ok = tools, page.Tools, true
		p.listMeta(ctx, u)
		for i, t := range tools {
			// Named as the benchmark's loop names them: the first server
			// to list a name keeps it, a later one's is server__tool.
			name, _ := namer.Name(u.name, t.Name)
			raws[u.name+"\x00"+t.Name] = page.Tools[i]
			all = append(all, agent.Tool{Server: u.name, ModelName: name, Def: t})
		}
	}
	if live == 0 {
		p.install(nil, nil, nil, nil)
		p.mu.Lock()
		p.installMeta(ctx)
		p.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrNoUpstream, strings.Join(failures, "; "))
	}
	offered, notes := agent.ApplyTools(p.opts.Seams.Tools, all)
	p.install(all, offered, raws, notes)
	p.mu.Lock()
	p.installMeta(ctx)
	p.mu.Unlock()
	p.logNotes(notes, "", nil)
	return nil
}

// install makes offered the client's tool list, logging one verdict per
// definition, and touching the SDK's registry only where something
// changed (each touch makes the SDK announce list_changed).
func (p *Proxy) install(all, offered []agent.Tool, raws map[string]json.RawMessage, notes []agent.Note) {
	p.mu.Lock()
	defer p.mu.Unlock()
	byUp := map[string]*upstream{}
	for _, u := range p.ups {
		byUp[u.name] = u
	}
	next := map[string]*served{}
	kept := map[string]bool{}
	for _, t := range offered {
		raw := raws[t.Server+"\x00"+t.Def.Name]
		mt, wire, err := clientTool(t, raw)
		key := string(wire)
		fp := catalog.Fingerprint(t.Def)
		if err == nil && next[t.ModelName] != nil {
			err = fmt.Errorf("the name %q is listed twice", t.ModelName)
		}
		if err != nil {
			p.verdict(DecisionToolWithheld, t, fp, "invalid_definition", err.Error())
			continue
		}
		s := &served{tool: t, up: byUp[t.Server], key: key, wire: wire}
		next[t.ModelName] = s
		kept[t.Server+"\x00"+t.Def.Name] = true
		if old := p.served[t.ModelName]; old != nil && old.key == key {
			continue
		}
		if !addTool(p.server, mt, p.handle) {
			delete(next, t.ModelName)
			kept[t.Server+"\x00"+t.Def.Name] = false
			p.verdict(DecisionToolWithheld, t, fp, "invalid_definition", "the MCP SDK rejects this definition")
			continue
		}
		decision := DecisionToolPassed
		if fp != rawFingerprint(raw) {
			decision = DecisionToolRedacted
		}
		p.verdict(decision, t, fp, "", "")
	}
	withheld := map[string]string{}
	for _, t := range all {
		if !kept[t.Server+"\x00"+t.Def.Name] {
			fp := catalog.Fingerprint(t.Def)
			rule, ev := why(t, notes)
			if rule == "" {
				// Judged before: keep the reason the log already has.
				rule, ev = p.lastWhy(t, fp)
			}
			p.verdict(DecisionToolWithheld, t, fp, rule, ev)
			if next[t.ModelName] == nil {
				withheld[t.ModelName] = fmt.Sprintf("the tool %s of server %s is withheld (%s)", t.Def.Name, t.Server, strings.Trim(rule+": "+ev, ": "))
			}
		}
	}
	p.withheld = withheld
	var gone []string
	for name := range p.served {
		if next[name] == nil {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		p.server.RemoveTools(gone...)
	}
	if p.listed && (len(gone) > 0 || changed(p.served, next)) {
		p.opts.Audit.Log(Record{Decision: DecisionListChanged, Evidence: fmt.Sprintf("%d tool(s) offered", len(next))})
	}
	p.served = next
	p.listed = true
}

// why finds the note of the transform that withheld a tool. Notes name
// the tool by its own name or the client's; pinning's details start with
// server/tool, which tells same-named tools of two servers apart.
func why(t agent.Tool, notes []agent.Note) (string, string) {
	for _, n := range notes {
		if n.Kind == defense.NotePinned || n.Kind == NoteScanFinding || n.Kind == NoteScanRedact {
			continue
		}
		if n.Tool != t.Def.Name && n.Tool != t.ModelName {
			continue
		}
		if strings.HasPrefix(n.Detail, t.Server+"/") || !strings.Contains(n.Detail, "/"+t.Def.Name+" ") {
			return n.Kind, n.Rule + ": " + n.Detail
		}
	}
	return "", ""
}

func changed(a, b map[string]*served) bool {
	if len(a) != len(b) {
		return true
	}
	for n, s := range b {
		if o := a[n]; o == nil || o.key != s.key {
			return true
		}
	}
	return false
}

// lastWhy is the rule and evidence a definition was first withheld for.
func (p *Proxy) lastWhy(t agent.Tool, fp string) (string, string) {
	w := p.reasons[t.Server+"\x00"+t.ModelName+"\x00"+fp]
	return w[0], w[1]
}

// verdict logs a tool decision once per definition and outcome.
func (p *Proxy) verdict(decision string, t agent.Tool, fp, rule, evidence string) {
	k := decision + "\x00" + t.Server + "\x00" + t.ModelName + "\x00" + fp
	if decision == DecisionToolWithheld && rule != "" {
		if p.reasons == nil {
			p.reasons = map[string][2]string{}
		}
		p.reasons[t.Server+"\x00"+t.ModelName+"\x00"+fp] = [2]string{rule, evidence}
	}
	if p.logged[k] {
		return
	}
	p.logged[k] = true
	p.opts.Audit.Log(Record{Decision: decision, Server: t.Server, Tool: t.Def.Name, ClientName: t.ModelName, Fingerprint: fp, Rule: rule, Evidence: evidence})
}

func rawFingerprint(raw json.RawMessage) string {
	t, err := catalog.FromAny(raw)
	if err != nil {
		return ""
	}
	return catalog.Fingerprint(t)
}

// judgedFields are the members of a tool definition the transforms judge
// (and may rewrite); every other member is relayed as the server sent it.
var judgedFields = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}

// clientTool builds the definition the client is given: the upstream's
// own JSON object for the tool, byte for byte (execution, _meta, icons
// and members no SDK knows included), with only what the proxy changed
// replaced: the name in a gateway, the judged members of a tool a
// transform rewrote (redaction). It returns the SDK's view of it (for
// the registry that routes calls and announces changes) and the wire
// bytes tools/list serves.
func clientTool(t agent.Tool, raw json.RawMessage) (*mcp.Tool, json.RawMessage, error) {
	def, err := json.Marshal(t.Def)
	if err != nil {
		return nil, nil, err
	}
	if raw == nil {
		raw = def
	}
	fs, err := objectFields(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("definition: %w", err)
	}
	if catalog.Fingerprint(t.Def) != rawFingerprint(raw) {
		judged, err := objectFields(def)
		if err != nil {
			return nil, nil, fmt.Errorf("definition: %w", err)
		}
		for _, k := range judgedFields {
			fs = setField(fs, k, getField(judged, k))
		}
	}
	var upName string
	if err := json.Unmarshal(getField(fs, "name"), &upName); err != nil || upName != t.ModelName {
		n, _ := json.Marshal(t.ModelName)
		fs = setField(fs, "name", n)
	}
	wire := raw
	if len(fs) == 0 || !sameFields(raw, fs) {
		if wire, err = joinFields(fs); err != nil {
			return nil, nil, err
		}
	}
	var parts struct {
		Title        string               `json:"title"`
		Description  string               `json:"description"`
		InputSchema  json.RawMessage      `json:"inputSchema"`
		OutputSchema json.RawMessage      `json:"outputSchema"`
		Annotations  *mcp.ToolAnnotations `json:"annotations"`
	}
	if err := json.Unmarshal(wire, &parts); err != nil {
		return nil, nil, fmt.Errorf("definition: %w", err)
	}
	if len(parts.InputSchema) == 0 || string(parts.InputSchema) == "null" {
		return nil, nil, errors.New("definition has no inputSchema")
	}
	if t.Def.InputSchema["type"] != "object" {
		return nil, nil, errors.New(`inputSchema is not of type "object"`)
	}
	mt := &mcp.Tool{Name: t.ModelName, Title: parts.Title, Description: parts.Description, Annotations: parts.Annotations,
		InputSchema: parts.InputSchema}
	if len(parts.OutputSchema) > 0 && string(parts.OutputSchema) != "null" {
		mt.OutputSchema = parts.OutputSchema
	}
	return mt, wire, nil
}

// sameFields reports whether fs is still exactly the object raw holds.
func sameFields(raw json.RawMessage, fs []field) bool {
	orig, err := objectFields(raw)
	if err != nil || len(orig) != len(fs) {
		return false
	}
	for i := range orig {
		if orig[i].key != fs[i].key || !bytes.Equal(orig[i].val, fs[i].val) {
			return false
		}
	}
	return true
}

// listResult is the client's tools/list answer: every offered tool's
// wire bytes, in name order, on one page.
func (p *Proxy) listResult() *rawResult {
	p.mu.Lock()
	defer p.mu.Unlock()
	names := slices.Sorted(maps.Keys(p.served))
	b := []byte(`{"tools":[`)
	for i, n := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, p.served[n].wire...)
	}
	return &rawResult{raw: append(b, "]}"...)}
}

// addTool registers a tool, turning the SDK's panic on a definition it
// refuses into false.
func addTool(s *mcp.Server, t *mcp.Tool, h mcp.ToolHandler) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	s.AddTool(t, h)
	return true
}

func (p *Proxy) logNotes(notes []agent.Note, callID string, args json.RawMessage) {
	for _, n := range notes {
		if n.Kind == defense.NotePinned {
			continue // every passed tool is already in the log
		}
		if callID == "" {
			// Listing notes repeat with every listing (a filter notes each
			// redaction each time): log each once.
			k := "note\x00" + n.Kind + "\x00" + n.Tool + "\x00" + n.Rule + "\x00" + n.Detail
			p.mu.Lock()
			seen := p.logged[k]
			p.logged[k] = true
			p.mu.Unlock()
			if seen {
				continue
			}
		}
		p.opts.Audit.Log(Record{Decision: DecisionNote, Tool: n.Tool, Rule: n.Kind, Reason: n.Rule, Evidence: n.Detail, CallID: callID})
	}
}

// handle is the registry's handler for a tool; calls reach p.call
// through the middleware before the registry, so it only serves a caller
// that bypasses that.
func (p *Proxy) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	res, raw, err := p.call(ctx, req.Params.Name, req.Params.Arguments)
	if err != nil || raw == nil {
		return res, err
	}
	var out mcp.CallToolResult
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// call relays one tools/call after the call policies allow it. The
// result is the upstream's own bytes (raw) unless the proxy answered
// itself or a result transform rewrote it (res).
func (p *Proxy) call(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, json.RawMessage, error) {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	p.mu.Lock()
	s := p.served[name]
	why, held := p.withheld[name]
	p.seq++
	id := "call-" + strconv.Itoa(p.seq)
	p.mu.Unlock()
	if s == nil {
		if held {
			// A client that still calls a tool the proxy withheld (it
			// listed before the tool changed) learns why, instead of
			// reading "unknown tool".
			p.opts.Audit.Log(Record{Decision: DecisionCallDenied, ClientName: name, Rule: "withheld", Evidence: why, CallID: id, Arguments: args})
			return blocked("withheld", why), nil, nil
		}
		p.opts.Audit.Log(Record{Decision: DecisionCallDenied, ClientName: name, Rule: "not_offered", CallID: id, Arguments: args})
		return blocked("not_offered", fmt.Sprintf("no tool named %q is offered", name)), nil, nil
	}
	call := agent.Call{ID: id, Server: s.tool.Server, Tool: s.tool.Def.Name, ModelName: name, Arguments: args}
	rec := Record{Server: call.Server, Tool: call.Tool, ClientName: name, CallID: id, Arguments: args}

	// The history is what taint and flow policies read; without a call
	// policy nothing reads it, and keeping it would only grow.
	track := len(p.opts.Seams.Policy) > 0
	d, notes := agent.Allow, []agent.Note(nil)
	if track {
		p.mu.Lock()
		d, notes = agent.Decide(p.opts.Seams.Policy, call, p.history)
		if !d.Allow {
			p.history.Calls = append(p.history.Calls, agent.CallRecord{Call: call, Blocked: true})
		}
		p.mu.Unlock()
	}
	p.logNotes(notes, id, nil)
	if !d.Allow {
		rec.Decision, rec.Rule, rec.Reason, rec.Evidence = DecisionCallDenied, d.Rule, d.Reason, evidenceOf(notes)
		p.opts.Audit.Log(rec)
		why := d.Reason
		if ev := evidenceOf(notes); ev != "" {
			why += ": " + ev
		}
		return blocked(d.Rule, why), nil, nil
	}
	c, err := s.up.get()
	if err != nil {
		rec.Decision, rec.Rule, rec.Evidence = DecisionCallFailed, "fail_closed", err.Error()
		p.opts.Audit.Log(rec)
		return failed(fmt.Sprintf("upstream server %s is unavailable: %v", call.Server, err)), nil, nil
	}
	rec.Decision, rec.Rule, rec.Reason = DecisionCallAllowed, d.Rule, d.Reason
	// The allow record is synced while the call travels; the client gets
	// no result before the record is durable.
	ticket := p.opts.Audit.Append(rec)
	res, err := c.CallTool(ctx, call.Tool, args)
	p.opts.Audit.Wait(ticket)
	if err != nil {
		if errors.Is(err, mcpconn.ErrToolError) {
			return nil, nil, err
		}
		if fatal(err) {
			p.upstreamFailed(s.up, "tools/call "+call.Tool, err)
			// The client must not keep offering the dead server's tools.
			_ = p.refresh(context.WithoutCancel(ctx))
		}
		p.opts.Audit.Log(Record{Decision: DecisionCallFailed, Server: call.Server, Tool: call.Tool, ClientName: name, CallID: id, Rule: "fail_closed", Evidence: err.Error()})
		return failed(fmt.Sprintf("upstream server %s failed on %s: %v", call.Server, call.Tool, err)), nil, nil
	}
	raw := agent.Result{Text: res.Text, IsError: res.IsError}
	if track {
		p.mu.Lock()
		p.history.Calls = append(p.history.Calls, agent.CallRecord{Call: call, Raw: raw})
		p.mu.Unlock()
	}
	if len(p.opts.Seams.Results) == 0 {
		return nil, res.Raw, nil
	}
	shown, rnotes := agent.ApplyResults(p.opts.Seams.Results, call, raw)
	p.logNotes(rnotes, id, nil)
	if shown == raw {
		return nil, res.Raw, nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: shown.Text}}, IsError: shown.IsError}, nil, nil
}

func evidenceOf(notes []agent.Note) string {
	var parts []string
	for _, n := range notes {
		if n.Detail != "" {
			parts = append(parts, n.Detail)
		}
	}
	return strings.Join(parts, "; ")
}

// blocked is the result a denied call gets: an error the model reads,
// saying who blocked it and why.
func blocked(rule, why string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
		Text: fmt.Sprintf("%s (rule %s): %s. The call did not reach the server; the mcpsec audit log has the details.", BlockedPrefix, rule, why)}}}
}

func failed(why string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "mcpsec proxy: " + why}}}
}
