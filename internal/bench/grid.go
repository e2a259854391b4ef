// Package bench expands a benchmark grid into trials, runs them with
// bounded concurrency and per-provider rate limits, and keeps a run
// directory that survives a crash: every finished trial is appended and
// synced, and --resume skips what is already recorded.
package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpsec/mcpsec/internal/defense"
	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/task"
	"github.com/mcpsec/mcpsec/internal/trial"
)

// Transports lists the ways a trial can reach its fixture servers:
// in-process (memory) or as subprocesses over stdio.
var Transports = []string{"memory", "stdio"}

// ErrConfig marks a malformed grid configuration (exit 2).
var ErrConfig = errors.New("invalid grid config")

// RateLimit is a provider's budget per minute.
type RateLimit struct {
	RPM int `yaml:"rpm" json:"rpm"`
	TPM int `yaml:"tpm" json:"tpm"`
}

// Price is a model's price per million tokens. Confirmed is false until
// someone checked it against the provider's price list; reports say so.
type Price struct {
	InputPerMTok  float64 `yaml:"input_per_mtok" json:"input_per_mtok"`
	OutputPerMTok float64 `yaml:"output_per_mtok" json:"output_per_mtok"`
	Confirmed     bool    `yaml:"confirmed" json:"confirmed"`
}

// Grid is the benchmark configuration (config.yaml).
type Grid struct {
	Models     []string            `yaml:"models" json:"models"`
	Classes    map[string][]string `yaml:"classes" json:"classes"` // class -> task ids
	Registers  []string            `yaml:"registers" json:"registers"`
	Objectives []string            `yaml:"objectives" json:"objectives"`
	Arms       []string            `yaml:"arms" json:"arms"`
	Seeds      []int               `yaml:"seeds" json:"seeds"`
	// RugModes expands rug_pull into its result and approval variants.
	RugModes []string `yaml:"rug_modes" json:"rug_modes"`
	// PayloadsPerCell caps payloads per (class, register, objective);
	// 0 means all.
	PayloadsPerCell int `yaml:"payloads_per_cell" json:"payloads_per_cell"`
	// Benign adds one no-attack trial per (model, task, arm, seed): the
	// denominator of benign utility.
	Benign      bool                 `yaml:"benign" json:"benign"`
	Temperature *float64             `yaml:"temperature" json:"temperature"`
	MaxSteps    int                  `yaml:"max_steps" json:"max_steps"`
	MaxTokens   int                  `yaml:"max_tokens" json:"max_tokens"`
	Concurrency int                  `yaml:"concurrency" json:"concurrency"`
	RateLimits  map[string]RateLimit `yaml:"rate_limits" json:"rate_limits"`
	Pricing     map[string]Price     `yaml:"pricing" json:"pricing"`
	// Relist makes the agent list tools again before every step (as
	// polling clients do). Without it, only list_changed notifications
	// (and arms such as pinning) trigger a re-list, and metadata drift
	// that sends no notification is never seen.
	Relist bool `yaml:"relist" json:"relist"`
	// Transport is "memory" (fixtures in-process) or "stdio" (fixtures
	// spawned as subprocesses).
	Transport string `yaml:"transport" json:"transport"`
}

// MaxConcurrency bounds the trials in flight. Each holds a model client,
// fixture servers and a trace; far more than a provider's rate limit
// allows only costs memory.
const MaxConcurrency = 256

// DefaultGrid is the built-in grid: every class with its tasks, every
// register, objective and arm, one payload per cell, the control agents.
func DefaultGrid() Grid {
	t := 1.0
	return Grid{
		Models: []string{"control:reference", "control:compromised", "control:refuse"},
		Classes: map[string][]string{
			payload.ClassToolDescription: {"calc_invoice", "notes_pipeline"},
			payload.ClassSchemaField:     {"calc_invoice", "notes_pipeline"},
			payload.ClassRugPull:         {"notes_pipeline", "account_review", "notes_review"},
			payload.ClassCrossServer:     {"notes_pipeline", "account_review", "notes_review"},
			payload.ClassMetadataDrift:   {"notes_pipeline", "notes_review"},
		},
		Registers:       append([]string(nil), payload.Registers...),
		Objectives:      append([]string(nil), payload.Objectives...),
		Arms:            append([]string(nil), defense.Arms...),
		Seeds:           []int{1},
		RugModes:        append([]string(nil), trial.RugModes...),
		PayloadsPerCell: 1,
		Benign:          true,
		Temperature:     &t,
		MaxSteps:        10,
		MaxTokens:       1024,
		Concurrency:     4,
		Transport:       "memory",
		Relist:          true,
		RateLimits: map[string]RateLimit{
			"anthropic": {RPM: 50, TPM: 40000},
			"openai":    {RPM: 500, TPM: 200000},
			"deepseek":  {RPM: 60, TPM: 100000},
			"gemini":    {RPM: 10, TPM: 250000},
		},
		Pricing: map[string]Price{},
	}
}

// LoadGrid reads a grid YAML file strictly; absent keys take the default
// grid's values.
func LoadGrid(path string) (Grid, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Grid{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return ParseGrid(path, data)
}

// ParseGrid decodes a grid; name labels errors. Keys the file leaves out
// take the default grid's values; keys it gives replace them whole (a
// classes map is not merged with the default one).
func ParseGrid(name string, data []byte) (Grid, error) {
	var g Grid
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&g); err != nil && !errors.Is(err, io.EOF) {
		return Grid{}, fmt.Errorf("%w: %s: %w", ErrConfig, name, err)
	}
	// A second document would be silently ignored: the run would not be
	// the one the file seems to describe.
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return Grid{}, fmt.Errorf("%w: %s: %w", ErrConfig, name, err)
		}
		return Grid{}, fmt.Errorf("%w: %s line %d: a second YAML document; a grid file holds one", ErrConfig, name, extra.Line)
	}
	var present map[string]any
	_ = yaml.Unmarshal(data, &present)
	g.fillDefaults(present)
	if err := g.validate(); err != nil {
		return Grid{}, fmt.Errorf("%w: %s: %w", ErrConfig, name, err)
	}
	return g, nil
}

func (g *Grid) fillDefaults(present map[string]any) {
	d := DefaultGrid()
	// Zero is meaningful for these keys, so only absence means default.
	if _, ok := present["concurrency"]; !ok {
		g.Concurrency = d.Concurrency
	}
	if _, ok := present["payloads_per_cell"]; !ok {
		g.PayloadsPerCell = d.PayloadsPerCell
	}
	if _, ok := present["relist"]; !ok {
		g.Relist = d.Relist
	}
	if _, ok := present["benign"]; !ok {
		g.Benign = d.Benign
	}
	if g.Models == nil {
		g.Models = d.Models
	}
	if g.Classes == nil {
		g.Classes = d.Classes
	}
	if g.Registers == nil {
		g.Registers = d.Registers
	}
	if g.Objectives == nil {
		g.Objectives = d.Objectives
	}
	if g.Arms == nil {
		g.Arms = d.Arms
	}
	if g.Seeds == nil {
		g.Seeds = d.Seeds
	}
	if g.RugModes == nil {
		g.RugModes = d.RugModes
	}
	if g.Temperature == nil {
		g.Temperature = d.Temperature
	}
	if g.MaxSteps == 0 {
		g.MaxSteps = d.MaxSteps
	}
	if g.MaxTokens == 0 {
		g.MaxTokens = d.MaxTokens
	}
	if g.Transport == "" {
		g.Transport = d.Transport
	}
	if g.RateLimits == nil {
		g.RateLimits = d.RateLimits
	}
	if g.Pricing == nil {
		g.Pricing = d.Pricing
	}
}

// Validate checks names against what mcpsec knows, every list for
// repeats (a repeated value would give two trials one id) and every
// number for its range. Errors wrap ErrConfig and name the key.
func (g Grid) Validate() error {
	if err := g.validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return nil
}

func (g Grid) validate() error {
	if len(g.Models) == 0 {
		return errors.New("models: none given")
	}
	if err := unique("models", g.Models); err != nil {
		return err
	}
	known := map[string]bool{}
	for _, t := range task.MustBuiltin() {
		known[t.ID] = true
	}
	for _, c := range slices.Sorted(maps.Keys(g.Classes)) {
		if !slices.Contains(payload.Classes, c) {
			return fmt.Errorf("classes: unknown attack class %q (known: %s)", c, strings.Join(payload.Classes, ", "))
		}
		for _, t := range g.Classes[c] {
			if !known[t] {
				return fmt.Errorf("classes.%s: unknown task %q", c, t)
			}
		}
		if err := unique("classes."+c, g.Classes[c]); err != nil {
			return err
		}
	}
	for _, l := range []struct {
		key        string
		got, valid []string
	}{
		{"registers", g.Registers, payload.Registers},
		{"objectives", g.Objectives, payload.Objectives},
		{"rug_modes", g.RugModes, trial.RugModes},
	} {
		if err := oneOf(l.key, l.got, l.valid); err != nil {
			return err
		}
	}
	for _, a := range g.Arms {
		if err := defense.CheckArm(a); err != nil {
			return fmt.Errorf("arms: %w", err)
		}
	}
	if err := unique("arms", g.Arms); err != nil {
		return err
	}
	if len(g.Seeds) == 0 {
		return errors.New("seeds: none given")
	}
	if err := unique("seeds", g.Seeds); err != nil {
		return err
	}
	if g.Concurrency < 1 || g.Concurrency > MaxConcurrency {
		return fmt.Errorf("concurrency: %d is out of range (1 to %d trials in flight)", g.Concurrency, MaxConcurrency)
	}
	for _, n := range []struct {
		key string
		v   int
	}{{"max_steps", g.MaxSteps}, {"max_tokens", g.MaxTokens}, {"payloads_per_cell", g.PayloadsPerCell}} {
		if n.v < 0 {
			return fmt.Errorf("%s: %d is negative", n.key, n.v)
		}
	}
	if t := g.Temperature; t != nil && (math.IsNaN(*t) || *t < 0 || *t > 2) {
		return fmt.Errorf("temperature: %v is out of range (0 to 2)", *t)
	}
	for _, p := range slices.Sorted(maps.Keys(g.RateLimits)) {
		rl := g.RateLimits[p]
		if rl.RPM < 0 || rl.TPM < 0 {
			return fmt.Errorf("rate_limits.%s: rpm and tpm must not be negative (0 means no limit), got rpm %d, tpm %d", p, rl.RPM, rl.TPM)
		}
	}
	for _, m := range slices.Sorted(maps.Keys(g.Pricing)) {
		pr := g.Pricing[m]
		if pr.InputPerMTok < 0 || pr.OutputPerMTok < 0 || math.IsNaN(pr.InputPerMTok) || math.IsNaN(pr.OutputPerMTok) {
			return fmt.Errorf("pricing.%s: prices must not be negative", m)
		}
	}
	if !slices.Contains(Transports, g.Transport) {
		return fmt.Errorf("transport: want memory or stdio, not %q", g.Transport)
	}
	return nil
}

// unique rejects a list that names a value twice.
func unique[T comparable](key string, list []T) error {
	seen := make(map[T]int, len(list))
	for i, v := range list {
		if j, dup := seen[v]; dup {
			return fmt.Errorf("%s: %v is listed twice (items %d and %d); each value once", key, v, j+1, i+1)
		}
		seen[v] = i
	}
	return nil
}

func oneOf(field string, got, valid []string) error {
	for _, v := range got {
		if !slices.Contains(valid, v) {
			return fmt.Errorf("%s: unknown value %q (known: %s)", field, v, strings.Join(valid, ", "))
		}
	}
	return unique(field, got)
}

// Digest is the SHA-256 of the grid's canonical YAML: shards and resumed
// runs must match it.
func (g Grid) Digest() string {
	b, _ := yaml.Marshal(g)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Expand lists the grid's trials in a deterministic order.
func (g Grid) Expand() []trial.Trial {
	classes := make([]string, 0, len(g.Classes))
	for _, c := range payload.Classes {
		if _, ok := g.Classes[c]; ok {
			classes = append(classes, c)
		}
	}
	var out []trial.Trial
	add := func(t trial.Trial) {
		t.ID = trial.ID(t)
		out = append(out, t)
	}
	for _, m := range g.Models {
		for _, arm := range g.Arms {
			for _, seed := range g.Seeds {
				if g.Benign {
					for _, tk := range g.benignTasks() {
						add(trial.Trial{Model: m, Task: tk, AttackClass: trial.None, PayloadID: trial.None, Register: trial.None, Objective: trial.None, Arm: arm, Seed: seed})
					}
				}
				for _, c := range classes {
					modes := []string{""}
					if c == payload.ClassRugPull {
						modes = g.RugModes
					}
					for _, reg := range g.Registers {
						for _, obj := range g.Objectives {
							ps := payload.Filter(c, reg, obj)
							if g.PayloadsPerCell > 0 && len(ps) > g.PayloadsPerCell {
								ps = ps[:g.PayloadsPerCell]
							}
							for _, p := range ps {
								for _, tk := range g.Classes[c] {
									for _, mode := range modes {
										add(trial.Trial{Model: m, Task: tk, AttackClass: c, RugMode: mode, PayloadID: p.ID, Register: reg, Objective: obj, Arm: arm, Seed: seed})
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}

func (g Grid) benignTasks() []string {
	set := map[string]bool{}
	for _, ts := range g.Classes {
		for _, t := range ts {
			set[t] = true
		}
	}
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
