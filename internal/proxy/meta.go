package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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

// installMeta judges every live upstream's prompts and resources with the
// scanner and offers those with no finding at or above ScanMeta. Prompts
// are named as tools are (first server keeps the name); a resource is
// known by its URI, and a URI a second server also lists is withheld.
// Resource templates are not relayed.
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
	var addPs []addP
	var addRs []addR
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
			if r.URI == "" || strings.Contains(r.URI, "{") {
				continue // a template: not relayed
			}
			key := fmt.Sprintf("%s\x00%s", u.name, keyOf(r))
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
	var goneP, goneR []string
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
	p.prompts, p.resources = nextP, nextR
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
