package defense

import (
	"sort"
	"sync"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/catalog"
)

// Seam names used in notes (the filters use the same words).
const (
	SeamTools   = "tool"
	SeamResults = "result"
	SeamPolicy  = "policy"
)

// Pinning note kinds.
const (
	NotePinned  = "pinned"
	NoteDrift   = "pin_drift"
	NoteShadow  = "pin_shadow"
	NoteRenamed = "pin_renamed"
	NoteAdded   = "pin_added"
)

// Pinner trusts each tool definition the first time it is seen and then
// holds every server to it: a changed definition (drift) is withheld from
// the model, a name already pinned from another server (shadowing) is
// withheld, and so is a known definition reappearing under a new name.
// One Pinner belongs to one trial. It is safe for concurrent use.
type Pinner struct {
	mu     sync.Mutex
	pins   map[string]string    // server/name -> fingerprint
	owner  map[string]string    // tool name -> server that pinned it
	bodies map[string]string    // body fingerprint -> "server/name"
	noted  map[string]bool      // drop notes already emitted
	names  map[string][2]string // server/name -> {server, name}
	first  []agent.Tool
	listed bool
	// strict withholds a tool no pin covers instead of trusting it on
	// first use (pinning against a lockfile).
	strict bool
}

// Pin is one trusted definition, as a lockfile or a state file keeps it.
type Pin struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	// SHA256 is catalog.Fingerprint of the definition.
	SHA256 string `json:"sha256"`
	// BodySHA256 is catalog.BodyFingerprint (renames are recognised by it).
	BodySHA256 string `json:"body_sha256,omitempty"`
}

// NewPinnerFrom returns a Pinner that already trusts pins. With strict,
// a tool no pin covers is withheld (NoteAdded) until Approve pins it;
// otherwise it is trusted on first use.
func NewPinnerFrom(pins []Pin, strict bool) *Pinner {
	p := NewPinner()
	p.strict = strict
	for _, pin := range pins {
		p.approve(pin)
	}
	if len(pins) > 0 {
		p.listed = true
	}
	return p
}

// Approve trusts one definition, replacing any earlier pin of the same
// server and tool: the user's answer to a withheld drift, shadow, rename
// or addition.
func (p *Pinner) Approve(pin Pin) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.approve(pin)
}

func (p *Pinner) approve(pin Pin) {
	k := pin.Server + "/" + pin.Tool
	p.pins[k] = pin.SHA256
	p.names[k] = [2]string{pin.Server, pin.Tool}
	if _, ok := p.owner[pin.Tool]; !ok {
		p.owner[pin.Tool] = pin.Server
	}
	if pin.BodySHA256 != "" {
		if _, ok := p.bodies[pin.BodySHA256]; !ok {
			p.bodies[pin.BodySHA256] = k
		}
	}
}

// Pins returns every trusted definition, sorted by server and tool.
func (p *Pinner) Pins() []Pin {
	p.mu.Lock()
	defer p.mu.Unlock()
	bodyOf := map[string]string{}
	for b, k := range p.bodies {
		bodyOf[k] = b
	}
	out := make([]Pin, 0, len(p.pins))
	for k, fp := range p.pins {
		n := p.names[k]
		out = append(out, Pin{Server: n[0], Tool: n[1], SHA256: fp, BodySHA256: bodyOf[k]})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Server != out[j].Server {
			return out[i].Server < out[j].Server
		}
		return out[i].Tool < out[j].Tool
	})
	return out
}

// NewPinner returns a Pinner with nothing pinned.
func NewPinner() *Pinner {
	return &Pinner{pins: map[string]string{}, owner: map[string]string{}, bodies: map[string]string{}, noted: map[string]bool{}, names: map[string][2]string{}}
}

// Transform is the pinning ToolTransform. It receives every server's
// tools on every listing.
func (p *Pinner) Transform(tools []agent.Tool) ([]agent.Tool, []agent.Note) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]agent.Tool, 0, len(tools))
	var notes []agent.Note
	drop := func(t agent.Tool, kind, detail string) {
		key := kind + "\x00" + t.Server + "\x00" + catalog.Fingerprint(t.Def)
		if p.noted[key] {
			return
		}
		p.noted[key] = true
		notes = append(notes, agent.Note{Seam: SeamTools, Kind: kind, Tool: t.Def.Name, Rule: "pinning", Detail: detail})
	}
	for _, t := range tools {
		k := t.Server + "/" + t.Def.Name
		fp := catalog.Fingerprint(t.Def)
		if pinned, ok := p.pins[k]; ok {
			if pinned == fp {
				out = append(out, t)
			} else {
				drop(t, NoteDrift, k+" changed from "+pinned+" to "+fp)
			}
			continue
		}
		if srv, ok := p.owner[t.Def.Name]; ok && srv != t.Server {
			drop(t, NoteShadow, k+" reuses the name pinned from server "+srv)
			continue
		}
		body := catalog.BodyFingerprint(t.Def)
		if orig, ok := p.bodies[body]; ok && substantial(t.Def) {
			drop(t, NoteRenamed, k+" is a renamed copy of "+orig)
			continue
		}
		if p.strict {
			drop(t, NoteAdded, k+" is not in the lockfile")
			continue
		}
		p.pins[k] = fp
		p.names[k] = [2]string{t.Server, t.Def.Name}
		p.owner[t.Def.Name] = t.Server
		if _, ok := p.bodies[body]; !ok {
			p.bodies[body] = k
		}
		if !p.listed {
			p.first = append(p.first, t)
		}
		notes = append(notes, agent.Note{Seam: SeamTools, Kind: NotePinned, Tool: t.Def.Name, Rule: "pinning", Detail: k + " " + fp})
		out = append(out, t)
	}
	p.listed = true
	return out, notes
}

// FirstListing returns the tools pinned at the first listing: the host's
// trusted view.
func (p *Pinner) FirstListing() []agent.Tool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]agent.Tool(nil), p.first...)
}

// substantial reports whether a definition says enough that two tools
// sharing it cannot be a coincidence: a description or declared
// properties. Two bare tools with empty schemas share a body trivially.
func substantial(t catalog.Tool) bool {
	if t.Description != "" || t.Title != "" {
		return true
	}
	props, _ := t.InputSchema["properties"].(map[string]any)
	return len(props) > 0
}
