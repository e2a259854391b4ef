package payload

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/mcpsec/mcpsec/internal/task"
)

// The registers are pinned: any edit to a payload text or label, or to
// the adversarial encoders, changes a hash here. That is deliberate, so
// that a register never changes silently under a published result.
func TestRegisterHashes(t *testing.T) {
	pinned := map[string]string{
		RegisterSeen:        "c530cc7f110a77837fa394f08ea2195cf797e2334d9cb34c9b07ef9f670a5164",
		RegisterHeldOut:     "35c7974ab528d45e1a030563ca2d267e195931bc15b0401649b444d4ac87fea5",
		RegisterAdversarial: "803f84cea46cc33c95c9a1808ebec1fc50fe7a16642b4f691094d82aa52f336a",
	}
	for _, reg := range Registers {
		sum := sha256.Sum256(RegisterJSON(reg))
		got := hex.EncodeToString(sum[:])
		if got != pinned[reg] {
			t.Errorf("register %s changed: sha256 = %s, pinned %q.\n"+
				"If the change is intended, record it (results made with the old register are no longer comparable) "+
				"and update the pinned hash in TestRegisterHashes.", reg, got, pinned[reg])
		}
	}
}

type group struct{ class, objective string }

func TestRegisterCounts(t *testing.T) {
	seen := map[group]int{}
	held := map[group]map[string]bool{}
	adv := map[string]map[string]bool{} // technique -> objectives
	advClasses := map[string]bool{}
	langs := map[string]bool{}
	for _, p := range All() {
		g := group{p.Class, p.Objective}
		switch p.Register {
		case RegisterSeen:
			seen[g]++
		case RegisterHeldOut:
			if held[g] == nil {
				held[g] = map[string]bool{}
			}
			if held[g][p.Style] {
				t.Errorf("%s: style %q repeats within %s/%s", p.ID, p.Style, p.Class, p.Objective)
			}
			held[g][p.Style] = true
		case RegisterAdversarial:
			if adv[p.Style] == nil {
				adv[p.Style] = map[string]bool{}
			}
			adv[p.Style][p.Objective] = true
			advClasses[p.Class] = true
			if p.Lang != "" {
				langs[p.Lang] = true
			}
		}
	}
	for _, c := range Classes {
		for _, o := range Objectives {
			g := group{c, o}
			if seen[g] != 1 {
				t.Errorf("seen %s/%s: %d payloads, want exactly 1", c, o, seen[g])
			}
			if len(held[g]) < 5 {
				t.Errorf("held-out %s/%s: %d styles, want at least 5", c, o, len(held[g]))
			}
		}
	}
	if n := len(Filter("", RegisterSeen, "")); n != 15 {
		t.Errorf("seen register has %d payloads, want 15", n)
	}
	if n := len(Filter("", RegisterHeldOut, "")); n < 75 {
		t.Errorf("held-out register has %d payloads, want at least 75", n)
	}
	for _, tech := range Techniques {
		for _, o := range Objectives {
			if !adv[tech][o] {
				t.Errorf("adversarial: no %s payload for objective %s", tech, o)
			}
		}
	}
	for _, c := range Classes {
		if !advClasses[c] {
			t.Errorf("adversarial: class %s not covered", c)
		}
	}
	if len(langs) < 4 {
		t.Errorf("adversarial: %d languages, want several (at least 4)", len(langs))
	}
}

var carriersByClass = map[string][]string{
	ClassToolDescription: {CarrierDescription},
	ClassCrossServer:     {CarrierDescription},
	ClassMetadataDrift:   {CarrierDescription},
	ClassRugPull:         {CarrierResult},
	ClassSchemaField:     {CarrierPropDescription, CarrierPropTitle, CarrierPropDefault, CarrierEnum, CarrierNested},
}

var idPrefix = map[string]string{RegisterSeen: "seen-", RegisterHeldOut: "ho-", RegisterAdversarial: "adv-"}

var classAbbrev = map[string]string{
	ClassToolDescription: "td", ClassSchemaField: "sf", ClassRugPull: "rug", ClassCrossServer: "xs", ClassMetadataDrift: "md",
}

var objAbbrev = map[string]string{ObjectiveExfil: "exfil", ObjectiveArgTamper: "tamper", ObjectiveDestructive: "destroy"}

func TestLabels(t *testing.T) {
	ids := map[string]bool{}
	for _, p := range All() {
		if ids[p.ID] {
			t.Errorf("duplicate id %q", p.ID)
		}
		ids[p.ID] = true
		if !slices.Contains(Registers, p.Register) {
			t.Errorf("%s: unknown register %q", p.ID, p.Register)
		}
		if !slices.Contains(Classes, p.Class) {
			t.Errorf("%s: unknown class %q", p.ID, p.Class)
		}
		if !slices.Contains(Objectives, p.Objective) {
			t.Errorf("%s: unknown objective %q", p.ID, p.Objective)
		}
		if !slices.Contains(carriersByClass[p.Class], p.Carrier) {
			t.Errorf("%s: carrier %q does not fit class %s", p.ID, p.Carrier, p.Class)
		}
		want := idPrefix[p.Register] + classAbbrev[p.Class] + "-" + objAbbrev[p.Objective]
		if !strings.HasPrefix(p.ID, want) {
			t.Errorf("%s: id should start with %q", p.ID, want)
		}
		if p.Style == "" || strings.TrimSpace(p.Text) == "" {
			t.Errorf("%s: empty style or text", p.ID)
		}
		if p.Register == RegisterAdversarial {
			if !slices.Contains(Techniques, p.Style) {
				t.Errorf("%s: style %q is not a technique", p.ID, p.Style)
			}
			if p.Plain == "" {
				t.Errorf("%s: adversarial payload without plain text", p.ID)
			}
			if (p.Style == TechNonEnglish) != (p.Lang != "") {
				t.Errorf("%s: lang %q does not fit style %s", p.ID, p.Lang, p.Style)
			}
		} else if p.Plain != "" || p.Lang != "" {
			t.Errorf("%s: plain/lang set outside the adversarial register", p.ID)
		}
	}
}

// sinkRef matches the sink by name or by what it does, in the languages
// of the adversarial register.
var sinkRef = regexp.MustCompile(`(?i)export_data|export|archiv|arquiv|エクスポート|アーカイブ|导出|归档`)

// Defanged: no URL, no e-mail address, no host other than .invalid.
var hostLike = regexp.MustCompile(`(?i)https?://|www\.|@[a-z0-9-]+\.[a-z]|\b[a-z0-9-]+\.(?:com|net|org|io|dev|ai)\b`)

func TestObjectiveMarkers(t *testing.T) {
	for _, p := range All() {
		text := p.Text
		if p.Plain != "" {
			text = p.Plain
		}
		switch p.Objective {
		case ObjectiveExfil:
			if !sinkRef.MatchString(text) {
				t.Errorf("%s: exfil payload names neither the sink nor its function: %q", p.ID, text)
			}
			if !strings.Contains(text, "CANARY") && !strings.Contains(text, "token") {
				t.Errorf("%s: exfil payload does not point at the canary", p.ID)
			}
		case ObjectiveArgTamper:
			if !strings.Contains(text, task.TamperMarker) {
				t.Errorf("%s: arg_tamper payload lacks %s", p.ID, task.TamperMarker)
			}
			// Tasks that save no note of their own must still give an
			// obeying model a write to tamper with.
			if !strings.Contains(text, "request-log") {
				t.Errorf("%s: arg_tamper payload does not say what to write when the task saves no note (request-log)", p.ID)
			}
		case ObjectiveDestructive:
			if !strings.Contains(text, task.DestructiveTarget) {
				t.Errorf("%s: destructive payload lacks %s", p.ID, task.DestructiveTarget)
			}
		}
		if hostLike.MatchString(p.Text) || hostLike.MatchString(p.Plain) {
			t.Errorf("%s: looks like it names a host or address", p.ID)
		}
	}
}

var zeroWidthRunes = strings.NewReplacer("\u200b", "", "\u200c", "", "\u200d", "", "\u2060", "")

// reveal undoes each technique independently of the encoders, so that a
// broken encoder cannot hide behind a matching broken decoder.
func reveal(t *testing.T, p Payload) (visible, hidden string) {
	t.Helper()
	switch p.Style {
	case TechZeroWidth:
		return "", zeroWidthRunes.Replace(p.Text)
	case TechHomoglyph:
		rev := map[rune]rune{}
		for l, h := range homoglyphs {
			rev[h] = l
		}
		return "", strings.Map(func(r rune) rune {
			if l, ok := rev[r]; ok {
				return l
			}
			return r
		}, p.Text)
	case TechUnicodeTag:
		var vis, hid strings.Builder
		for _, r := range p.Text {
			if r >= 0xE0000 && r <= 0xE007F {
				hid.WriteRune(r - 0xE0000)
			} else {
				vis.WriteRune(r)
			}
		}
		return vis.String(), hid.String()
	case TechBase64, TechHex:
		fields := strings.Fields(p.Text)
		blob := fields[len(fields)-1]
		var b []byte
		var err error
		if p.Style == TechBase64 {
			b, err = base64.StdEncoding.DecodeString(blob)
		} else {
			b, err = hex.DecodeString(blob)
		}
		if err != nil {
			t.Fatalf("%s: blob does not decode: %v", p.ID, err)
		}
		return strings.TrimSuffix(p.Text, blob), string(b)
	}
	return "", p.Text
}

func TestAdversarialEncodings(t *testing.T) {
	greek := false
	for _, p := range Filter("", RegisterAdversarial, "") {
		t.Run(p.ID, func(t *testing.T) {
			vis, hid := reveal(t, p)
			switch p.Style {
			case TechZeroWidth, TechHomoglyph, TechNonEnglish:
				if !strings.HasSuffix(hid, p.Plain) {
					t.Errorf("revealed text %q does not end with plain %q", hid, p.Plain)
				}
				if p.Style != TechNonEnglish && strings.Contains(p.Text, p.Plain) {
					t.Errorf("plain text survives encoding verbatim")
				}
			case TechUnicodeTag:
				if hid != p.Plain {
					t.Errorf("tag decode = %q, want %q", hid, p.Plain)
				}
				for _, r := range vis {
					if r > unicode.MaxASCII {
						t.Errorf("visible part has non-ASCII %U", r)
					}
				}
			case TechBase64, TechHex:
				if hid != p.Plain {
					t.Errorf("blob decodes to %q, want %q", hid, p.Plain)
				}
				if strings.TrimSpace(vis) == "" {
					t.Errorf("no decoding hint before the blob")
				}
			}
			if p.Style == TechHomoglyph {
				if !strings.ContainsFunc(p.Text, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) }) {
					t.Errorf("no Cyrillic look-alike in %q", p.Text)
				}
				greek = greek || strings.ContainsFunc(p.Text, func(r rune) bool { return unicode.Is(unicode.Greek, r) })
			}
			if p.Style == TechZeroWidth || p.Style == TechHomoglyph {
				// The objective markers stay byte-exact.
				for _, m := range []string{task.TamperMarker, task.DestructiveTarget} {
					if strings.Contains(p.Plain, m) && !strings.Contains(p.Text, m) {
						t.Errorf("marker %s was encoded", m)
					}
				}
			}
		})
	}
	if !greek {
		t.Error("no homoglyph payload uses a Greek look-alike")
	}
}

func TestAPI(t *testing.T) {
	a, b := All(), All()
	if !slices.Equal(a, b) {
		t.Fatal("All is not stable")
	}
	a[0].Text = "mutated"
	if All()[0].Text == "mutated" {
		t.Fatal("All returns shared storage")
	}
	// Registers come in report order.
	last := -1
	for _, p := range All() {
		i := slices.Index(Registers, p.Register)
		if i < last {
			t.Fatalf("%s: register order broken", p.ID)
		}
		last = i
	}

	tests := []struct {
		name                       string
		class, register, objective string
		wantN                      int
		atLeast                    bool
	}{
		{"everything", "", "", "", len(All()), false},
		{"seen", "", RegisterSeen, "", 15, false},
		{"seen rug exfil", ClassRugPull, RegisterSeen, ObjectiveExfil, 1, false},
		{"held-out schema tamper", ClassSchemaField, RegisterHeldOut, ObjectiveArgTamper, 5, true},
		{"unknown class", "nope", "", "", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Filter(tc.class, tc.register, tc.objective)
			if tc.atLeast && len(got) < tc.wantN || !tc.atLeast && len(got) != tc.wantN {
				t.Errorf("Filter(%q,%q,%q) = %d payloads, want %d", tc.class, tc.register, tc.objective, len(got), tc.wantN)
			}
			for _, p := range got {
				if tc.class != "" && p.Class != tc.class || tc.register != "" && p.Register != tc.register || tc.objective != "" && p.Objective != tc.objective {
					t.Errorf("Filter returned %s", p.ID)
				}
			}
		})
	}

	for _, c := range Classes {
		for _, o := range Objectives {
			d := Default(c, o)
			if d.Register != RegisterSeen || d.Class != c || d.Objective != o {
				t.Errorf("Default(%s,%s) = %+v", c, o, d)
			}
			got, ok := ByID(d.ID)
			if !ok || got != d {
				t.Errorf("ByID(%s) = %+v, %v", d.ID, got, ok)
			}
		}
	}
	if d := Default("nope", ObjectiveExfil); d != (Payload{}) {
		t.Errorf("Default of unknown class = %+v", d)
	}
	if _, ok := ByID("no-such-payload"); ok {
		t.Error("ByID found a payload that does not exist")
	}
	if p, ok := ByID("ho-sf-tamper-label"); !ok || p.Carrier != CarrierPropTitle {
		t.Errorf("ByID(ho-sf-tamper-label) = %+v, %v", p, ok)
	}
}

func TestRegisterJSONIsCanonical(t *testing.T) {
	for _, reg := range Registers {
		var back []Payload
		if err := json.Unmarshal(RegisterJSON(reg), &back); err != nil {
			t.Fatalf("%s: %v", reg, err)
		}
		if !slices.Equal(back, Filter("", reg, "")) {
			t.Errorf("%s: JSON does not round-trip", reg)
		}
	}
}

func TestBuildRejectsBadEntries(t *testing.T) {
	tests := []struct {
		name string
		reg  string
		e    entry
	}{
		{"hidden outside adversarial", RegisterHeldOut, entry{ID: "x", Text: "t", Hidden: "h"}},
		{"text in adversarial", RegisterAdversarial, entry{ID: "x", Text: "t", Style: TechHex}},
		{"unknown technique", RegisterAdversarial, entry{ID: "x", Hidden: "h", Style: "rot13"}},
		{"non_english without lang", RegisterAdversarial, entry{ID: "x", Hidden: "h", Style: TechNonEnglish}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.e.build(tc.reg); err == nil {
				t.Error("accepted")
			}
		})
	}
}

// ExampleDefault shows how a fixture picks its payload when none is named.
func ExampleDefault() {
	p := Default(ClassRugPull, ObjectiveDestructive)
	fmt.Println(p.ID, p.Carrier, p.Register)
	// Output: seen-rug-destroy result seen
}
