package grammarbridge

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestStatsKey checks that the integer ranking ranked sorts by orders
// stats exactly as better does.
func TestStatsKey(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pick := func() stats {
		return stats{values: int32(r.IntN(6)), wildChars: []int32{0, 0, 1, 7, 30, 1 << 20}[r.IntN(6)]}
	}
	for range 20000 {
		a, b := pick(), pick()
		ka, kb := a.key(), b.key()
		if better(a, b) != (ka < kb) || better(b, a) != (kb < ka) {
			t.Fatalf("%+v vs %+v: better %v/%v, keys %x %x", a, b, better(a, b), better(b, a), ka, kb)
		}
	}
}

// TestSortKeys checks sortKeys (an insertion sort for a few keys) against
// a plain sort by rank, then order, for every length up to 40.
func TestSortKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 41 {
		for range 50 {
			keys := make([]rankKey, n)
			for i := range keys {
				// Few distinct ranks, so that ties on rank are common;
				// orders are unique, as ranked's are.
				keys[i] = rankKey{rank: uint64(r.IntN(4)), order: uint64(r.IntN(1000)*1000 + i), i: int32(i)}
			}
			want := slices.Clone(keys)
			slices.SortFunc(want, func(a, b rankKey) int {
				if a.rank != b.rank {
					return cmp.Compare(a.rank, b.rank)
				}
				return cmp.Compare(a.order, b.order)
			})
			sortKeys(keys)
			if !slices.Equal(keys, want) {
				t.Fatalf("%d keys: sorted %v, want %v", n, keys, want)
			}
		}
	}
}
