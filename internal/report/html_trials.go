package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpsec/mcpsec/internal/trace"
	"github.com/mcpsec/mcpsec/internal/trial"
)

// trialIndex is the list of trials the page's trace viewer can open: every
// attacked trial of trials.jsonl, capped per (model, arm, class, register)
// cell. It is embedded column by column: boolean fields packed into one
// number per row, every other value interned, so thousands of trials cost
// tens of bytes each.
type trialIndex struct {
	total  int // attacked trials in the run
	capped int // attacked trials left out by the per-cell cap
	rows   []indexRow
	lines  [][]byte // the record line of each row, for the score record
}

// indexRow keeps what choosing the embedded traces needs; the record's
// other fields are parsed again from its line when the page data is
// written, so thousands of listed trials do not each hold a map.
type indexRow struct {
	group string // model, arm, class: the heatmap cell at register "*"
	met   bool
	block bool
	reg   string
	trace trace.Ref
}

// recordFieldOrder is the field order of a trial record, so the score
// record reads as it does in trials.jsonl.
var recordFieldOrder = func() []string {
	var out []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
				walk(f.Type) // embedded keys, such as trial.Trial's
				continue
			}
			if tag != "" && tag != "-" {
				out = append(out, tag)
			}
		}
	}
	walk(reflect.TypeOf(trial.Record{}))
	return out
}()

func unquote(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// readTrialIndex reads runDir/trials.jsonl. Aggregate has already
// rejected malformed lines, so a line that does not parse here can only be
// a torn last line, which Aggregate reported as a warning; it is skipped.
func readTrialIndex(runDir string, perCell int) (*trialIndex, error) {
	path := filepath.Join(runDir, TrialsFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	defer f.Close()
	idx := &trialIndex{}
	perCellCount := map[string]int{}
	br := bufio.NewReaderSize(f, 1<<16)
	for {
		line, rerr := br.ReadBytes('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return nil, fmt.Errorf("read %s: %w", path, rerr)
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			var fields map[string]json.RawMessage
			if json.Unmarshal(t, &fields) == nil {
				idx.add(fields, t, perCell, perCellCount)
			}
		}
		if rerr != nil {
			break
		}
	}
	return idx, nil
}

func (idx *trialIndex) add(fields map[string]json.RawMessage, line []byte, perCell int, counts map[string]int) {
	class := unquote(fields["attack_class"])
	if class == BenignClass {
		return // benign trials have no heatmap cell to open them from
	}
	idx.total++
	model, arm, reg := unquote(fields["model"]), unquote(fields["arm"]), unquote(fields["register"])
	cell := model + "\x00" + arm + "\x00" + class + "\x00" + reg
	if counts[cell] >= perCell {
		idx.capped++
		return
	}
	counts[cell]++
	isTrue := func(k string) bool { return string(fields[k]) == "true" }
	idx.rows = append(idx.rows, indexRow{group: model + "\x00" + arm + "\x00" + class,
		met: isTrue("objective_met"), block: isTrue("blocked"), reg: reg, trace: traceRef(fields)})
	idx.lines = append(idx.lines, append([]byte(nil), line...))
}

// traceRef reads where a record's trace lies (a pack's span, or a file).
func traceRef(fields map[string]json.RawMessage) trace.Ref {
	num := func(k string) int64 {
		n, _ := strconv.ParseInt(string(fields[k]), 10, 64)
		return n
	}
	return trace.Ref{Path: unquote(fields["trace"]), Member: num("trace_member"), Offset: num("trace_offset"), Bytes: num("trace_bytes")}
}

// embedded holds the traces chosen for the page.
type embedded struct {
	count, bytes int
	kinds        []string
	kindID       map[string]int
	blobs        []json.RawMessage
	blobID       map[string]int
	byRow        map[int]json.RawMessage // row → {"ev": [...]}
}

// embedTraces chooses traces to embed within budget bytes: first one
// trial per heatmap cell where the attack succeeded, then one where it did
// not (a blocked one if any), then the rest cell by cell, register by
// register. Event data are deduplicated (the same tool listing recurs in
// every trial of a server) and long strings are cut.
func (idx *trialIndex) embedTraces(runDir string, budget int) *embedded {
	e := &embedded{kindID: map[string]int{}, blobID: map[string]int{}, byRow: map[int]json.RawMessage{}}
	if budget <= 0 || len(idx.rows) == 0 {
		return e
	}
	root, err := os.OpenRoot(runDir)
	if err != nil {
		return e
	}
	defer root.Close()
	var groups []string
	byGroup := map[string][]int{}
	for i, r := range idx.rows {
		if _, ok := byGroup[r.group]; !ok {
			groups = append(groups, r.group)
		}
		byGroup[r.group] = append(byGroup[r.group], i)
	}
	queues := make([][]int, len(groups))
	for gi, g := range groups {
		queues[gi] = priority(idx.rows, byGroup[g])
	}
	misses := 0
	for round := 0; misses < 64; round++ {
		progressed := false
		for gi := range queues {
			if len(queues[gi]) == 0 {
				continue
			}
			progressed = true
			row := queues[gi][0]
			queues[gi] = queues[gi][1:]
			if !e.try(root, idx, row, budget) {
				misses++
				if misses >= 64 {
					break
				}
			}
		}
		if !progressed {
			break
		}
	}
	return e
}

// priority orders a cell's rows: a successful attack, then a failed one
// (blocked first), then the rest alternating over registers.
func priority(rows []indexRow, in []int) []int {
	var out []int
	used := map[int]bool{}
	pick := func(ok func(r indexRow) bool) {
		for _, i := range in {
			if !used[i] && ok(rows[i]) {
				used[i] = true
				out = append(out, i)
				return
			}
		}
	}
	pick(func(r indexRow) bool { return r.met })
	pick(func(r indexRow) bool { return !r.met && r.block })
	pick(func(r indexRow) bool { return !r.met })
	byReg := map[string][]int{}
	var regs []string
	for _, i := range in {
		if used[i] {
			continue
		}
		r := rows[i].reg
		if _, ok := byReg[r]; !ok {
			regs = append(regs, r)
		}
		byReg[r] = append(byReg[r], i)
	}
	sort.Strings(regs)
	for more := true; more; {
		more = false
		for _, r := range regs {
			if len(byReg[r]) > 0 {
				out = append(out, byReg[r][0])
				byReg[r] = byReg[r][1:]
				more = true
			}
		}
	}
	return out
}

// maxTraceFile skips trace files too large to be worth sampling.
const maxTraceFile = 16 << 20

func (e *embedded) try(root *os.Root, idx *trialIndex, row, budget int) bool {
	ref := idx.rows[row].trace
	if ref.Path == "" || !filepath.IsLocal(ref.Path) {
		return false // a trace path outside the run directory is never read
	}
	if ref.Packed() {
		if ref.Bytes > maxTraceFile {
			return false
		}
	} else if st, err := root.Stat(ref.Path); err != nil || st.Size() > maxTraceFile {
		return false
	}
	rc, err := trace.OpenRef(root, ref)
	if err != nil {
		return false
	}
	defer rc.Close()
	evs, _ := trace.Read(rc) // a torn last line still yields the events before it
	if len(evs) == 0 {
		return false
	}
	type pending struct {
		key  string
		data json.RawMessage
	}
	var newBlobs []pending
	newKinds := map[string]int{}
	cost := 0
	local := map[string]int{}
	tuples := make([][4]int, 0, len(evs))
	for _, ev := range evs {
		data := cutStrings(ev.Data)
		k := string(data)
		id, ok := e.blobID[k]
		if !ok {
			if id, ok = local[k]; !ok {
				id = len(e.blobs) + len(newBlobs)
				local[k] = id
				newBlobs = append(newBlobs, pending{k, data})
				cost += len(data) + 1
			}
		}
		kid, ok := e.kindID[ev.Kind]
		if !ok {
			if kid, ok = newKinds[ev.Kind]; !ok {
				kid = len(e.kinds) + len(newKinds)
				newKinds[ev.Kind] = kid
				cost += len(ev.Kind) + 3
			}
		}
		tuples = append(tuples, [4]int{ev.Seq, kid, ev.Step, id})
		cost += 16
	}
	cost += len(idx.lines[row]) + 32
	if e.bytes+cost > budget {
		return false
	}
	for _, b := range newBlobs {
		e.blobID[b.key] = len(e.blobs)
		e.blobs = append(e.blobs, b.data)
	}
	kinds := make([]string, len(newKinds))
	for k, id := range newKinds {
		kinds[id-len(e.kinds)] = k
	}
	for _, k := range kinds {
		e.kindID[k] = len(e.kinds)
		e.kinds = append(e.kinds, k)
	}
	ev, _ := json.Marshal(tuples)
	e.byRow[row] = ev
	e.bytes += cost
	e.count++
	return true
}

// cutStrings shortens every string value longer than maxTraceString,
// saying how much was cut, and returns compact JSON.
func cutStrings(raw json.RawMessage) json.RawMessage {
	if len(raw) <= maxTraceString {
		var buf bytes.Buffer
		if json.Compact(&buf, raw) == nil {
			return buf.Bytes()
		}
		return raw
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return raw
	}
	out, err := json.Marshal(cutValue(v))
	if err != nil {
		return raw
	}
	return out
}

func cutValue(v any) any {
	switch x := v.(type) {
	case string:
		if len(x) <= maxTraceString {
			return x
		}
		cut := maxTraceString
		for cut > 0 && !utf8.RuneStart(x[cut]) {
			cut--
		}
		return x[:cut] + fmt.Sprintf("… [%d more bytes cut for the page; the full trace is in the run directory]", len(x)-cut)
	case []any:
		for i := range x {
			x[i] = cutValue(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = cutValue(x[k])
		}
	}
	return v
}

// pageData is the JSON the page's script reads. Columns follow the record
// field order; booleans are bits of one number per row ("flags"), other
// values index into the column's value table.
func (idx *trialIndex) pageData(e *embedded) []byte {
	fieldsOf := func(ri int) map[string]json.RawMessage {
		var f map[string]json.RawMessage
		_ = json.Unmarshal(idx.lines[ri], &f) // add parsed it already
		return f
	}
	seen := map[string]bool{}
	notBool := map[string]bool{}
	for ri := range idx.rows {
		for k, v := range fieldsOf(ri) {
			seen[k] = true
			if string(v) != "true" && string(v) != "false" {
				notBool[k] = true
			}
		}
	}
	// Where a trace lies inside a pack means nothing on the page (which
	// says how to print a trace) and would cost a value per trial.
	delete(seen, "trace_member")
	delete(seen, "trace_offset")
	delete(seen, "trace_bytes")
	var cols []string
	for _, k := range recordFieldOrder {
		if seen[k] {
			cols = append(cols, k)
			delete(seen, k)
		}
	}
	var extra []string
	for k := range seen {
		extra = append(extra, k)
	}
	sort.Strings(extra)
	cols = append(cols, extra...)
	var bools, others []string
	for _, c := range cols {
		if !notBool[c] && len(bools) < 52 { // bits of a JavaScript number
			bools = append(bools, c)
		} else {
			others = append(others, c)
		}
	}
	vals := make([][]json.RawMessage, len(others))
	valID := make([]map[string]int, len(others))
	for i := range others {
		valID[i] = map[string]int{}
	}
	rows := make([][]int64, len(idx.rows))
	for ri := range idx.rows {
		fields := fieldsOf(ri)
		row := make([]int64, 0, len(others)+1)
		var flags int64
		for bi, c := range bools {
			if string(fields[c]) == "true" {
				flags |= 1 << bi
			}
		}
		row = append(row, flags)
		for ci, c := range others {
			v, ok := fields[c]
			if !ok {
				row = append(row, -1)
				continue
			}
			if c == "trace" {
				// The usual paths are rebuilt by the script.
				base := "traces/" + unquote(fields["trial_id"]) + ".jsonl"
				if p := unquote(v); p == base {
					row = append(row, -2)
					continue
				} else if p == base+".gz" {
					row = append(row, -3)
					continue
				}
			}
			var buf bytes.Buffer
			if json.Compact(&buf, v) != nil {
				buf.Reset()
				buf.Write(v)
			}
			k := buf.String()
			id, ok := valID[ci][k]
			if !ok {
				id = len(vals[ci])
				valID[ci][k] = id
				vals[ci] = append(vals[ci], json.RawMessage(k))
			}
			row = append(row, int64(id))
		}
		rows[ri] = row
	}
	type traceOut struct {
		Row    int             `json:"row"`
		Record json.RawMessage `json:"rec"`
		Events json.RawMessage `json:"ev"`
	}
	out := struct {
		Bools  []string            `json:"bools"`
		Cols   []string            `json:"cols"`
		Vals   [][]json.RawMessage `json:"vals"`
		Rows   [][]int64           `json:"rows"`
		Kinds  []string            `json:"kinds"`
		Blobs  []json.RawMessage   `json:"blobs"`
		Traces []traceOut          `json:"traces"`
	}{Bools: bools, Cols: others, Vals: vals, Rows: rows, Kinds: []string{}, Blobs: []json.RawMessage{}, Traces: []traceOut{}}
	for i := range out.Vals {
		if out.Vals[i] == nil {
			out.Vals[i] = []json.RawMessage{}
		}
	}
	if e != nil {
		out.Kinds, out.Blobs = e.kinds, e.blobs
		if out.Kinds == nil {
			out.Kinds = []string{}
		}
		if out.Blobs == nil {
			out.Blobs = []json.RawMessage{}
		}
		var rowsWith []int
		for r := range e.byRow {
			rowsWith = append(rowsWith, r)
		}
		sort.Ints(rowsWith)
		for _, r := range rowsWith {
			out.Traces = append(out.Traces, traceOut{Row: r, Record: idx.lines[r], Events: e.byRow[r]})
		}
	}
	// json.Marshal escapes <, > and & inside strings, so no value can
	// close the script element the data sits in.
	b, err := json.Marshal(out)
	if err != nil {
		return []byte(`{}`)
	}
	return b
}
