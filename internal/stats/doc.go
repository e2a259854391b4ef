// Package stats computes benchmark metrics from explicit result labels:
// benign utility over unique tasks, attacked utility, targeted attack
// success, side effects and secure utility over (task, goal) cases, the
// joint utility × attack table, conditional rates with their subset sizes,
// paired control effects with an exact McNemar test and a cluster
// bootstrap, and Wilson score intervals.
//
// Inputs are strict on purpose: a missing or unknown label is an error and
// never silently counts as false, because a silent false would move a
// case from "unknown" to "safe" and flatter a defense.
package stats

import "errors"

// Sentinel errors; every returned error wraps one of them with the place
// (case, key, file, line) it concerns.
var (
	// ErrEmpty means a table that must have rows has none.
	ErrEmpty = errors.New("empty table")
	// ErrDuplicate means a task, case or pair id appears twice.
	ErrDuplicate = errors.New("duplicate id")
	// ErrNoBenign means a security case names a task without a benign result.
	ErrNoBenign = errors.New("case task has no benign result")
	// ErrAttackWithoutSideEffect means attack_success is true while
	// side_effect is false; the side-effect checks must cover the injection
	// goal, so this combination reveals a broken labelling.
	ErrAttackWithoutSideEffect = errors.New("attack_success without side_effect")
	// ErrLabel means a label is missing, null or not a boolean.
	ErrLabel = errors.New("label must be an explicit boolean")
	// ErrIDMismatch means two paired tables do not cover the same ids.
	ErrIDMismatch = errors.New("paired tables have different id sets")
	// ErrSyntax means a table file could not be parsed.
	ErrSyntax = errors.New("malformed table")
	// ErrOption means an option is out of its range.
	ErrOption = errors.New("option out of range")
)

// SchemaVersion is the version of the JSON written by mcpsec stats cases
// and stats paired (schema/stats-cases.schema.json,
// schema/stats-paired.schema.json). Bump it when a field is renamed or
// removed.
const SchemaVersion = 1

// MaxBootstrapReps bounds the bootstrap resamples: beyond it the interval
// no longer changes in the reported digits, while memory and time grow
// with every resample.
const MaxBootstrapReps = 1_000_000
