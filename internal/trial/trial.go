// Package trial owns the trial contract: the keys that identify a trial
// and its stable id, the record written for it, and the trials.jsonl log
// (one synced append per record, repair of a torn last line, and the one
// streaming reader that bench, report and merge share). Adding a field to
// the record touches this package only.
package trial

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// None is the attack class, payload, register and objective of a benign
// (no-attack) trial, and the name of the undefended arm.
const None = "none"

// LogFile is the name of the trial log inside a run directory.
const LogFile = "trials.jsonl"

// Rug-pull modes: the poisoned result, or a definition swapped after
// approval.
const (
	RugModeResult   = "result"
	RugModeApproval = "approval"
)

// RugModes lists the rug-pull modes.
var RugModes = []string{RugModeResult, RugModeApproval}

// Trial is one trial's keys. Their JSON names are part of mcpsec's
// contract: they head every record and every trace's run_config event.
type Trial struct {
	ID          string `json:"trial_id"`
	Model       string `json:"model"`
	Task        string `json:"task"`
	AttackClass string `json:"attack_class"`
	// RugMode is result or approval for rug_pull trials, empty otherwise.
	RugMode   string `json:"rug_mode,omitempty"`
	PayloadID string `json:"payload_id"`
	Register  string `json:"register"`
	Objective string `json:"objective"`
	Arm       string `json:"arm"`
	Seed      int    `json:"seed"`
}

// Benign reports whether the trial carries no attack.
func (t Trial) Benign() bool { return t.AttackClass == None }

// ID hashes the keys (not the ID field), so an id is stable across runs,
// machines and grid orderings.
func ID(t Trial) string {
	key := strings.Join([]string{t.Model, t.Task, t.AttackClass, t.RugMode, t.PayloadID, t.Register, t.Objective, t.Arm, fmt.Sprint(t.Seed)}, "\x1f")
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:8])
}

// WithID returns t with its ID set from its keys.
func (t Trial) WithID() Trial {
	t.ID = ID(t)
	return t
}
