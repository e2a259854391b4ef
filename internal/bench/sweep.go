package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpsec/mcpsec/internal/model"
	"github.com/mcpsec/mcpsec/internal/trace"
)

// SelectionFile records the shard and sampling a run was started with.
const SelectionFile = "selection.json"

// Selection is the subset of the grid a run covers.
type Selection struct {
	Shard         Shard `json:"shard"`
	Limit         int   `json:"limit"`
	LimitPerClass int   `json:"limit_per_class"`
}

func writeSelection(dir string, s Selection) error {
	if s.Shard.Count == 0 {
		s.Shard = Shard{1, 1}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode selection: %w", err)
	}
	return writeSynced(filepath.Join(dir, SelectionFile), append(b, '\n'))
}

// readSelection reads a run's selection; a run without the file (merged
// runs) covers its whole grid.
func readSelection(dir string) (Selection, error) {
	b, err := os.ReadFile(filepath.Join(dir, SelectionFile))
	if errors.Is(err, os.ErrNotExist) {
		return Selection{Shard: Shard{1, 1}}, nil
	}
	if err != nil {
		return Selection{}, fmt.Errorf("read selection: %w", err)
	}
	var s Selection
	if err := json.Unmarshal(b, &s); err != nil {
		return Selection{}, fmt.Errorf("%w: %s: %v", ErrConfig, filepath.Join(dir, SelectionFile), err)
	}
	return s, nil
}

// Shard selects a deterministic subset of a grid: trial i of n.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ParseShard reads "i/n" (1-based).
func ParseShard(s string) (Shard, error) {
	var sh Shard
	if s == "" {
		return Shard{1, 1}, nil
	}
	if _, err := fmt.Sscanf(s, "%d/%d", &sh.Index, &sh.Count); err != nil || sh.Count < 1 || sh.Index < 1 || sh.Index > sh.Count {
		return Shard{}, fmt.Errorf("%w: --shard wants i/n with 1 <= i <= n, got %q", ErrConfig, s)
	}
	return sh, nil
}

// Has reports whether a trial belongs to the shard; membership depends on
// the trial id alone so shards never overlap and always cover the grid.
func (s Shard) Has(id string) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32()%uint32(s.Count)) == s.Index-1
}

// Options control a sweep.
type Options struct {
	Grid        Grid
	Out         string
	Resume      bool
	RetryErrors bool
	Shard       Shard
	// Limit caps the number of trials, sampled round-robin across cells.
	Limit int
	// LimitPerClass caps trials per (model, arm, class) cell.
	LimitPerClass int
	Env           Env
	// Log gets one line per skipped model and the progress lines.
	Log io.Writer
	// TTY draws a progress bar with ETA instead of plain lines.
	TTY bool
	// Now is the clock (tests).
	Now func() time.Time
}

// Result summarizes a sweep.
type Result struct {
	Planned  int
	Skipped  int // already recorded (resume)
	Ran      int
	Errored  int
	Excluded map[string]string // model -> why it was skipped
	Elapsed  time.Duration
}

// Select applies sharding and sampling to an expanded grid.
func Select(trials []Trial, shard Shard, limit, perClass int) []Trial {
	var in []Trial
	for _, t := range trials {
		if shard.Has(t.ID) {
			in = append(in, t)
		}
	}
	if perClass > 0 {
		in = roundRobin(in, func(t Trial) string { return t.Model + "|" + t.Arm + "|" + t.AttackClass }, perClass, 0)
	}
	if limit > 0 && len(in) > limit {
		in = roundRobin(in, func(t Trial) string {
			return t.Model + "|" + t.Arm + "|" + t.AttackClass + "|" + t.Register + "|" + t.Objective
		}, 0, limit)
	}
	return in
}

// roundRobin takes one trial per cell in turn, so a small sample still
// covers every cell; perCell caps each cell, total caps the sample. Cells
// are visited interleaved by model first, then arm, so the first few
// trials already span the roster.
func roundRobin(in []Trial, key func(Trial) string, perCell, total int) []Trial {
	var order []string
	cells := map[string][]Trial{}
	type rank struct{ class, arm, model int }
	ranks := map[string]rank{}
	models := map[string]int{}
	arms := map[string]int{}    // model|arm -> rank within model
	classes := map[string]int{} // model|arm|class -> rank within arm
	armCount := map[string]int{}
	classCount := map[string]int{}
	for _, t := range in {
		k := key(t)
		if _, ok := cells[k]; !ok {
			order = append(order, k)
			if _, ok := models[t.Model]; !ok {
				models[t.Model] = len(models)
			}
			ma := t.Model + "|" + t.Arm
			if _, ok := arms[ma]; !ok {
				arms[ma] = armCount[t.Model]
				armCount[t.Model]++
			}
			classes[k] = classCount[ma]
			classCount[ma]++
			ranks[k] = rank{class: classes[k], arm: arms[ma], model: models[t.Model]}
		}
		cells[k] = append(cells[k], t)
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := ranks[order[i]], ranks[order[j]]
		if a.class != b.class {
			return a.class < b.class
		}
		if a.arm != b.arm {
			return a.arm < b.arm
		}
		return a.model < b.model
	})
	var out []Trial
	for round := 0; ; round++ {
		added := false
		for _, k := range order {
			if perCell > 0 && round >= perCell {
				continue
			}
			if round < len(cells[k]) {
				out = append(out, cells[k][round])
				added = true
				if total > 0 && len(out) == total {
					return out
				}
			}
		}
		if !added {
			return out
		}
	}
}

// Sweep runs a grid into a run directory.
func Sweep(ctx context.Context, opts Options) (Result, error) {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	start := now()
	g := opts.Grid
	sel := Selection{Shard: opts.Shard, Limit: opts.Limit, LimitPerClass: opts.LimitPerClass}
	if opts.Resume {
		frozen, err := LoadGrid(filepath.Join(opts.Out, ConfigFile))
		if err != nil {
			return Result{}, fmt.Errorf("resume %s: %w", opts.Out, err)
		}
		g = frozen
		// The shard and sample a run was started with are part of what
		// "the full grid" means for it.
		if sel, err = readSelection(opts.Out); err != nil {
			return Result{}, fmt.Errorf("resume %s: %w", opts.Out, err)
		}
	} else {
		if err := prepareDir(opts.Out); err != nil {
			return Result{}, err
		}
		b, err := yaml.Marshal(g)
		if err != nil {
			return Result{}, fmt.Errorf("encode config: %w", err)
		}
		if err := writeSynced(filepath.Join(opts.Out, ConfigFile), b); err != nil {
			return Result{}, err
		}
		if err := writeSelection(opts.Out, sel); err != nil {
			return Result{}, err
		}
	}
	opts.Shard, opts.Limit, opts.LimitPerClass = sel.Shard, sel.Limit, sel.LimitPerClass
	trials := Select(g.Expand(), opts.Shard, opts.Limit, opts.LimitPerClass)
	res := Result{Planned: len(trials), Excluded: map[string]string{}}

	// Models whose key is missing are skipped with one log line each,
	// never replaced by anything else.
	usable := map[string]bool{}
	for _, m := range g.Models {
		if model.IsControl(m) {
			usable[m] = true
			continue
		}
		if err := checkModel(opts.Env, m); err != nil {
			res.Excluded[m] = err.Error()
			fmt.Fprintf(logw, "skipping model %s: %v\n", m, err)
			continue
		}
		usable[m] = true
	}

	log, done, err := openRecordLog(opts.Out, opts.RetryErrors)
	if err != nil {
		return res, err
	}
	defer log.Close()
	var pending []Trial
	for _, t := range trials {
		if !usable[t.Model] {
			continue
		}
		if _, ok := done[t.ID]; ok {
			res.Skipped++
			continue
		}
		pending = append(pending, t)
	}
	if err := writeRunMD(opts, g, res, start, time.Time{}, len(done)); err != nil {
		return res, err
	}

	limiters := map[string]*Limiter{}
	for p, rl := range g.RateLimits {
		limiters[p] = NewLimiter(rl)
	}
	env := opts.Env
	env.Wrap = func(spec string, m model.Model) model.Model {
		if lim := limiters[provider(spec)]; lim != nil {
			return limited{Model: m, lim: lim}
		}
		return m
	}

	prog := newProgress(logw, opts.TTY, len(pending), now)
	work := make(chan Trial)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	workers := g.Concurrency
	if workers < 1 {
		workers = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range work {
				tracePath := filepath.Join(opts.Out, TracesDir, t.ID+trace.Ext)
				rec, err := RunTrial(ctx, env, g, t, tracePath)
				if err == nil && ctx.Err() != nil && rec.Error != nil {
					// A trial cut short by cancellation is not recorded:
					// resume will run it again.
					continue
				}
				if err == nil {
					rec.Trace = filepath.Join(TracesDir, t.ID+trace.Ext)
					err = log.Append(rec)
				}
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = fmt.Errorf("trial %s: %w", t.ID, err)
					}
					cancel()
				} else {
					res.Ran++
					if rec.Error != nil {
						res.Errored++
					}
				}
				mu.Unlock()
				prog.tick(rec.Error != nil)
			}
		}()
	}
feed:
	for _, t := range pending {
		select {
		case work <- t:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	prog.finish()
	res.Elapsed = now().Sub(start)
	if err := writeRunMD(opts, g, res, start, now(), len(done)+res.Ran); err != nil && firstErr == nil {
		firstErr = err
	}
	if firstErr != nil {
		return res, firstErr
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, nil
}

// checkModel builds a model once before the sweep so that a missing key
// skips it up front. A replay directory only needs its spec file: its
// cassettes are per trial.
func checkModel(env Env, spec string) error {
	if dir, ok := strings.CutPrefix(spec, model.ProviderReplay+":"); ok {
		if _, err := os.Stat(filepath.Join(dir, model.SpecFile)); err != nil {
			return fmt.Errorf("%w: %s: no recording there: %v", model.ErrBadSpec, spec, err)
		}
		return nil
	}
	if env.NewModel != nil {
		_, err := env.NewModel(spec, Trial{Model: spec})
		return err
	}
	_, err := model.New(spec, model.Options{})
	return err
}

func provider(spec string) string {
	if i := strings.IndexByte(spec, ':'); i > 0 {
		return spec[:i]
	}
	return spec
}

// prepareDir creates a fresh run directory; an existing non-empty one is
// refused so that no earlier run is overwritten.
func prepareDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err == nil && len(entries) > 0 {
		return fmt.Errorf("%w: run directory %s is not empty (use --resume %s to continue it)", ErrConfig, dir, dir)
	}
	if err := os.MkdirAll(filepath.Join(dir, TracesDir), 0o755); err != nil {
		return fmt.Errorf("create run directory: %w", err)
	}
	return nil
}

func writeRunMD(opts Options, g Grid, res Result, start, end time.Time, recorded int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# mcpsec run\n\n")
	fmt.Fprintf(&b, "| field | value |\n|---|---|\n")
	fmt.Fprintf(&b, "| mcpsec version | %s |\n", opts.Env.Version)
	dirty := ""
	if opts.Env.GitDirty {
		dirty = " (dirty)"
	}
	fmt.Fprintf(&b, "| git revision | %s%s |\n", opts.Env.GitRevision, dirty)
	fmt.Fprintf(&b, "| config digest | %s |\n", g.Digest())
	fmt.Fprintf(&b, "| shard | %d/%d |\n", max(opts.Shard.Index, 1), max(opts.Shard.Count, 1))
	fmt.Fprintf(&b, "| started | %s |\n", start.UTC().Format(time.RFC3339))
	if !end.IsZero() {
		fmt.Fprintf(&b, "| ended | %s |\n", end.UTC().Format(time.RFC3339))
	} else {
		fmt.Fprintf(&b, "| ended | (running) |\n")
	}
	fmt.Fprintf(&b, "| trials planned | %d |\n| trials recorded | %d |\n| errored this session | %d |\n", res.Planned, recorded, res.Errored)
	fmt.Fprintf(&b, "\n## Roster\n\n")
	models := append([]string(nil), g.Models...)
	sort.Strings(models)
	for _, m := range models {
		kind := "model"
		if model.IsControl(m) {
			kind = "control agent (not a model)"
		}
		if why, ok := res.Excluded[m]; ok {
			fmt.Fprintf(&b, "- `%s`: %s, skipped: %s\n", m, kind, why)
		} else {
			fmt.Fprintf(&b, "- `%s`: %s\n", m, kind)
		}
	}
	fmt.Fprintf(&b, "\nArms: %s\n", strings.Join(g.Arms, ", "))
	return writeSynced(filepath.Join(opts.Out, RunFile), []byte(b.String()))
}

// progress reports sweep progress: a redrawn bar with ETA on a terminal,
// a plain line at most every few seconds otherwise.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	total    int
	done     int
	errs     int
	start    time.Time
	lastLine time.Time
	now      func() time.Time
}

func newProgress(w io.Writer, tty bool, total int, now func() time.Time) *progress {
	return &progress{w: w, tty: tty, total: total, start: now(), now: now}
}

func (p *progress) tick(errored bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if errored {
		p.errs++
	}
	t := p.now()
	if p.tty {
		p.draw(t)
		return
	}
	if p.done == p.total || t.Sub(p.lastLine) >= 5*time.Second {
		p.lastLine = t
		fmt.Fprintf(p.w, "progress: %d/%d trials, %d errored, elapsed %s, eta %s\n", p.done, p.total, p.errs, t.Sub(p.start).Round(time.Second), p.eta(t))
	}
}

func (p *progress) eta(t time.Time) time.Duration {
	if p.done == 0 {
		return 0
	}
	per := t.Sub(p.start) / time.Duration(p.done)
	return (per * time.Duration(p.total-p.done)).Round(time.Second)
}

func (p *progress) draw(t time.Time) {
	const width = 30
	fill := 0
	if p.total > 0 {
		fill = p.done * width / p.total
	}
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d errored %d eta %s ", strings.Repeat("=", fill), strings.Repeat(" ", width-fill), p.done, p.total, p.errs, p.eta(t))
}

func (p *progress) finish() {
	if p.tty && p.total > 0 {
		fmt.Fprintln(p.w)
	}
}
