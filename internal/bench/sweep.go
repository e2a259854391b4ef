package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpsec/mcpsec/internal/model"
	"github.com/mcpsec/mcpsec/internal/trace"
	"github.com/mcpsec/mcpsec/internal/trial"
)

// ErrSelection marks a shard or sample that cannot be taken (exit 2).
var ErrSelection = errors.New("invalid selection")

// SelectionFile records the shard and sampling a run was started with.
// Together with config.yaml it is the run's plan: --resume runs exactly
// the trials it selects, so it is written before config.yaml and a run
// without it is never resumed.
const SelectionFile = "selection.json"

// Selection is the subset of the grid a run covers.
type Selection struct {
	Shard         Shard `json:"shard"`
	Limit         int   `json:"limit"`
	LimitPerClass int   `json:"limit_per_class"`
	// Parts, in a merged run, are the selections of its shards; the run
	// covers their union.
	Parts []Selection `json:"parts,omitempty"`
}

// Trials lists the selected trials of an expanded grid.
func (s Selection) Trials(all []trial.Trial) []trial.Trial {
	if len(s.Parts) == 0 {
		return Select(all, s.Shard, s.Limit, s.LimitPerClass)
	}
	in := map[string]bool{}
	for _, p := range s.Parts {
		for _, t := range p.Trials(all) {
			in[t.ID] = true
		}
	}
	var out []trial.Trial
	for _, t := range all {
		if in[t.ID] {
			out = append(out, t)
		}
	}
	return out
}

func writeSelection(dir string, s Selection) error {
	if s.Shard.Count == 0 {
		s.Shard = Shard{1, 1}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode selection: %w", err)
	}
	return writeAtomic(filepath.Join(dir, SelectionFile), append(b, '\n'))
}

// writeAtomic writes a file under a temporary name and renames it, so
// that the file is either absent or complete.
func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := writeSynced(tmp, data); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// readSelection reads a run's selection. Without it the plan is
// incomplete (the run died before its first trial, or was written by a
// version that wrote the grid first): resuming would have to guess, and a
// guess of "the whole grid" could spend far more than was asked for.
func readSelection(dir string) (Selection, error) {
	path := filepath.Join(dir, SelectionFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Selection{}, fmt.Errorf("%w: %s has no %s, so which trials it was meant to run is unknown; start the run again with a fresh --out", ErrRunDir, dir, SelectionFile)
	}
	if err != nil {
		return Selection{}, fmt.Errorf("read selection: %w", err)
	}
	var s Selection
	if err := json.Unmarshal(b, &s); err != nil {
		return Selection{}, fmt.Errorf("%w: %s: %w", ErrRunDir, path, err)
	}
	if err := s.check(); err != nil {
		return Selection{}, fmt.Errorf("%w: %s: %w", ErrRunDir, path, err)
	}
	return s, nil
}

func (s Selection) check() error {
	if s.Shard.Count < 1 || s.Shard.Index < 1 || s.Shard.Index > s.Shard.Count {
		return fmt.Errorf("shard %d/%d is not i/n with 1 <= i <= n", s.Shard.Index, s.Shard.Count)
	}
	if s.Limit < 0 || s.LimitPerClass < 0 {
		return errors.New("limit and limit_per_class must not be negative")
	}
	for _, p := range s.Parts {
		if err := p.check(); err != nil {
			return err
		}
	}
	return nil
}

// Shard selects a deterministic subset of a grid: trial i of n.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ParseShard reads "i/n" (1-based), strictly: "2/4x" is refused, not
// read as 2/4.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{1, 1}, nil
	}
	is, ns, ok := strings.Cut(s, "/")
	i, ierr := strconv.Atoi(is)
	n, nerr := strconv.Atoi(ns)
	if !ok || ierr != nil || nerr != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("%w: --shard wants i/n with 1 <= i <= n, got %q", ErrSelection, s)
	}
	return Shard{Index: i, Count: n}, nil
}

// The environment variables ShardFromEnv reads (bench --shard auto).
const (
	// EnvShardIndex is the 0-based completion index Kubernetes sets in
	// every pod of an Indexed Job.
	EnvShardIndex = "JOB_COMPLETION_INDEX"
	// EnvShardCount is the number of shards; set it to the Job's
	// completions (Kubernetes does not expose that to the pod).
	EnvShardCount = "MCPSEC_SHARD_COUNT"
)

// ShardFromEnv maps a 0-based completion index and a shard count from the
// environment to a shard: index 0 of n is shard 1/n, index n-1 is n/n.
// A missing, non-numeric or out-of-range value is an error naming the
// variable.
func ShardFromEnv(getenv func(string) string) (Shard, error) {
	read := func(name string) (int, error) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return 0, fmt.Errorf("%w: --shard auto: %s is not set", ErrConfig, name)
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("%w: --shard auto: %s=%q is not a whole number", ErrConfig, name, v)
		}
		return n, nil
	}
	count, err := read(EnvShardCount)
	if err != nil {
		return Shard{}, err
	}
	index, err := read(EnvShardIndex)
	if err != nil {
		return Shard{}, err
	}
	if count < 1 {
		return Shard{}, fmt.Errorf("%w: --shard auto: %s=%d, want at least 1", ErrConfig, EnvShardCount, count)
	}
	if index < 0 || index >= count {
		return Shard{}, fmt.Errorf("%w: --shard auto: %s=%d is outside 0..%d (%s=%d)", ErrConfig, EnvShardIndex, index, count-1, EnvShardCount, count)
	}
	return Shard{Index: index + 1, Count: count}, nil
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
	Workers  int // trials run at once
	Skipped  int // already recorded (resume)
	Ran      int
	Errored  int
	Excluded map[string]string // model -> why it was skipped
	Elapsed  time.Duration
}

// Select applies sharding and sampling to an expanded grid.
//
// perClass keeps at most N trials of each (model, arm, class), spread
// round-robin over its (register, objective) cells. limit then keeps at
// most N trials in all, spread round-robin over every (model, arm, class,
// register, objective) cell: a cell gets a second trial only once every
// cell has one, and each next cell is the one whose class, register,
// objective, model and arm have been picked least so far, so a small
// sample already spans every value of every key.
func Select(trials []trial.Trial, shard Shard, limit, perClass int) []trial.Trial {
	var in []trial.Trial
	for _, t := range trials {
		if shard.Has(t.ID) {
			in = append(in, t)
		}
	}
	if perClass > 0 {
		var order []string
		groups := map[string][]trial.Trial{}
		for _, t := range in {
			k := t.Model + "\x1f" + t.Arm + "\x1f" + t.AttackClass
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], t)
		}
		keep := map[string]bool{}
		for _, k := range order {
			for _, t := range spread(groups[k], []func(trial.Trial) string{byRegister, byObjective}, perClass) {
				keep[t.ID] = true
			}
		}
		in = slices.DeleteFunc(in, func(t trial.Trial) bool { return !keep[t.ID] })
	}
	if limit > 0 && len(in) > limit {
		in = spread(in, []func(trial.Trial) string{byClass, byRegister, byObjective, byModel, byArm}, limit)
	}
	return in
}

func byClass(t trial.Trial) string     { return t.AttackClass }
func byRegister(t trial.Trial) string  { return t.Register }
func byObjective(t trial.Trial) string { return t.Objective }
func byModel(t trial.Trial) string     { return t.Model }
func byArm(t trial.Trial) string       { return t.Arm }

// spread picks total trials round-robin over the cells that dims define.
// In each round every cell with trials left gives one, in the order that
// keeps the picks of every dimension's values most even: the next cell is
// the one whose first-dimension value was picked least, then whose other
// values were (summed), ties broken in diagonal order.
func spread(in []trial.Trial, dims []func(trial.Trial) string, total int) []trial.Trial {
	if total >= len(in) {
		return in
	}
	type cell struct {
		vals   []string
		trials []trial.Trial
	}
	var cells []*cell
	index := map[string]*cell{}
	for _, t := range in {
		vals := make([]string, len(dims))
		for i, d := range dims {
			vals[i] = d(t)
		}
		k := strings.Join(vals, "\x1f")
		c := index[k]
		if c == nil {
			c = &cell{vals: vals}
			index[k] = c
			cells = append(cells, c)
		}
		c.trials = append(c.trials, t)
	}
	// Ties go to the cells in diagonal order: the cells whose value
	// indexes differ from the first dimension's by the same offsets form a
	// line that crosses every value of every dimension once, so taking
	// whole lines keeps each dimension even.
	idx := make([]map[string]int, len(dims))
	for i := range dims {
		idx[i] = map[string]int{}
		for _, c := range cells {
			if _, ok := idx[i][c.vals[i]]; !ok {
				idx[i][c.vals[i]] = len(idx[i])
			}
		}
	}
	diag := func(c *cell) []int {
		key := make([]int, 0, len(dims))
		v0 := idx[0][c.vals[0]]
		for i := 1; i < len(dims); i++ {
			n := len(idx[i])
			key = append(key, ((idx[i][c.vals[i]]-v0)%n+n)%n)
		}
		return append(key, v0)
	}
	slices.SortStableFunc(cells, func(a, b *cell) int { return slices.Compare(diag(a), diag(b)) })
	counts := make([]map[string]int, len(dims))
	for i := range counts {
		counts[i] = map[string]int{}
	}
	// less compares two cells by how often their values were picked: the
	// first dimension's alone, then the sum over the others.
	less := func(a, b *cell) bool {
		if ca, cb := counts[0][a.vals[0]], counts[0][b.vals[0]]; ca != cb {
			return ca < cb
		}
		sa, sb := 0, 0
		for i := 1; i < len(dims); i++ {
			sa += counts[i][a.vals[i]]
			sb += counts[i][b.vals[i]]
		}
		return sa < sb
	}
	out := make([]trial.Trial, 0, total)
	for round := 0; len(out) < total; round++ {
		var open []*cell
		for _, c := range cells {
			if round < len(c.trials) {
				open = append(open, c)
			}
		}
		if len(open) == 0 {
			break
		}
		for len(open) > 0 && len(out) < total {
			best := 0
			for i := 1; i < len(open); i++ {
				if less(open[i], open[best]) {
					best = i
				}
			}
			c := open[best]
			open = slices.Delete(open, best, best+1)
			out = append(out, c.trials[round])
			for i := range dims {
				counts[i][c.vals[i]]++
			}
		}
	}
	return out
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
		if opts.Limit < 0 || opts.LimitPerClass < 0 {
			return Result{}, fmt.Errorf("%w: --limit and --limit-per-class must not be negative", ErrSelection)
		}
		if err := prepareDir(opts.Out); err != nil {
			return Result{}, err
		}
		b, err := yaml.Marshal(g)
		if err != nil {
			return Result{}, fmt.Errorf("encode config: %w", err)
		}
		// The plan is complete once config.yaml exists: the selection is
		// written first, each file atomically.
		if err := writeSelection(opts.Out, sel); err != nil {
			return Result{}, err
		}
		if err := writeAtomic(filepath.Join(opts.Out, ConfigFile), b); err != nil {
			return Result{}, err
		}
	}
	opts.Shard, opts.Limit, opts.LimitPerClass = sel.Shard, sel.Limit, sel.LimitPerClass
	trials := sel.Trials(g.Expand())
	res := Result{Planned: len(trials), Excluded: map[string]string{}}

	// Models whose key is missing are skipped with one log line each,
	// never replaced by anything else.
	usable := map[string]bool{}
	for _, m := range g.Models {
		if model.IsControl(m) {
			usable[m] = true
			continue
		}
		if err := CheckModel(opts.Env, m); err != nil {
			res.Excluded[m] = err.Error()
			fmt.Fprintf(logw, "skipping model %s: %v\n", m, err)
			continue
		}
		usable[m] = true
	}

	log, done, err := trial.OpenLog(filepath.Join(opts.Out, TrialsFile), opts.RetryErrors)
	if err != nil {
		return res, err
	}
	defer log.Close()
	if opts.Resume {
		if err := repairPacks(opts.Out, done, logw); err != nil {
			return res, err
		}
	}
	var pending []trial.Trial
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
	work := make(chan trial.Trial)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	// More workers than trials would only idle.
	workers := max(1, min(g.Concurrency, MaxConcurrency, len(pending)))
	res.Workers = workers
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Each worker packs the traces of its trials into a file of its own
	// (trace.Pack), named after this session so that a resumed run, or a
	// merge of shards, never writes into another session's pack.
	session, err := sessionID()
	if err != nil {
		return res, err
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("%s%s-%02d%s", trace.PackPrefix, session, w+1, trace.Ext)
			pack, perr := trace.CreatePack(filepath.Join(opts.Out, TracesDir, name), path.Join(TracesDir, name))
			if perr != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = perr
				}
				mu.Unlock()
				cancel()
				return
			}
			defer closePack(pack, filepath.Join(opts.Out, TracesDir, name), &mu, &firstErr)
			for t := range work {
				var tw *trace.Writer
				rec, err := runTrial(ctx, env, g, t, func() (*trace.Writer, error) {
					var err error
					tw, err = pack.Trial()
					return tw, err
				})
				if tw != nil {
					// Set-up errors return before the trace is ended.
					if cerr := tw.Close(); cerr != nil && err == nil {
						err = cerr
					}
				}
				if err == nil && ctx.Err() != nil && rec.Error != nil {
					// A trial cut short by cancellation is not recorded:
					// resume will run it again.
					continue
				}
				if err == nil {
					tw.Ref().Set(&rec)
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

// repairPacks cuts what a crash left after the last recorded trial of
// each trace pack (a torn member, traces of trials that will run again),
// and removes packs no record names. Only files named as packs are
// touched; traces of older runs, one file per trial, are left alone.
func repairPacks(dir string, done map[string]trial.Record, logw io.Writer) error {
	type end struct{ member, text int64 }
	ends := map[string]end{}
	for _, r := range done {
		ref := trace.RefOf(r)
		if !ref.Packed() {
			continue
		}
		e, ok := ends[ref.Path]
		stop := ref.Offset + ref.Bytes
		switch {
		case !ok || ref.Member > e.member:
			ends[ref.Path] = end{ref.Member, stop}
		case ref.Member == e.member && stop > e.text:
			ends[ref.Path] = end{e.member, stop}
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, TracesDir))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("repair traces: %w", err)
	}
	for _, de := range entries {
		name := de.Name()
		if !de.Type().IsRegular() || !strings.HasPrefix(name, trace.PackPrefix) || !strings.HasSuffix(name, trace.Ext) {
			continue
		}
		file := filepath.Join(dir, TracesDir, name)
		e, ok := ends[path.Join(TracesDir, name)]
		if !ok {
			if err := os.Remove(file); err != nil {
				return fmt.Errorf("repair traces: %w", err)
			}
			fmt.Fprintf(logw, "resume: removed %s: no recorded trial's trace is in it\n", file)
			continue
		}
		cut, err := trace.RepairPack(file, e.member, e.text)
		if err != nil {
			// The records stay valid and their trials are not run again;
			// only reading those traces will fail, and it says why.
			fmt.Fprintf(logw, "resume: warning: %v\n", err)
			continue
		}
		if cut {
			fmt.Fprintf(logw, "resume: repaired %s: cut what followed its last recorded trial\n", file)
		}
	}
	return nil
}

// sessionID names the packs of one sweep session.
func sessionID() (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("session id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// closePack closes a worker's pack; a pack no trial was written to is
// removed rather than left as an empty file.
func closePack(p *trace.Pack, file string, mu *sync.Mutex, firstErr *error) {
	err := p.Close()
	if err == nil {
		if st, serr := os.Stat(file); serr == nil && st.Size() == 0 {
			err = os.Remove(file)
		}
	}
	if err != nil {
		mu.Lock()
		if *firstErr == nil {
			*firstErr = err
		}
		mu.Unlock()
	}
}

// CheckModel builds a model once before a sweep so that a missing key
// skips it up front (and a dry run can say so). A replay directory only
// needs its spec file: its cassettes are per trial.
func CheckModel(env Env, spec string) error {
	if dir, ok := strings.CutPrefix(spec, model.ProviderReplay+":"); ok {
		if _, err := os.Stat(filepath.Join(dir, model.SpecFile)); err != nil {
			return fmt.Errorf("%w: %s: no recording there: %v", model.ErrBadSpec, spec, err)
		}
		return nil
	}
	if env.NewModel != nil {
		_, err := env.NewModel(spec, trial.Trial{Model: spec})
		return err
	}
	_, err := model.New(spec, model.Options{Getenv: env.Getenv})
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
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("%w: %s is a file, not a directory; pick another --out", ErrRunDir, dir)
	}
	entries, err := os.ReadDir(dir)
	if err == nil && len(entries) > 0 {
		return fmt.Errorf("%w: %s is not empty; pick another --out, or continue that run with --resume %s", ErrRunDir, dir, dir)
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
