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
// cost a second and tens of megabytes. Here states are numbered in
// breadth-first order, so the children of a state are consecutive and a
// state costs one label byte, two int32 and one uint64. States with many
// children (the root and the states right after a space) get a dense row
// of 256 transitions that already follows failure links, which keeps the
// busiest steps to one table lookup.
package keyword

import (
	"slices"
	"strings"
)

// denseMin is the number of children from which a state gets a dense row.
// Below it a linear scan of the labels is as fast as a table.
const denseMin = 6

// Index is an immutable keyword automaton; it is safe for concurrent use.
type Index struct {
	// first[s]..first[s+1] are the ids of the children of state s (one
	// extra entry closes the last state's range).
	first []int32
	// label[t] is the byte on the edge into state t.
	label []byte
	fail  []int32
	// out[s] is the union of the values of the keywords that are suffixes
	// of the text spelled by state s.
	out []uint64
	// row[s] >= 0 is the index of the dense 256-entry row of state s in
	// dense; each entry is the state after that byte, failure links
	// already followed.
	row   []int32
	dense []int32
}

// New builds the index of patterns. values[i] is the value of patterns[i];
// a pattern listed several times gets the union of its values. An empty
// pattern never matches (there is nothing to find).
func New(patterns []string, values []uint64) *Index {
	if len(values) != len(patterns) {
		panic("keyword: patterns and values differ in length")
	}
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
		prev = p
	}

	// Renumber breadth-first so that children are consecutive. (Node 0,
	// the root, is never anyone's child, so 0 ends a sibling list.)
	n := len(parent)
	bfs := make([]int32, 0, n) // bfs[new] = old
	newID := make([]int32, n)
	bfs = append(bfs, 0)
	ix := &Index{
		first: make([]int32, n+1),
		label: make([]byte, n),
		fail:  make([]int32, n),
		out:   make([]uint64, n),
		row:   make([]int32, n),
	}
	for q := 0; q < len(bfs); q++ {
		old := bfs[q]
		ix.first[q] = int32(len(bfs))
		ix.label[q] = tlabel[old]
		ix.out[q] = val[old]
		ix.row[q] = -1
		for k := firstKid[old]; k != 0; k = nextSib[k] {
			newID[k] = int32(len(bfs))
			bfs = append(bfs, k)
		}
	}
	ix.first[n] = int32(n)

	// Failure links and output unions, breadth-first: a state's failure
	// target is shallower, so it is complete when the state is reached.
	for s := 1; s < n; s++ {
		p := newID[parent[bfs[s]]]
		c := ix.label[s]
		f := int32(0)
		if p != 0 {
			f = ix.fail[p]
			for {
				if t := ix.child(f, c); t >= 0 {
					f = t
					break
				}
				if f == 0 {
					break
				}
				f = ix.fail[f]
			}
		}
		ix.fail[s] = f
		ix.out[s] |= ix.out[f]
	}

	// Dense rows for busy states, also breadth-first: the row of a state
	// falls back to the transitions of its failure target.
	for s := 0; s < n; s++ {
		// The root always has one: matching relies on it to stop the
		// failure walk.
		if s > 0 && ix.first[s+1]-ix.first[s] < denseMin {
			continue
		}
		r := int32(len(ix.dense))
		ix.dense = append(ix.dense, make([]int32, 256)...)
		for c := 0; c < 256; c++ {
			ix.dense[int(r)+c] = ix.delta(int32(s), byte(c))
		}
		ix.row[s] = r
	}
	return ix
}

// child returns the child of s on byte c, or -1.
func (ix *Index) child(s int32, c byte) int32 {
	lo, hi := ix.first[s], ix.first[s+1]
	for t := lo; t < hi; t++ {
		if l := ix.label[t]; l >= c {
			if l == c {
				return t
			}
			return -1
		}
	}
	return -1
}

// delta is the automaton's transition: the child on c, else the
// transition of the failure target, down to the root.
func (ix *Index) delta(s int32, c byte) int32 {
	for {
		if r := ix.row[s]; r >= 0 {
			return ix.dense[int(r)+int(c)]
		}
		if t := ix.child(s, c); t >= 0 {
			return t
		}
		if s == 0 {
			return 0
		}
		s = ix.fail[s]
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
	row, dense, label, first, fail, out := ix.row, ix.dense, ix.label, ix.first, ix.fail, ix.out
	for i := 0; i < len(text); i++ {
		c := text[i]
	step:
		for {
			if r := row[s]; r >= 0 {
				s = dense[int(r)+int(c)]
				break
			}
			for t, hi := first[s], first[s+1]; t < hi; t++ {
				if l := label[t]; l >= c {
					if l == c {
						s = t
						break step
					}
					break
				}
			}
			// s is not the root (the root has a dense row).
			s = fail[s]
		}
		u |= out[s]
	}
	return u
}

// States is the number of states of the automaton.
func (ix *Index) States() int { return len(ix.label) }

// Bytes is the memory the index holds, in bytes.
func (ix *Index) Bytes() int {
	return 4*cap(ix.first) + cap(ix.label) + 4*cap(ix.fail) + 8*cap(ix.out) + 4*cap(ix.row) + 4*cap(ix.dense)
}
