package grammarbridge

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestEngineResumeWalk checks the values of parses a replay records after
// the first, whose walk topValue resumes (resumePoint), against the naive
// search, on inputs that replay. The grammar captures a rule whose value
// is built in the arena (an object: nestedSlot) between wildcards, and
// its value leaves out two of them: the parses that differ only there are
// duplicates, which give back the room of their values (record).
// TestResumePoint checks that no walk resumes after such a rule.
func TestEngineResumeWalk(t *testing.T) {
	const src = `
<Start> = <Act> | <Other>;
<Act> = (make | create) (a)? $(name:string) (in | at) $(file:<File>) (with body)? $(body:string)?
    (with doc)? $(doc:string)? (near)? $(hint:string)?
    -> { act: "make", file, name, body };
<File> = (file | doc) $(f:string) (named)? -> { f };
<Other> = $(verb:string) (with | near) $(rest:string) -> { verb, rest };
`
	fast := mustCompile(t, src, Options{})
	slow := mustCompile(t, src, Options{naive: true, WorkLimit: 1 << 22})
	words := strings.Fields("with body doc near a x y z in at named with doc file")
	r := rand.New(rand.NewPCG(5, 11))
	resumed := 0
	for range 300 {
		ws := []string{[]string{"make", "create"}[r.IntN(2)]}
		for range 12 + r.IntN(20) {
			ws = append(ws, words[r.IntN(len(words))])
		}
		in := strings.Join(ws, " ")
		if _, err := slow.Match(in); err != nil {
			t.Fatalf("%q: the naive search: %v", in, err)
		}
		compareNaive(t, fast, slow, in)
		m := fast.newMatcher(in, false)
		m.run()
		if m.sm.gen == m.gen {
			resumed += m.sm.resumed
		}
		fast.release(m)
	}
	if resumed == 0 {
		t.Fatal("no walk resumed: the test does not reach resumePoint")
	}
	t.Logf("%d parses' walks resumed", resumed)
}

// TestResumePoint checks where resumePoint lets a walk resume: after a
// nested rule that is one wildcard, read in place, but not after one
// whose value is built in the arena (nestedSlot), nor past same.
func TestResumePoint(t *testing.T) {
	for _, tt := range []struct {
		file       string // <File>'s value
		same, want int
		bound      uint64
	}{
		// The trail: the top Begin, <File>'s three events, name's, more's, the top End.
		{"f", 6, 6, 0b111},
		{"f", 5, 5, 0b11}, // not past same
		{"f", 4, 4, 0b1},
		{"f", 3, 0, 0},     // not into <File>'s frame
		{"{ f }", 6, 0, 0}, // not past a value built in the arena
	} {
		g := mustCompile(t, `<Start> = go $(file:<File>) named $(name:string) (then)? $(more:string)? -> { file, name, more };
<File> = file $(f:string) -> `+tt.file+`;`, Options{})
		var got int
		var bound uint64
		g.recordHook = func(m *matcher) {
			if m.tn == 7 {
				got, bound = m.resumePoint(m.tbuf[:m.tn], tt.same)
			}
		}
		if _, err := g.Match("go file a named b then c"); err != nil {
			t.Fatal(err)
		}
		if got != tt.want || bound != tt.bound {
			t.Errorf("<File> -> %s, same %d: resume at %d (bound %b), want %d (%b)", tt.file, tt.same, got, bound, tt.want, tt.bound)
		}
	}
}
