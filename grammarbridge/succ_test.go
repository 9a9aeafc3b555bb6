package grammarbridge

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestEngineSuccSet checks the success memo's open-addressed table
// against a map, across growth and inputs (epochs).
func TestEngineSuccSet(t *testing.T) {
	g := mustCompile(t, `<Start> = x -> 1;`, Options{})
	r := rand.New(rand.NewPCG(3, 4))
	for input := range 5 {
		m := g.newMatcher("some input", false)
		m.startSuccMemo()
		sm := &m.sm
		want := map[stateKey]int32{}
		for range 3000 {
			k := stateKey{int32(r.IntN(40)), int32(r.IntN(30)), int32(r.IntN(5)), int32(r.IntN(50)), int32(r.IntN(8)) - 1}
			s := sm.find(k, k.hash())
			r0, has := want[k]
			if (s >= 0) != has || has && sm.tab[s].r0 != r0 {
				t.Fatalf("input %d: %v: found %d, want %v (r0 %d)", input, k, s, has, r0)
			}
			if !has && r.IntN(2) == 0 {
				r0 := r.IntN(1000)
				sm.add(k, k.hash(), 1, r0, r0+1, -1)
				want[k] = int32(r0)
			}
		}
		if sm.n != len(want) {
			t.Fatalf("input %d: %d entries, want %d", input, sm.n, len(want))
		}
		g.release(m)
	}
}

// succGrammar has the shape that makes the search reach a state by many
// paths: optional keywords between optional wildcards, each split of the
// text before a state another path to it.
const succGrammar = `
<Start> = <Act> | <Other>;
<Act> = (make | create) (a)? $(name:string) (with body)? $(body:string)?
    (with doc)? $(doc:string)? (in | at)? $(file:<File>)? (near)? $(hint:string)?
    -> { act: "make", name, body, doc, file, hint };
<File> = (file | doc) $(f:string) (with)? $(g:string)? -> { f, g };
<Other> = $(verb:string) (with | near) $(rest:string) -> { verb, rest };
`

// TestEngineSuccMemo checks that the parses replayed from memoized states
// are those a full search finds (the naive search, which memoizes
// nothing), on inputs whose search passes succMemoAfter and replays.
func TestEngineSuccMemo(t *testing.T) {
	fast := mustCompile(t, succGrammar, Options{})
	slow := mustCompile(t, succGrammar, Options{naive: true, WorkLimit: 1 << 22})
	words := strings.Fields("with body doc in at file near a x y z with with doc file")
	r := rand.New(rand.NewPCG(7, 9))
	replayed, opened := 0, 0
	for range 300 {
		n := 12 + r.IntN(20)
		ws := []string{[]string{"make", "create"}[r.IntN(2)]}
		for range n {
			ws = append(ws, words[r.IntN(len(words))])
		}
		in := strings.Join(ws, " ")
		if _, err := slow.Match(in); err != nil {
			t.Fatalf("%q: the naive search: %v", in, err) // compareNaive would compare nothing
		}
		compareNaive(t, fast, slow, in)
		m := fast.newMatcher(in, false)
		m.run()
		if m.sm.gen == m.gen { // the memo was used for this input
			opened++
			replayed += m.sm.replayed
		}
		fast.release(m)
	}
	if opened < 30 || replayed == 0 {
		t.Fatalf("%d of 300 inputs passed succMemoAfter, %d parses replayed: the test does not reach the memo", opened, replayed)
	}
	t.Logf("%d inputs past succMemoAfter, %d parses replayed", opened, replayed)
}

// TestEngineCloseMemo checks that the state after a literal or keyword
// that closed an open wildcard is memoized from the start of a match
// (closeMemo): the second way to reach it, below succMemoAfter, replays
// the parses the first found, and they are those of the naive search.
func TestEngineCloseMemo(t *testing.T) {
	const src = `
<Start> = <Reply> | <Send>;
<Reply> = (please)? (reply | respond) (to | for)? $(body:string) (to | for) $(ref:string) $(cc:<CC>)? $(bcc:<BCC>)?
    -> { body, ref, cc, bcc };
<Send> = send (to)? $(to:string) about $(subject:string) $(cc:<CC>)? $(bcc:<BCC>)? -> { to, subject, cc, bcc };
<CC> = (cc | copy) $(cc:string) -> cc;
<BCC> = bcc $(bcc:string) -> bcc;
`
	fast := mustCompile(t, src, Options{})
	slow := mustCompile(t, src, Options{naive: true})
	for _, in := range []string{
		"respond to breeze to Zoe bcc orange silver",     // keywords: two ways to 'to' Zoe
		"send to Ann Bo about the plan cc Carl bcc Dora", // a literal: two ways to 'about'
	} {
		compareNaive(t, fast, slow, in)
		m := fast.newMatcher(in, false)
		m.run()
		if m.work >= succMemoAfter || m.sm.gen != m.gen || m.sm.replayed == 0 {
			t.Errorf("%q: work %d, memo used %v, %d parses replayed: want a replay below succMemoAfter (%d)",
				in, m.work, m.sm.gen == m.gen, m.sm.replayed, succMemoAfter)
		}
		fast.release(m)
	}
}

// TestEngineSuccKeepActive checks that only the parses recorded while a
// memoized state is being searched keep their trails: here the first
// alternative's, found from the state after 'about' (closeMemo), and not
// the second's, found outside any.
func TestEngineSuccKeepActive(t *testing.T) {
	g := mustCompile(t, `<Start> = send $(to:string) about $(s:string) $(cc:<CC>)? -> { to, s, cc }
    | send $(x:string) -> { x };
<CC> = cc $(cc:string) -> cc;`, Options{})
	m := g.newMatcher("send Ann about the plan", false)
	m.run()
	if len(m.results) != 2 || m.sm.gen != m.gen || len(m.sm.ends) != 1 {
		t.Errorf("%d results, memo used %v, %d trails kept: want 2 results, 1 kept", len(m.results), m.sm.gen == m.gen, len(m.sm.ends))
	}
	g.release(m)
}
