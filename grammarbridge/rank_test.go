package grammarbridge

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestStatsKey checks that the integer rankings ranked sorts by (key, and
// shortKey where the counts fit it) order stats exactly as better does.
func TestStatsKey(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pick := func() stats {
		return mkStats([]int32{0, 1, 2, 5, 1<<15 - 1}[r.IntN(5)], []int32{0, 0, 1, 7, 30, 1<<16 - 1, 1 << 20}[r.IntN(7)])
	}
	short := func(s stats) bool { return s.values() < 1<<15 && s.wildChars() < 1<<16 }
	for range 20000 {
		a, b := pick(), pick()
		ka, kb := a.key(), b.key()
		if better(a, b) != (ka < kb) || better(b, a) != (kb < ka) {
			t.Fatalf("%+v vs %+v: better %v/%v, keys %x %x", a, b, better(a, b), better(b, a), ka, kb)
		}
		if short(a) && short(b) {
			ka, kb = a.shortKey(), b.shortKey()
			if ka >= 1<<32 || kb >= 1<<32 || better(a, b) != (ka < kb) || better(b, a) != (kb < ka) {
				t.Fatalf("%+v vs %+v: better %v/%v, short keys %x %x", a, b, better(a, b), better(b, a), ka, kb)
			}
		}
	}
}

// TestSortKeys checks sortKeys (an insertion sort for a few keys, a radix
// sort for more) against a plain sort.
func TestSortKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := range radixKeys + 8 {
		for range 50 {
			keys := make([]rankKey, n)
			for i := range keys {
				// Few distinct ranks, so that ties on rank are common.
				keys[i] = rankKey(r.Uint64N(4)<<32 | uint64(i))
			}
			want := slices.Clone(keys)
			slices.Sort(want)
			sortKeys(keys)
			if !slices.Equal(keys, want) {
				t.Fatalf("%d keys: sorted %v, want %v", n, keys, want)
			}
		}
	}
	for _, n := range []int{radixKeys, 300, 1000} {
		for _, rank := range []func() uint64{
			func() uint64 { return 7 },
			func() uint64 { return r.Uint64N(4) << 16 },
			func() uint64 { return r.Uint64N(1 << 32) },
			func() uint64 { return 1<<31 | r.Uint64N(3)<<16 | r.Uint64N(300) },
		} {
			keys := make([]rankKey, n)
			for i := range keys {
				keys[i] = rankKey(rank()<<32 | uint64(i))
			}
			want := slices.Clone(keys)
			slices.Sort(want)
			sortKeys(keys)
			if !slices.Equal(keys, want) {
				t.Fatalf("%d keys: sorted %v, want %v", n, keys, want)
			}
		}
	}
}

// TestRankKeysSlow checks that results found out of order (a duplicate
// that ranked better later) or with large counts are ranked as the fast
// path ranks the others: by rank, then order.
func TestRankKeysSlow(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := range 60 {
		m := &matcher{}
		for i := range n {
			st := mkStats(int32(r.IntN(3)), int32(r.IntN(3)))
			m.results = append(m.results, result{st: st, order: 10 * i, key: resultKey(st, i)})
		}
		fast := slices.Clone(m.rankKeys())
		for i := range fast {
			fast[i] = rankKey(uint32(fast[i]))
		}
		slow := m.rankKeysSlow()
		if !slices.Equal(fast, slow) {
			t.Fatalf("%d results: fast %v, slow %v", n, fast, slow)
		}
	}
}

// TestResultIndex checks insertResult, scanning and then by the index,
// on results whose hashes collide: all of them, or all but the high half.
func TestResultIndex(t *testing.T) {
	in := strings.Repeat("abcdefghij", 40)
	for _, hash := range []func(i int) uint64{
		func(i int) uint64 { return 7 },
		func(i int) uint64 { return uint64(i%5) << 32 },
		func(i int) uint64 { return uint64(i%3) | 1<<40 },
		func(i int) uint64 { return mix64(uint64(i)) },
	} {
		m := &matcher{g: &Grammar{}, in: in}
		m.resetArena()
		m.js.startInput()
		// Results are the texts in[i:i+10], of which only ten differ.
		for i := range 300 {
			n := m.nodeFrag(m.newNode(node{kind: nStr, a: int32(i), b: int32(i + 10)}))
			if j := m.insertResult(n, hash(i%10), 0); i < 10 && j != -1 || i >= 10 && j != i%10 {
				t.Fatalf("text %d: found %d", i, j)
			}
		}
		if len(m.results) != 10 {
			t.Fatalf("%d results, want 10", len(m.results))
		}
		// And 500 numbers that all differ.
		for i := range 500 {
			n := m.numFrag(float64(i))
			h := hash(i)
			if j := m.insertResult(n, h, 0); j != -1 {
				t.Fatalf("number %d: found %d", i, j)
			}
			if j := m.insertResult(n, h, 0); j != len(m.results)-1 {
				t.Fatalf("number %d: found %d, want %d", i, j, len(m.results)-1)
			}
		}
		// The next input, with the index's room (and the ranking's keys)
		// kept: the index is built again at linearResults results.
		m.ranked()
		m.results = m.results[:0]
		m.js.startInput()
		for i := range 40 {
			if j := m.insertResult(m.numFrag(float64(i)), hash(i), 0); j != -1 {
				t.Fatalf("next input, number %d: found %d", i, j)
			}
		}
		for i := range 40 {
			if j := m.insertResult(m.numFrag(float64(i)), hash(i), 0); j != i {
				t.Fatalf("next input, number %d again: found %d", i, j)
			}
		}
	}
}

// TestFoundAgain checks the ranking of results found again with a better
// rank: by that rank, then by when it was found, not by the place of the
// result (nor by its first rank).
func TestFoundAgain(t *testing.T) {
	type find struct {
		v    string
		wild int32
	}
	for _, c := range []struct {
		finds []find
		want  string
	}{
		// a ranks better than b once found again.
		{[]find{{"a", 5}, {"b", 4}, {"a", 3}}, "a b"},
		// a ties with b once found again, later than b.
		{[]find{{"a", 5}, {"b", 3}, {"a", 3}}, "b a"},
		// a found again with a worse rank keeps its first.
		{[]find{{"a", 3}, {"b", 3}, {"a", 5}}, "a b"},
		// More results than the index's first size.
		{[]find{{"a", 9}, {"b", 8}, {"c", 8}, {"d", 8}, {"e", 8}, {"f", 8}, {"g", 8}, {"h", 8}, {"i", 8}, {"j", 8}, {"a", 8}, {"i", 2}}, "i b c d e f g h j a"},
	} {
		m := &matcher{g: &Grammar{}, in: "abcdefghij"}
		m.resetArena()
		m.js.startInput()
		for k, f := range c.finds {
			m.work = 10 * (k + 1)
			st := mkStats(1, f.wild)
			a := int32(f.v[0] - 'a')
			v := m.nodeFrag(m.newNode(node{kind: nStr, a: a, b: a + 1}))
			if i := m.insertResult(v, hashValue(f.v), st); i >= 0 {
				m.foundAgain(i, st)
			}
		}
		var got []string
		for _, r := range m.ranked() {
			got = append(got, strings.Trim(string(r.Value), `"`))
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("%v: ranked %s, want %s", c.finds, s, c.want)
		}
	}
}
