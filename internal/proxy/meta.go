package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/scan"
)

// Audit decisions for prompts and resources.
const (
	DecisionPromptPassed     = "prompt_passed"
	DecisionPromptWithheld   = "prompt_withheld"
	DecisionResourcePassed   = "resource_passed"
	DecisionResourceWithheld = "resource_withheld"
	DecisionTemplatePassed   = "resource_template_passed"
	DecisionTemplateWithheld = "resource_template_withheld"
)

// servedPrompt and servedResource remember what the client was given.
type servedPrompt struct {
	up   *upstream
	name string // the server's own name
	key  string
}

type servedResource struct {
	up  *upstream
	key string
}

type servedTemplate struct {
	up  *upstream
	key string
	re  *regexp.Regexp // matches the URIs the template expands to
}

// subKey is one subscription the proxy holds at an upstream.
type subKey struct {
	up  *upstream
	uri string
}

// listMeta lists an upstream's prompts and resources. A failure leaves
// it with none (fail closed) and is logged.
func (p *Proxy) listMeta(ctx context.Context, u *upstream) {
	u.prompts, u.resources = nil, nil
	if p.opts.ScanMeta == nil {
		return
	}
	c, err := u.get()
	if err != nil {
		return
	}
	prompts, err := c.ListPrompts(ctx)
	if err != nil {
		p.opts.Audit.Log(Record{Decision: DecisionUpstreamFailed, Server: u.name, Rule: "fail_closed", Reason: "prompts/list", Evidence: err.Error()})
		prompts = nil
	}
	resources, err := c.ListResources(ctx)
	if err != nil {
		p.opts.Audit.Log(Record{Decision: DecisionUpstreamFailed, Server: u.name, Rule: "fail_closed", Reason: "resources/list", Evidence: err.Error()})
		resources = nil
	}
	u.prompts, u.resources = prompts, resources
}

// installMeta judges every live upstream's prompts, resources and
// resource templates with the scanner and offers those with no finding at
// or above ScanMeta. Prompts are named as tools are (first server keeps
// the name); a resource is known by its URI and a template by its URI
// template, and one a second server also lists is withheld. A resource
// whose URI holds "{" is a template (mcpconn lists both in one list; a
// URI proper cannot hold a brace).
func (p *Proxy) installMeta(ctx context.Context) {
	if p.opts.ScanMeta == nil {
		return
	}
	blockAt := *p.opts.ScanMeta
	var namer agent.Namer
	nextP := map[string]*servedPrompt{}
	nextR := map[string]*servedResource{}
	type addP struct {
		def *mcp.Prompt
		sp  *servedPrompt
	}
	type addR struct {
		def *mcp.Resource
		sr  *servedResource
	}
	type addT struct {
		def *mcp.ResourceTemplate
		st  *servedTemplate
	}
	var addPs []addP
	var addRs []addR
	var addTs []addT
	nextT := map[string]*servedTemplate{}
	for _, u := range p.ups {
		if _, err := u.get(); err != nil || !u.ok {
			continue
		}
		rep := scan.Scan(&catalog.Catalog{Servers: []catalog.Server{{Name: u.name, Tools: []catalog.Tool{}, Prompts: u.prompts, Resources: u.resources}}}, scan.Options{})
		blocked := func(kind, name string) (string, string, bool) {
			for _, f := range rep.All() {
				if f.Severity >= blockAt && (f.Location == kind+"/"+name || strings.HasPrefix(f.Location, kind+"/"+name+"/")) {
					return f.RuleID, f.Severity.String() + " at " + f.Location + ": " + f.Evidence, true
				}
			}
			return "", "", false
		}
		for _, pr := range u.prompts {
			name, _ := namer.Name(u.name, pr.Name)
			key := fmt.Sprintf("%s\x00%s\x00%s", u.name, name, keyOf(pr))
			if rule, ev, bad := blocked("prompts", pr.Name); bad {
				p.metaVerdict(DecisionPromptWithheld, u.name, pr.Name, key, rule, ev)
				continue
			}
			sp := &servedPrompt{up: u, name: pr.Name, key: key}
			nextP[name] = sp
			if old := p.prompts[name]; old != nil && old.key == key {
				continue
			}
			def := &mcp.Prompt{Name: name, Title: pr.Title, Description: pr.Description}
			for _, a := range pr.Arguments {
				def.Arguments = append(def.Arguments, &mcp.PromptArgument{Name: a.Name, Description: a.Description})
			}
			addPs = append(addPs, addP{def, sp})
			p.metaVerdict(DecisionPromptPassed, u.name, pr.Name, key, "", "")
		}
		for _, r := range u.resources {
			if r.URI == "" {
				continue
			}
			key := fmt.Sprintf("%s\x00%s", u.name, keyOf(r))
			if strings.Contains(r.URI, "{") {
				if rule, ev, bad := blocked("resources", r.Name); bad {
					p.metaVerdict(DecisionTemplateWithheld, u.name, r.URI, key, rule, ev)
					continue
				}
				if nextT[r.URI] != nil {
					p.metaVerdict(DecisionTemplateWithheld, u.name, r.URI, key, "duplicate_uri", "another server already offers this URI template")
					continue
				}
				tmpl, err := uritemplate.New(r.URI)
				if err != nil {
					p.metaVerdict(DecisionTemplateWithheld, u.name, r.URI, key, "invalid_definition", "URI template: "+err.Error())
					continue
				}
				st := &servedTemplate{up: u, key: key, re: tmpl.Regexp()}
				nextT[r.URI] = st
				if old := p.templates[r.URI]; old != nil && old.key == key {
					continue
				}
				addTs = append(addTs, addT{&mcp.ResourceTemplate{URITemplate: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType}, st})
				p.metaVerdict(DecisionTemplatePassed, u.name, r.URI, key, "", "")
				continue
			}
			if rule, ev, bad := blocked("resources", r.Name); bad {
				p.metaVerdict(DecisionResourceWithheld, u.name, r.URI, key, rule, ev)
				continue
			}
			if nextR[r.URI] != nil {
				p.metaVerdict(DecisionResourceWithheld, u.name, r.URI, key, "duplicate_uri", "another server already offers this URI")
				continue
			}
			sr := &servedResource{up: u, key: key}
			nextR[r.URI] = sr
			if old := p.resources[r.URI]; old != nil && old.key == key {
				continue
			}
			addRs = append(addRs, addR{&mcp.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType}, sr})
			p.metaVerdict(DecisionResourcePassed, u.name, r.URI, key, "", "")
		}
	}
	var goneP, goneR, goneT []string
	for t, old := range p.templates {
		if s := nextT[t]; s == nil || s.key != old.key {
			goneT = append(goneT, t)
		}
	}
	if len(goneT) > 0 {
		p.server.RemoveResourceTemplates(goneT...)
	}
	for n, old := range p.prompts {
		if s := nextP[n]; s == nil || s.key != old.key {
			goneP = append(goneP, n)
		}
	}
	for uri, old := range p.resources {
		if s := nextR[uri]; s == nil || s.key != old.key {
			goneR = append(goneR, uri)
		}
	}
	if len(goneP) > 0 {
		p.server.RemovePrompts(goneP...)
	}
	if len(goneR) > 0 {
		p.server.RemoveResources(goneR...)
	}
	for _, a := range addPs {
		sp := a.sp
		p.server.AddPrompt(a.def, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			c, err := sp.up.get()
			if err != nil {
				return nil, fmt.Errorf("mcpsec proxy: upstream server %s is unavailable: %w", sp.up.name, err)
			}
			return c.GetPrompt(ctx, sp.name, req.Params.Arguments)
		})
	}
	for _, a := range addRs {
		sr := a.sr
		p.server.AddResource(a.def, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			c, err := sr.up.get()
			if err != nil {
				return nil, fmt.Errorf("mcpsec proxy: upstream server %s is unavailable: %w", sr.up.name, err)
			}
			return c.ReadResource(ctx, req.Params.URI)
		})
	}
	for _, a := range addTs {
		st := a.st
		p.server.AddResourceTemplate(a.def, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			c, err := st.up.get()
			if err != nil {
				return nil, fmt.Errorf("mcpsec proxy: upstream server %s is unavailable: %w", st.up.name, err)
			}
			return c.ReadResource(ctx, req.Params.URI)
		})
	}
	p.prompts, p.resources, p.templates = nextP, nextR, nextT
}

// refreshMeta re-lists one upstream's prompts and resources (it announced
// a change) and installs the judged result; the client hears
// list_changed from the SDK once something offered changes.
func (p *Proxy) refreshMeta(ctx context.Context, u *upstream) {
	if p.opts.ScanMeta == nil {
		return
	}
	p.refreshMu.Lock()
	defer p.refreshMu.Unlock()
	if _, err := u.get(); err != nil || !u.ok {
		return
	}
	p.listMeta(ctx, u)
	p.mu.Lock()
	p.installMeta(ctx)
	p.mu.Unlock()
}

// owner is the upstream that offers uri (a resource, or a template
// matching it), with p.mu held.
func (p *Proxy) owner(uri string) *upstream {
	if sr := p.resources[uri]; sr != nil {
		return sr.up
	}
	var names []string
	for t := range p.templates {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		if st := p.templates[t]; st.re.MatchString(uri) {
			return st.up
		}
	}
	return nil
}

// subscribe forwards a client's resources/subscribe (on) or unsubscribe
// to the upstream offering the URI; the upstream hears one subscription
// however many client sessions hold it. A URI the proxy does not offer
// cannot be subscribed to.
func (p *Proxy) subscribe(ctx context.Context, uri string, on bool) error {
	p.mu.Lock()
	u := p.owner(uri)
	if u == nil {
		p.mu.Unlock()
		if !on {
			return nil
		}
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("mcpsec proxy: no resource %q is offered", uri)}
	}
	if p.subs == nil {
		p.subs = map[subKey]int{}
	}
	k := subKey{u, uri}
	n := p.subs[k]
	switch {
	case on:
		p.subs[k] = n + 1
	case n > 1:
		p.subs[k] = n - 1
	default:
		delete(p.subs, k)
	}
	p.mu.Unlock()
	if (on && n > 0) || (!on && n != 1) {
		return nil
	}
	c, err := u.get()
	if err != nil {
		return fmt.Errorf("mcpsec proxy: upstream server %s is unavailable: %w", u.name, err)
	}
	if !c.CanSubscribe() {
		if on {
			p.mu.Lock()
			delete(p.subs, k)
			p.mu.Unlock()
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("mcpsec proxy: upstream server %s offers no resource subscriptions", u.name)}
		}
		return nil
	}
	if on {
		err = c.Subscribe(ctx, uri)
		if err != nil {
			p.mu.Lock()
			if p.subs[k]--; p.subs[k] <= 0 {
				delete(p.subs, k)
			}
			p.mu.Unlock()
		}
		return err
	}
	return c.Unsubscribe(ctx, uri)
}

// forwardUpdated passes an upstream's resources/updated on to the client
// sessions subscribed to the URI, while the proxy still offers it from
// that upstream; the SDK sends it only to subscribed sessions.
func (p *Proxy) forwardUpdated(ctx context.Context, u *upstream, uris []string) {
	for _, uri := range uris {
		p.mu.Lock()
		ok := p.subs[subKey{u, uri}] > 0 && p.owner(uri) == u
		p.mu.Unlock()
		if ok {
			_ = p.server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
	}
}

func keyOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func (p *Proxy) metaVerdict(decision, server, name, key, rule, evidence string) {
	k := decision + "\x00" + key
	if p.logged[k] {
		return
	}
	p.logged[k] = true
	p.opts.Audit.Log(Record{Decision: decision, Server: server, Tool: name, Rule: rule, Evidence: evidence})
}
