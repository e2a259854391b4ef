package proxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/defense"
	"github.com/mcpsec/mcpsec/internal/scan"
)

// StateVersion is the schema version of the pin state file.
const StateVersion = 1

// ErrNotPending marks an approval for a tool nothing withheld.
var ErrNotPending = errors.New("no withheld definition matches")

// State is the pin state file: the trusted definitions and the ones
// withheld until the user approves them.
type State struct {
	Version int           `json:"version"`
	Pins    []defense.Pin `json:"pins"`
	Pending []Pending     `json:"pending"`
}

// Pending is a definition pinning withheld, with why and what it is.
type Pending struct {
	defense.Pin
	ClientName string       `json:"client_name"`
	Reason     string       `json:"reason"`
	Detail     string       `json:"detail,omitempty"`
	Definition catalog.Tool `json:"definition"`
}

// PinStore is pinning for the proxy: the benchmark's Pinner (the same
// code the pinning arm runs), seeded from a lockfile or a state file,
// with every trusted and withheld definition written back to the state
// file so that `mcpsec proxy approve` can release one while the proxy
// runs. The state file is re-read at every listing, under its lock.
type PinStore struct {
	mu      sync.Mutex
	path    string
	pinner  *defense.Pinner
	pending map[string]Pending
}

// NewPinStore opens pinning. path is the state file ("" keeps pins in
// memory for the life of the process). lockPins, when non-nil, are the
// lockfile's definitions: pinning is then strict, and a tool the lockfile
// does not hold is withheld until approved.
func NewPinStore(path string, lockPins []defense.Pin) (*PinStore, error) {
	ps := &PinStore{path: path, pending: map[string]Pending{}}
	var st State
	if path != "" {
		var err error
		st, err = ReadState(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	pins := append(append([]defense.Pin(nil), lockPins...), st.Pins...)
	ps.pinner = defense.NewPinnerFrom(pins, lockPins != nil)
	for _, p := range st.Pending {
		ps.pending[pinKey(p.Server, p.Tool)] = p
	}
	return ps, nil
}

// LockPins turns a lockfile into pins. rename maps a lockfile server name
// to the proxy's (nil: unchanged).
func LockPins(lf *scan.Lockfile, rename func(string) string) []defense.Pin {
	pins := []defense.Pin{}
	for _, s := range lf.Servers {
		name := s.Name
		if rename != nil {
			name = rename(name)
		}
		for _, t := range s.Tools {
			pins = append(pins, defense.Pin{Server: name, Tool: t.Name, SHA256: t.SHA256, BodySHA256: t.BodySHA256})
		}
	}
	return pins
}

func pinKey(server, tool string) string { return server + "\x00" + tool }

// Transform is the pinning ToolTransform. With a state file it is one
// read-modify-write of that file under its lock, so an approval another
// process writes meanwhile is read here before anything is written back,
// never overwritten.
func (ps *PinStore) Transform(tools []agent.Tool) ([]agent.Tool, []agent.Note) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var notes []agent.Note
	if ps.path != "" {
		unlock, err := lockState(ps.path)
		if err != nil {
			// Without the lock an approval could be lost: approve nothing
			// new and write nothing, but keep judging with what we hold.
			notes = append(notes, agent.Note{Seam: seamTools, Kind: "state_unlockable", Rule: "pinning", Detail: err.Error()})
			out, pn := ps.pinner.Transform(tools)
			return out, append(notes, pn...)
		}
		defer unlock()
	}
	if err := ps.reload(); err != nil {
		// An unreadable state file approves nothing: keep what we hold.
		notes = append(notes, agent.Note{Seam: seamTools, Kind: "state_unreadable", Rule: "pinning", Detail: err.Error()})
	}
	before := ps.pinner.Pins()
	out, pn := ps.pinner.Transform(tools)
	notes = append(notes, pn...)
	passed := map[string]bool{}
	for _, t := range out {
		passed[pinKey(t.Server, t.Def.Name)] = true
	}
	changed := false
	for _, t := range tools {
		k := pinKey(t.Server, t.Def.Name)
		if passed[k] {
			if _, ok := ps.pending[k]; ok {
				delete(ps.pending, k)
				changed = true
			}
			continue
		}
		fp := catalog.Fingerprint(t.Def)
		if old, ok := ps.pending[k]; ok && old.SHA256 == fp {
			continue
		}
		p := Pending{Pin: defense.Pin{Server: t.Server, Tool: t.Def.Name, SHA256: fp, BodySHA256: catalog.BodyFingerprint(t.Def)},
			ClientName: t.ModelName, Definition: t.Def}
		for _, n := range pn {
			if n.Tool == t.Def.Name && strings.HasPrefix(n.Detail, t.Server+"/"+t.Def.Name+" ") {
				p.Reason, p.Detail = n.Kind, n.Detail
			}
		}
		ps.pending[k] = p
		changed = true
	}
	if !changed && !equalPins(before, ps.pinner.Pins()) {
		changed = true
	}
	if changed && ps.path != "" {
		if err := ps.save(); err != nil {
			notes = append(notes, agent.Note{Seam: seamTools, Kind: "state_unwritable", Rule: "pinning", Detail: err.Error()})
		}
	}
	return out, notes
}

func equalPins(a, b []defense.Pin) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// reload applies pins another process (proxy approve) wrote since we
// last read or wrote the file. It reads the file every time: a stamp
// (size, mtime) can miss a rewrite within the file system's timestamp
// granularity, and the file is small.
func (ps *PinStore) reload() error {
	if ps.path == "" {
		return nil
	}
	st, err := ReadState(ps.path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	held := map[string]string{}
	for _, p := range ps.pinner.Pins() {
		held[pinKey(p.Server, p.Tool)] = p.SHA256
	}
	for _, p := range st.Pins {
		if held[pinKey(p.Server, p.Tool)] != p.SHA256 {
			ps.pinner.Approve(p)
		}
	}
	ps.pending = map[string]Pending{}
	for _, p := range st.Pending {
		ps.pending[pinKey(p.Server, p.Tool)] = p
	}
	return nil
}

func (ps *PinStore) state() State {
	st := State{Version: StateVersion, Pins: ps.pinner.Pins(), Pending: []Pending{}}
	for _, p := range ps.pending {
		st.Pending = append(st.Pending, p)
	}
	sortPending(st.Pending)
	return st
}

func sortPending(ps []Pending) {
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].Server != ps[j].Server {
			return ps[i].Server < ps[j].Server
		}
		return ps[i].Tool < ps[j].Tool
	})
}

func (ps *PinStore) save() error {
	return WriteState(ps.path, ps.state())
}

// ReadState reads a pin state file.
func ReadState(path string) (State, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return State{}, fmt.Errorf("pin state: %w", err)
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return State{}, &catalog.InputError{File: path, Msg: "pin state: " + err.Error()}
	}
	if st.Version != StateVersion {
		return State{}, &catalog.InputError{File: path, Msg: fmt.Sprintf("pin state version %d, want %d", st.Version, StateVersion)}
	}
	return st, nil
}

// WriteState replaces the state file atomically (a reader never sees
// half a file, and a crash leaves the old one).
func WriteState(path string, st State) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mcpsec-pins-*")
	if err != nil {
		return fmt.Errorf("pin state: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("pin state: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("pin state: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("pin state: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("pin state: %w", err)
	}
	return nil
}

// lockState takes the exclusive lock of a state file (an flock on
// PATH.lock beside it, which is never removed: removing it would let two
// processes lock two different files) and returns its release. Every
// writer of the state file holds it across its read, change and write.
func lockState(path string) (func(), error) {
	f, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("pin state lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("pin state lock %s: %w", f.Name(), err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// Approve trusts the withheld definitions of the state file that match
// name (the tool's own name, the client's name, or server/tool) and
// returns them. The running proxy picks them up at its next listing.
func Approve(path, name string) ([]Pending, error) {
	unlock, err := lockState(path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	st, err := ReadState(path)
	if err != nil {
		return nil, err
	}
	var hit, rest []Pending
	for _, p := range st.Pending {
		if p.Tool == name || p.ClientName == name || p.Server+"/"+p.Tool == name {
			hit = append(hit, p)
		} else {
			rest = append(rest, p)
		}
	}
	if len(hit) == 0 {
		names := make([]string, 0, len(st.Pending))
		for _, p := range st.Pending {
			names = append(names, p.ClientName)
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("%w %q in %s: nothing is withheld", ErrNotPending, name, path)
		}
		return nil, fmt.Errorf("%w %q in %s; withheld: %s", ErrNotPending, name, path, strings.Join(names, ", "))
	}
	for _, h := range hit {
		replaced := false
		for i, p := range st.Pins {
			if p.Server == h.Server && p.Tool == h.Tool {
				st.Pins[i] = h.Pin
				replaced = true
			}
		}
		if !replaced {
			st.Pins = append(st.Pins, h.Pin)
		}
	}
	st.Pending = rest
	if st.Pending == nil {
		st.Pending = []Pending{}
	}
	return hit, WriteState(path, st)
}
