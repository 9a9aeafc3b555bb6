package grammarbridge

import (
	"math/rand/v2"
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
