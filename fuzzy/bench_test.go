package fuzzy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agnivade/levenshtein"
	"github.com/pattern-dialect/dialect/morph"
)

// benchVocab returns the built-in vocabulary padded to n names with real
// WordNet verbs as normal custom verbs (every 7th single-word lemma, so the
// lengths and letters are those of real words).
func benchVocab(n int) []Entry {
	es := testEntries()
	count := 0
	seen := map[string]bool{}
	for _, e := range es {
		for _, s := range append([]string{e.Verb}, e.Names...) {
			seen[s] = true
			count++
		}
	}
	all := morph.Default().Verbs()
	for i := 0; count < n && i < len(all); i += 7 {
		v := all[i]
		if strings.ContainsAny(v, " -'") || seen[v] {
			continue
		}
		seen[v] = true
		es = append(es, Entry{Verb: v})
		count++
	}
	return es
}

// naive is the design notes' resolver: a linear Levenshtein over every
// name of every verb.
type naive struct {
	names []string
	verbs []string
}

func newNaive(es []Entry) *naive {
	n := &naive{}
	for _, e := range es {
		for _, s := range append([]string{e.Verb}, e.Names...) {
			n.names = append(n.names, s)
			n.verbs = append(n.verbs, e.Verb)
		}
	}
	return n
}

func (n *naive) resolve(tok string) string {
	t := strings.ToLower(tok)
	best, bestD := "", 3
	for i, s := range n.names {
		if d := levenshtein.ComputeDistance(t, s); d < bestD {
			best, bestD = n.verbs[i], d
		}
	}
	return best
}

var benchTokens = []struct{ name, tok string }{
	{"exact", "search"},
	{"case", "Search"},
	{"morph", "searching"},
	{"typo", "serch"},
	{"miss", "xylophonic"},
	{"miss6", "strong"}, // a word of llm_outputs: guarded, short enough for the deletion index
}

func BenchmarkResolve(b *testing.B) {
	for _, size := range []int{50, 1000} {
		es := benchVocab(size)
		r, err := New(es, Options{})
		if err != nil {
			b.Fatal(err)
		}
		nv := newNaive(es)
		for _, tc := range benchTokens {
			want := r.Resolve(tc.tok)
			if miss := strings.HasPrefix(tc.name, "miss"); !miss && want.Verb != "search" || miss && want.OK() {
				b.Fatalf("%s: %q resolved to %+v", tc.name, tc.tok, want)
			}
			b.Run(fmt.Sprintf("%s/aliases=%d", tc.name, size), func(b *testing.B) {
				b.SetBytes(int64(len(tc.tok)))
				b.ReportAllocs()
				cpuTimed(b, func() { r.Resolve(tc.tok) })
			})
			b.Run(fmt.Sprintf("%s/aliases=%d/naive", tc.name, size), func(b *testing.B) {
				b.SetBytes(int64(len(tc.tok)))
				b.ReportAllocs()
				cpuTimed(b, func() { nv.resolve(tc.tok) })
			})
		}
	}
}

// cpuTimed runs fn b.N times and reports, besides the usual wall time,
// the thread's CPU time per operation (cpu-ns/op) where the OS tells it.
func cpuTimed(b *testing.B, fn func()) {
	lockThread()
	defer unlockThread()
	start, ok := threadCPU()
	n := 0
	for b.Loop() {
		fn()
		n++
	}
	if end, ok2 := threadCPU(); ok && ok2 && n > 0 {
		b.ReportMetric(float64(end-start)/float64(n), "cpu-ns/op")
	}
}

func BenchmarkNew(b *testing.B) {
	es := benchVocab(1000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(es, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
