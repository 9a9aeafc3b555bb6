package grammarbridge

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// noLeadGrammar reaches a captured rule whose alternatives all begin with
// a literal, a keyword or a number (simpleLead) after a wildcard, from the
// same wildcard start by two ways (<Verb> ends twice after "make me"),
// and the same rule as a simple part (silent: <Num>) at places it may
// have marked.
const noLeadGrammar = `
<Start> = <Verb> $(x:wildcard) <With> $(y:wildcard) $(n:<Num>) $(z:wildcard) -> [x, y, n, z]
        | <Verb> $(x:wildcard) <With> $(y:wildcard) <Num> -> [x, y]
        | <Verb> $(x:wildcard) $(n:<Cnt>) -> [x, n];
<Verb> = (create | make (me)?);
<With> = (with (the)? caption | caption);
<Num> = (single | a) photo -> 1 | alone photo -> 2;
<Cnt> = $(k:number) photos -> k | many photos -> 0;
`

// TestEngineNoLead compares the optimized matcher, which marks the places
// where a rule's first parts were not found after a wildcard (noLead),
// with the plain search, and checks that such marks are made.
func TestEngineNoLead(t *testing.T) {
	fast := mustCompile(t, noLeadGrammar, Options{})
	slow := mustCompile(t, noLeadGrammar, Options{naive: true, WorkLimit: 1 << 22})
	words := strings.Fields("me with the caption single a alone many photo photos 3 x y z")
	r := rand.New(rand.NewPCG(5, 11))
	marked := 0
	for range 400 {
		ws := []string{[]string{"make", "create", "make me"}[r.IntN(3)]}
		for range 2 + r.IntN(9) {
			ws = append(ws, words[r.IntN(len(words))])
		}
		in := strings.Join(ws, " ")
		compareNaive(t, fast, slow, in)
		m := fast.newMatcher(in, false)
		m.run()
		for _, v := range m.sTab {
			if v == m.sGen {
				marked++
			}
		}
		fast.release(m)
	}
	if marked == 0 {
		t.Fatal("no place marked by noLead: the test does not reach it")
	}
	t.Logf("%d places marked", marked)
}
