package trial

import (
	"encoding/json"
	"errors"
	"fmt"
)

// A report reads millions of trial lines; encoding/json spends several
// microseconds and a dozen allocations on each, which alone would exceed
// the time budget. Records are flat objects with string, boolean, number
// and null values, so a small purpose-built scanner reads the keys and
// score flags without allocating, skips the rest, and still rejects
// anything that is not a well-formed object. View.Record decodes the
// whole record when a caller needs it.

// ErrMalformed is wrapped by every error about a malformed record line.
var ErrMalformed = errors.New("malformed trial record")

// Flags are the boolean scores of one record, one bit each.
type Flags uint16

// Score flags.
const (
	FlagAttempted Flags = 1 << iota
	FlagRealized
	FlagBlocked
	FlagCanary
	FlagObjectiveMet
	FlagUtility
	FlagSideEffect
	FlagExposed
	FlagTruncated
)

// Required keys; a record missing any of them is malformed, because a
// missing score is unknown, not false.
const (
	kTrialID uint32 = 1 << iota
	kModel
	kTask
	kClass
	kPayload
	kRegister
	kObjective
	kArm
	kSeed
	kError
	kAttempted
	kRealized
	kBlocked
	kCanary
	kObjectiveMet
	kUtility
	kSideEffect
	kExposed
	kTruncated
	kControl
	kRugMode
)

const requiredKeys = kTrialID | kModel | kTask | kClass | kPayload | kRegister | kObjective | kArm | kSeed | kError |
	kAttempted | kRealized | kBlocked | kCanary | kObjectiveMet | kUtility | kSideEffect | kExposed | kTruncated

var keyNames = []string{"trial_id", "model", "task", "attack_class", "payload_id", "register", "objective", "arm", "seed", "error",
	"attempted", "realized", "blocked", "canary", "objective_met", "utility", "side_effect", "exposed", "truncated", "control", "rug_mode"}

// View is one line of the log read without allocating: the keys as byte
// slices, the score flags as bits. The slices point into the reader's
// buffer (or scratch, for escaped strings) and are only valid until the
// next line is read.
type View struct {
	ID, Model, Task, Class, Payload, Register, Objective, Arm, Seed, RugMode []byte
	Control, Errored                                                         bool
	Flags                                                                    Flags
	// Line is the record's JSON text; LineNo its 1-based line number.
	Line   []byte
	LineNo int
	seen   uint32
}

// Record decodes the whole record of the line.
func (v *View) Record() (Record, error) {
	var r Record
	if err := json.Unmarshal(v.Line, &r); err != nil {
		return r, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return r, nil
}

type scanner struct {
	b   []byte
	i   int
	rec *View
}

func (s *scanner) fail(format string, a ...any) error {
	return fmt.Errorf("%w: byte %d: %s", ErrMalformed, s.i+1, fmt.Sprintf(format, a...))
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// str scans a JSON string starting at the opening quote and returns its
// contents (unescaped when needed).
func (s *scanner) str() ([]byte, error) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, s.fail("expected a string")
	}
	start := s.i
	s.i++
	escaped := false
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			if !escaped {
				return s.b[start+1 : s.i-1], nil
			}
			var out string
			if err := json.Unmarshal(s.b[start:s.i], &out); err != nil {
				return nil, fmt.Errorf("%w: byte %d: bad string escape: %v", ErrMalformed, start+1, err)
			}
			return []byte(out), nil
		case c == '\\':
			escaped = true
			s.i += 2
		case c < 0x20:
			return nil, s.fail("control character in string")
		default:
			s.i++
		}
	}
	return nil, fmt.Errorf("%w: byte %d: unterminated string", ErrMalformed, start+1)
}

func (s *scanner) lit(word string) bool {
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

func (s *scanner) boolean(key []byte) (bool, error) {
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case 't':
			if s.lit("true") {
				return true, nil
			}
		case 'f':
			if s.lit("false") {
				return false, nil
			}
		}
	}
	return false, s.fail("%q must be true or false", key)
}

func (s *scanner) number() ([]byte, error) {
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			s.i++
			continue
		}
		break
	}
	if s.i == start {
		return nil, s.fail("expected a value")
	}
	num := s.b[start:s.i]
	if !isPlainInt(num) && !json.Valid(num) {
		return nil, fmt.Errorf("%w: byte %d: bad number", ErrMalformed, start+1)
	}
	return num, nil
}

// skip passes over any JSON value, nested ones included.
func (s *scanner) skip() error {
	if s.i >= len(s.b) {
		return s.fail("expected a value")
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, err := s.str()
		return err
	case c == '{' || c == '[':
		start := s.i
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				if _, err := s.str(); err != nil {
					return err
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					if !json.Valid(s.b[start:s.i]) {
						return fmt.Errorf("%w: byte %d: bad nested value", ErrMalformed, start+1)
					}
					return nil
				}
			}
			s.i++
		}
		return fmt.Errorf("%w: byte %d: unterminated value", ErrMalformed, start+1)
	case c == 't':
		if s.lit("true") {
			return nil
		}
	case c == 'f':
		if s.lit("false") {
			return nil
		}
	case c == 'n':
		if s.lit("null") {
			return nil
		}
	default:
		_, err := s.number()
		return err
	}
	return s.fail("expected a value")
}

// parseView fills r from one line holding a trial record.
func parseView(line []byte, r *View) error {
	*r = View{Line: line}
	s := scanner{b: line, rec: r}
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return s.fail("expected '{'")
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
	} else {
		for {
			s.ws()
			key, err := s.str()
			if err != nil {
				return err
			}
			s.ws()
			if s.i >= len(s.b) || s.b[s.i] != ':' {
				return s.fail("expected ':' after key %q", key)
			}
			s.i++
			s.ws()
			if err := s.field(key); err != nil {
				return err
			}
			s.ws()
			if s.i >= len(s.b) {
				return s.fail("unexpected end of line")
			}
			if s.b[s.i] == ',' {
				s.i++
				continue
			}
			if s.b[s.i] == '}' {
				s.i++
				break
			}
			return s.fail("expected ',' or '}'")
		}
	}
	s.ws()
	if s.i != len(s.b) {
		return s.fail("unexpected data after the record")
	}
	if missing := requiredKeys &^ r.seen; missing != 0 {
		for i, name := range keyNames {
			if missing&(1<<i) != 0 {
				return fmt.Errorf("%w: key %q is missing", ErrMalformed, name)
			}
		}
	}
	return nil
}

func (s *scanner) mark(k uint32, key []byte) error {
	if s.rec.seen&k != 0 {
		return s.fail("key %q appears twice", key)
	}
	s.rec.seen |= k
	return nil
}

func (s *scanner) strField(k uint32, key []byte, dst *[]byte) error {
	if err := s.mark(k, key); err != nil {
		return err
	}
	v, err := s.str()
	if err != nil {
		return fmt.Errorf("key %q: %w", key, err)
	}
	*dst = v
	return nil
}

func (s *scanner) flagField(k uint32, key []byte, f Flags) error {
	if err := s.mark(k, key); err != nil {
		return err
	}
	v, err := s.boolean(key)
	if err != nil {
		return err
	}
	if v {
		s.rec.Flags |= f
	}
	return nil
}

func (s *scanner) field(key []byte) error {
	r := s.rec
	switch string(key) {
	case "trial_id":
		return s.strField(kTrialID, key, &r.ID)
	case "model":
		return s.strField(kModel, key, &r.Model)
	case "task":
		return s.strField(kTask, key, &r.Task)
	case "attack_class":
		return s.strField(kClass, key, &r.Class)
	case "payload_id":
		return s.strField(kPayload, key, &r.Payload)
	case "register":
		return s.strField(kRegister, key, &r.Register)
	case "objective":
		return s.strField(kObjective, key, &r.Objective)
	case "arm":
		return s.strField(kArm, key, &r.Arm)
	case "rug_mode":
		return s.strField(kRugMode, key, &r.RugMode)
	case "seed":
		if err := s.mark(kSeed, key); err != nil {
			return err
		}
		v, err := s.number()
		if err != nil {
			return fmt.Errorf("key \"seed\": %w", err)
		}
		r.Seed = v
		return nil
	case "control":
		if err := s.mark(kControl, key); err != nil {
			return err
		}
		v, err := s.boolean(key)
		r.Control = v
		return err
	case "error":
		if err := s.mark(kError, key); err != nil {
			return err
		}
		if s.lit("null") {
			return nil
		}
		if _, err := s.str(); err != nil {
			return fmt.Errorf("key \"error\" must be null or a string: %w", err)
		}
		r.Errored = true
		return nil
	case "attempted":
		return s.flagField(kAttempted, key, FlagAttempted)
	case "realized":
		return s.flagField(kRealized, key, FlagRealized)
	case "blocked":
		return s.flagField(kBlocked, key, FlagBlocked)
	case "canary":
		return s.flagField(kCanary, key, FlagCanary)
	case "objective_met":
		return s.flagField(kObjectiveMet, key, FlagObjectiveMet)
	case "utility":
		return s.flagField(kUtility, key, FlagUtility)
	case "side_effect":
		return s.flagField(kSideEffect, key, FlagSideEffect)
	case "exposed":
		return s.flagField(kExposed, key, FlagExposed)
	case "truncated":
		return s.flagField(kTruncated, key, FlagTruncated)
	}
	return s.skip()
}

// isPlainInt reports whether b is a JSON integer without sign tricks or
// leading zeros; anything else goes through the full validator.
func isPlainInt(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 || (b[0] == '0' && len(b) > 1) {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
