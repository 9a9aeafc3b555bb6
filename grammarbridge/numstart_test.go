package grammarbridge

import (
	"math/rand"
	"testing"
)

// TestNextNumberStart compares the eight-bytes-at-a-time search of number
// starts with a byte loop, on ASCII and non-ASCII inputs.
func TestNextNumberStart(t *testing.T) {
	g, err := CompileString("t.agr", `<Start> = $(n:number) -> n;`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	const alphabet = "ab Z09+-,.*/:;<=>?@[`{~\x7f" + "é"
	for range 2000 {
		b := make([]byte, rng.Intn(40))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		in := string(b)
		m := g.newMatcher(in, false)
		for from := 0; from <= len(in); from++ {
			want := -1
			for q := from; q < len(in); q++ {
				if numberStart[in[q]] {
					want = q
					break
				}
			}
			if got := m.nextNumberStart(from); got != want {
				t.Fatalf("%q from %d: got %d, want %d", in, from, got, want)
			}
		}
		g.release(m)
	}
}
