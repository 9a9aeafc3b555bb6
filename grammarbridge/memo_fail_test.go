package grammarbridge

import (
	"math/rand/v2"
	"testing"
)

// TestEngineFailedSet checks the open-addressed set of failed states
// against a map, across growth and inputs (generations).
func TestEngineFailedSet(t *testing.T) {
	g := mustCompile(t, `<Start> = x -> 1;`, Options{})
	r := rand.New(rand.NewPCG(3, 4))
	for input := range 5 {
		m := g.newMatcher("some input", false)
		want := map[failKey]bool{}
		for range 3000 {
			k := failKey{int32(r.IntN(40)), int32(r.IntN(30)), int32(r.IntN(5)), int32(r.IntN(50)), int32(r.IntN(8)) - 1}
			has := m.hasFailed(k, k.hash())
			if has != want[k] {
				t.Fatalf("input %d: %v: has %v, want %v", input, k, has, want[k])
			}
			if !has && r.IntN(2) == 0 {
				m.addFailed(k, k.hash())
				want[k] = true
			}
		}
		if m.nfail != len(want) {
			t.Fatalf("input %d: %d entries, want %d", input, m.nfail, len(want))
		}
		g.release(m)
	}
}
