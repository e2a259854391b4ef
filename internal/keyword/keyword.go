// Package keyword finds which of a fixed list of byte strings occur in a
// text, in one pass over the text (Aho-Corasick).
//
// The scanner's lexicon, its raw-text hints and the content filter's
// prefilter all ask the same question: which keywords occur somewhere in
// this text? None of them needs positions or counts, only the union of the
// keywords' values (feature bits, hint bits, rule bits). So every state of
// the automaton carries the union of the values of all keywords that end
// there, suffixes included, and matching is one transition and one OR per
// byte of text.
//
// The layout is compact on purpose: a general-purpose automaton with a
// 256-way table per state costs kilobytes per state, and the scanner's
// lexicon has about 16,000 states; that made the first scan of a process
// cost a second and tens of megabytes. Here most states (in the lexicon,
// 13 in 16) have at most one child: such a state holds that child and its
// byte, and a failure link. The root, the states that branch and the
// states within rowDepth bytes of the root get a dense row, indexed by
// byte class (the bytes that occur in no keyword share one class) and
// with failure links already followed, so their step is one table lookup.
package keyword

import (
	"slices"
	"strings"
	"unsafe"
)

// rowDepth is the depth down to which every state has a dense row. Text
// keeps the automaton near the root (most bytes start no keyword or end
// one after a few bytes), so these states take most steps; without a row
// a mismatch there walks a failure link first. On real servers'
// descriptions, rows down to depth 3 made the scanner's hint pass about a
// third faster and its lexicon pass a few per cent, for a quarter more
// table in the lexicon and twice the (small) hint table; deeper rows
// gained little more.
const rowDepth = 3

// state is one automaton state. A state with a dense row (row >= 0) finds
// every transition in dense[row:row+classes]; any other has at most one
// child and otherwise falls back to its failure target.
type state struct {
	row   int32
	child int32 // the only child, 0 for none (the root is nobody's child)
	fail  int32
	label byte // the byte into child
}

// Index is an immutable keyword automaton; it is safe for concurrent use.
type Index struct {
	class   [256]uint16
	classes int
	states  []state
	// out[s] is the union of the values of the keywords that are suffixes
	// of the text spelled by state s; out2 is the same for the second
	// value word of an index built by NewPair (nil otherwise).
	out   []uint64
	out2  []uint64
	dense []int32
}

// New builds the index of patterns. values[i] is the value of patterns[i];
// a pattern listed several times gets the union of its values. An empty
// pattern never matches (there is nothing to find).
func New(patterns []string, values []uint64) *Index {
	if len(values) != len(patterns) {
		panic("keyword: patterns and values differ in length")
	}
	return build(patterns, values, nil)
}

// NewPair builds an index whose values are two words wide: lo[i] and
// hi[i] belong to patterns[i]. Two keyword lists that are asked about the
// same text share one automaton this way, so the text is read once for
// both, and each list keeps a full word of value bits.
func NewPair(patterns []string, lo, hi []uint64) *Index {
	if len(lo) != len(patterns) || len(hi) != len(patterns) {
		panic("keyword: patterns and values differ in length")
	}
	return build(patterns, lo, hi)
}

func build(patterns []string, values, values2 []uint64) *Index {
	// Sorted, distinct patterns let the trie be built without maps: each
	// pattern shares its longest common prefix with the previous one.
	order := make([]int, 0, len(patterns))
	for i, p := range patterns {
		if p != "" {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(patterns[a], patterns[b]) })

	// Trie in insertion order, with each node's children in a linked
	// list in increasing label order (sorted input makes them so).
	size := 1
	for _, i := range order {
		size += len(patterns[i])
	}
	parent := make([]int32, 1, size)
	tlabel := make([]byte, 1, size)
	val := make([]uint64, 1, size)
	var val2 []uint64
	if values2 != nil {
		val2 = make([]uint64, 1, size)
	}
	firstKid := make([]int32, 1, size)
	lastKid := make([]int32, 1, size)
	nextSib := make([]int32, 1, size)
	var path []int32 // path[d] is the node at depth d+1 of the previous pattern
	prev := ""
	for _, i := range order {
		p := patterns[i]
		lcp := 0
		for lcp < len(p) && lcp < len(prev) && p[lcp] == prev[lcp] {
			lcp++
		}
		path = path[:lcp]
		cur := int32(0)
		if lcp > 0 {
			cur = path[lcp-1]
		}
		for d := lcp; d < len(p); d++ {
			id := int32(len(parent))
			parent = append(parent, cur)
			tlabel = append(tlabel, p[d])
			val = append(val, 0)
			if val2 != nil {
				val2 = append(val2, 0)
			}
			firstKid = append(firstKid, 0)
			lastKid = append(lastKid, 0)
			nextSib = append(nextSib, 0)
			if firstKid[cur] == 0 {
				firstKid[cur] = id
			} else {
				nextSib[lastKid[cur]] = id
			}
			lastKid[cur] = id
			path = append(path, id)
			cur = id
		}
		val[cur] |= values[i]
		if val2 != nil {
			val2[cur] |= values2[i]
		}
		prev = p
	}

	// Renumber breadth-first so that children are consecutive. (Node 0,
	// the root, is never anyone's child, so 0 ends a sibling list.)
	n := len(parent)
	bfs := make([]int32, 0, n) // bfs[new] = old
	newID := make([]int32, n)
	bfs = append(bfs, 0)
	t := &trie{
		first: make([]int32, n+1),
		label: make([]byte, n),
		fail:  make([]int32, n),
	}
	ix := &Index{states: make([]state, n), out: make([]uint64, n)}
	if val2 != nil {
		ix.out2 = make([]uint64, n)
	}
	for q := 0; q < len(bfs); q++ {
		old := bfs[q]
		t.first[q] = int32(len(bfs))
		t.label[q] = tlabel[old]
		ix.out[q] = val[old]
		if val2 != nil {
			ix.out2[q] = val2[old]
		}
		for k := firstKid[old]; k != 0; k = nextSib[k] {
			newID[k] = int32(len(bfs))
			bfs = append(bfs, k)
		}
	}
	t.first[n] = int32(n)

	// Failure links and output unions, breadth-first: a state's failure
	// target is shallower, so it is complete when the state is reached.
	depth := make([]int32, n)
	for s := 1; s < n; s++ {
		p := newID[parent[bfs[s]]]
		depth[s] = depth[p] + 1
		c := t.label[s]
		f := int32(0)
		if p != 0 {
			f = t.fail[p]
			for {
				if k := t.child(f, c); k >= 0 {
					f = k
					break
				}
				if f == 0 {
					break
				}
				f = t.fail[f]
			}
		}
		t.fail[s] = f
		ix.out[s] |= ix.out[f]
		if val2 != nil {
			ix.out2[s] |= ix.out2[f]
		}
	}

	// Byte classes: every byte that occurs in a keyword is its own
	// class; the others share class 0, on which every state goes to the
	// root.
	var used [256]bool
	for _, c := range t.label[1:] {
		used[c] = true
	}
	ix.classes = 1
	var rep [257]byte
	for c := 0; c < 256; c++ {
		if used[c] {
			ix.class[c] = uint16(ix.classes)
			rep[ix.classes] = byte(c)
			ix.classes++
		}
	}
	rows := 0
	for s := 0; s < n; s++ {
		if s == 0 || t.first[s+1]-t.first[s] > 1 || depth[s] <= rowDepth {
			rows++
		}
	}
	ix.dense = make([]int32, 0, rows*ix.classes)
	for s := 0; s < n; s++ {
		lo, hi := t.first[s], t.first[s+1]
		st := state{row: -1, fail: t.fail[s]}
		switch {
		case s == 0 || hi-lo > 1 || depth[s] <= rowDepth:
			// The root always has a row: matching relies on it to end
			// the failure walk. A row starts as the failure target's
			// transitions (a shallower state, already complete), then
			// the state's own children override them.
			st.row = int32(len(ix.dense))
			for k := 0; k < ix.classes; k++ {
				next := int32(0)
				if s != 0 && k > 0 {
					next = ix.step(st.fail, rep[k])
				}
				ix.dense = append(ix.dense, next)
			}
			for c := lo; c < hi; c++ {
				ix.dense[st.row+int32(ix.class[t.label[c]])] = c
			}
		case hi-lo == 1:
			st.child = lo
			st.label = t.label[lo]
		}
		ix.states[s] = st
	}
	return ix
}

// trie is the breadth-first automaton the index is built from: the
// children of state s are the states first[s]..first[s+1], label[k] is
// the byte into state k.
type trie struct {
	first []int32
	label []byte
	fail  []int32
}

// child returns the child of s on byte c, or -1.
func (t *trie) child(s int32, c byte) int32 {
	lo, hi := t.first[s], t.first[s+1]
	for k := lo; k < hi; k++ {
		if l := t.label[k]; l >= c {
			if l == c {
				return k
			}
			return -1
		}
	}
	return -1
}

// step is the automaton's transition from s on byte c. It reads only
// states below s, so New can use it while it fills in later states.
func (ix *Index) step(s int32, c byte) int32 {
	for {
		st := &ix.states[s]
		if st.row >= 0 {
			return ix.dense[st.row+int32(ix.class[c])]
		}
		if st.child != 0 && st.label == c {
			return st.child
		}
		s = st.fail
	}
}

// Union returns the union of the values of every pattern that occurs in
// text.
func (ix *Index) Union(text []byte) uint64 { return union(ix, text) }

// UnionString is Union for a string, without copying it.
func (ix *Index) UnionString(text string) uint64 { return union(ix, text) }

func union[T string | []byte](ix *Index, text T) uint64 {
	var u uint64
	s := int32(0)
	states, dense, out, class := ix.states, ix.dense, ix.out, &ix.class
	for i := 0; i < len(text); i++ {
		c := text[i]
		// The step is written out here rather than calling ix.step: this
		// loop is the scanner's hottest.
		for {
			st := &states[s]
			if st.row >= 0 {
				s = dense[st.row+int32(class[c])]
				break
			}
			if st.child != 0 && st.label == c {
				s = st.child
				break
			}
			// Not the root (the root has a row).
			s = st.fail
		}
		u |= out[s]
	}
	return u
}

// UnionPairString returns both value words' unions for text, for an
// index built by NewPair (the second word is 0 for one built by New).
func (ix *Index) UnionPairString(text string) (lo, hi uint64) {
	if ix.out2 == nil {
		return union(ix, text), 0
	}
	s := int32(0)
	states, dense, out, out2, class := ix.states, ix.dense, ix.out, ix.out2, &ix.class
	for i := 0; i < len(text); i++ {
		c := text[i]
		// The same step as union's, written out for the same reason.
		for {
			st := &states[s]
			if st.row >= 0 {
				s = dense[st.row+int32(class[c])]
				break
			}
			if st.child != 0 && st.label == c {
				s = st.child
				break
			}
			s = st.fail
		}
		lo |= out[s]
		hi |= out2[s]
	}
	return lo, hi
}

// States is the number of states of the automaton.
func (ix *Index) States() int { return len(ix.states) }

// Bytes is the memory the index holds, in bytes.
func (ix *Index) Bytes() int {
	return int(unsafe.Sizeof(*ix)) + int(unsafe.Sizeof(state{}))*cap(ix.states) + 8*cap(ix.out) + 8*cap(ix.out2) + 4*cap(ix.dense)
}
