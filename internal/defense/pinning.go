package defense

import (
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
)

// Pinner trusts each tool definition the first time it is seen and then
// holds every server to it: a changed definition (drift) is withheld from
// the model, a name already pinned from another server (shadowing) is
// withheld, and so is a known definition reappearing under a new name.
// One Pinner belongs to one trial. It is safe for concurrent use.
type Pinner struct {
	mu     sync.Mutex
	pins   map[string]string // server/name -> fingerprint
	owner  map[string]string // tool name -> server that pinned it
	bodies map[string]string // body fingerprint -> "server/name"
	noted  map[string]bool   // drop notes already emitted
	first  []agent.Tool
	listed bool
}

// NewPinner returns a Pinner with nothing pinned.
func NewPinner() *Pinner {
	return &Pinner{pins: map[string]string{}, owner: map[string]string{}, bodies: map[string]string{}, noted: map[string]bool{}}
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
		p.pins[k] = fp
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
