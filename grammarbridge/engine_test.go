package grammarbridge

import (
	"errors"
	"math/rand"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// rankedKeys is every match, best first, with its counts: two matchers
// agree on it only if they give the same results in the same order.
func rankedKeys(ms []Match) string {
	var b strings.Builder
	for _, m := range ms {
		b.WriteString(Canonical(m.Value))
		b.WriteString(" ")
		b.WriteString(string(rune('0' + m.MatchedValues)))
		b.WriteString("/")
		b.WriteString(strings.Repeat("|", m.WildcardChars))
		b.WriteString("\n")
	}
	return b.String()
}

// TestEngineShare checks prefix sharing and silent rules against the plain
// search on a grammar made for them: the same matches in the same order.
func TestEngineShare(t *testing.T) {
	fast, err := Compile(FSLoader{os.DirFS("testdata")}, "share.agr", Options{})
	if err != nil {
		t.Fatal(err)
	}
	slow, err := Compile(FSLoader{os.DirFS("testdata")}, "share.agr", Options{naive: true})
	if err != nil {
		t.Fatal(err)
	}
	// The optimizations under test are in use.
	if fast.start.tree == nil && fast.start.firstTrees == nil {
		t.Fatal("no prefix tree for <Start>")
	}
	lit := false
	for _, tr := range fast.start.firstTrees {
		for _, nd := range tr {
			lit = lit || nd.litTo > 0
		}
	}
	if !lit {
		t.Fatal("no literal node in <Start>'s prefix trees")
	}
	silent := false
	for _, a := range fast.start.alts {
		for i := range a.parts {
			silent = silent || a.parts[i].silent
		}
	}
	if !silent {
		t.Fatal("no silent part in <Start>")
	}
	inputs := []string{
		"please show the report file", "open the report folder", "can you show x y z",
		"show the item number 5", "open the entry no. 7 times", "show item 3",
		"set power mode to balanced", "set power mode to best performance", "set battery saver to 40 percent",
		"SET power,mode to balanced", "set powermode to balanced", "set power mode to balancedx", "set battery saver to",
		"play the song Hello by Adele", "play Hello track by Adele from the album 25",
		"play Hello by Adele from album 25 by Adele", "play Yellow from album Parachutes",
		"go very very far away away", "go tomorrow", "go to town", "go together", "go togetherness", "go far away", "go very far out there",
		"turn on the lights", "turn the lights", "Turn Off the fan", "turn offthe fan", "toggle the fan", "turn onx the lights",
		"hi there more okay", "hey more okay now", "hey more okay", "hi you more okay now",
		"please hello there", "would you hello", "hello there", "can you hello there now",
		"do it please now", "do it now can you later", "x would you later now",
		"show", "", "please", "set power mode to", "play by by by",
	}
	words := strings.Fields(strings.Join(inputs, " "))
	rng := rand.New(rand.NewSource(7))
	for range 400 {
		n := 1 + rng.Intn(8)
		w := make([]string, n)
		for i := range w {
			w[i] = words[rng.Intn(len(words))]
		}
		inputs = append(inputs, strings.Join(w, " "))
	}
	sameAsPlain(t, fast, slow, inputs)
}

// TestEngineLowerInput checks the eight-bytes-at-a-time lower-casing
// against strings.ToLower, and the ASCII test, on every byte value.
func TestEngineLowerInput(t *testing.T) {
	g := mustCompile(t, `<Start> = x -> 1;`, Options{})
	var inputs []string
	for c := range 256 {
		for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17} {
			inputs = append(inputs, strings.Repeat("aZ", n)[:n]+string([]byte{byte(c)})+"Qz@[`{"[:n%7])
		}
	}
	inputs = append(inputs, "", "ABCDEFGHIJKLMNOPQRSTUVWXYZ@[`{", "naïve PLAY", "PLAY naïve")
	for _, in := range inputs {
		m := g.newMatcher(in, false)
		ascii := true
		for i := 0; i < len(in); i++ {
			ascii = ascii && in[i] < utf8.RuneSelf
		}
		if m.isASCII() != ascii {
			t.Errorf("%q: isASCII %v", in, m.isASCII())
		}
		if ascii && string(m.lower) != strings.ToLower(in) {
			t.Errorf("%q: lower %q", in, m.lower)
		}
		g.release(m)
	}
}

// TestEngineTokensASCII checks the ASCII literal matcher and the ASCII
// word-boundary test against the general (rune by rune) ones.
func TestEngineTokensASCII(t *testing.T) {
	g := mustCompile(t, `<Start> = x -> 1;`, Options{})
	inputs := []string{"set power mode", "SET  power,mode", "setpower mode", "set-power mode5", "a1 b2", "a 1b 2",
		"x,,y z", "x y", "xy", "say it's ok", "its ok", "go 3 4", "go 34", "naïve x", "x \u00a0y", "Kelvin \u212a x"}
	toks := [][]string{{"set", "power", "mode"}, {"set", "power"}, {"a1", "b2"}, {"a", "1b", "2"}, {"x", "y"}, {"it's", "ok"},
		{"go", "3", "4"}, {"k"}, {"x", "y", "z"}, {"say"}, {"power", "mode5"}}
	for _, in := range inputs {
		m := g.newMatcher(in, false)
		for _, tk := range toks {
			for _, sp := range []Spacing{SpacingAuto, SpacingRequired, SpacingOptional, SpacingNone} {
				p := literalPart(tk, sp)
				for pos := 0; pos <= len(in); pos++ {
					e1, ok1 := m.tokensAt(&p, sp, pos)
					e2, ok2 := m.tokensFrom(&p, sp, 0, pos)
					if ok1 != ok2 || ok1 && e1 != e2 {
						t.Errorf("%q %q %v at %d: tokensAt %d %v, tokensFrom %d %v", in, tk, sp, pos, e1, ok1, e2, ok2)
					}
				}
			}
		}
		for pos := 0; pos <= len(in); pos++ {
			for _, sp := range []Spacing{SpacingAuto, SpacingRequired} {
				want := true
				if pos > 0 && pos < len(in) {
					a, _ := utf8.DecodeLastRuneInString(in[:pos])
					b, _ := utf8.DecodeRuneInString(in[pos:])
					if sp == SpacingRequired {
						want = isSep(a) || isSep(b)
					} else {
						want = !needsSep(a, b)
					}
				}
				if got := m.boundary(pos, sp); got != want {
					t.Errorf("%q at %d %v: boundary %v", in, pos, sp, got)
				}
			}
		}
		g.release(m)
	}
}

// TestEngineShareWorkLimit checks that ways of shared parts collected
// over and over stay bounded by the work limit.
func TestEngineShareWorkLimit(t *testing.T) {
	g := mustCompile(t, "<Start> = <P> <P> <P> a -> 1 | <P> <P> <P> b -> 2 | <P> <P> <P> c -> 3; <P> = $(x:wildcard) (y)* -> x;", Options{WorkLimit: 50000})
	_, err := g.Match(strings.Repeat("y ", 400) + "d")
	if !errors.Is(err, ErrWorkLimit) {
		t.Fatalf("got %v, want ErrWorkLimit", err)
	}
	if got := matchJSON(t, g, "q y r y s y b"); got != "[2]" {
		t.Errorf("q y r y s y b: %s", got)
	}
}

// FuzzEngineShare compares the optimized matcher (prefix trees, literal
// nodes, silent parts) with the plain search on testdata/share.agr: the
// same matches in the same order, or both over the work limit.
func FuzzEngineShare(f *testing.F) {
	fast, err := Compile(FSLoader{os.DirFS("testdata")}, "share.agr", Options{WorkLimit: 200000})
	if err != nil {
		f.Fatal(err)
	}
	slow, err := Compile(FSLoader{os.DirFS("testdata")}, "share.agr", Options{naive: true, WorkLimit: 200000})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"please show the report file", "set power mode to balanced", "play Hello track by Adele from the album 25",
		"go very far away", "turn on the lights", "hi there more okay", "do it please now", "naïve SHOW the fïle", "go to\u00a0town"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		a, errA := fast.Match(in)
		b, errB := slow.Match(in)
		if errA != nil || errB != nil {
			return // the plain search may hit the work limit
		}
		if ka, kb := rankedKeys(a), rankedKeys(b); ka != kb {
			t.Fatalf("%q:\noptimized:\n%s\nplain:\n%s", in, ka, kb)
		}
	})
}

// TestEngineLongSearch checks the search of a literal after a wildcard on
// inputs long enough for the byte-pair pre-filter, against strings.Index.
func TestEngineLongSearch(t *testing.T) {
	g := mustCompile(t, `<Start> = $(x:wildcard) play -> x;`, Options{})
	rng := rand.New(rand.NewSource(3))
	words := []string{"play", "PLAY", "lay", "pl", "ay", "replay", "the", "song", "by", "x", "yz", "Played"}
	toks := []string{"play", "pl", "p", "ay", "y", "la", "xyz", "zz", "song", "the", "replay", "yed", "by", "play the", "the song by"}
	for range 200 {
		var w []string
		for n := 0; n < 12+rng.Intn(30); n++ {
			w = append(w, words[rng.Intn(len(words))])
		}
		in := strings.Join(w, " ")
		m := g.newMatcher(in, false)
		for _, tk := range toks {
			p := literalPart(strings.Fields(tk), SpacingAuto)
			first := strings.Fields(tk)[0]
			for from := 0; from <= len(in); from++ {
				want := -1
				if j := strings.Index(strings.ToLower(in[from:]), first); j >= 0 {
					want = from + j
				}
				got := m.nextCandidate(&p, from)
				if got != want {
					t.Fatalf("%q: token %q from %d: got %d, want %d", in, tk, from, got, want)
				}
				if got >= 0 {
					// tokensAtCandidate is tokensAt, and where the tokens
					// end when only the boundary after them fails.
					e1, ok1 := m.tokensAtCandidate(&p, SpacingAuto, got)
					e2, ok2 := m.tokensAt(&p, SpacingAuto, got)
					if !ok2 {
						if e2, ok2 = m.tokensAt(&p, SpacingNone, got); !ok2 {
							e2 = -1
						}
						ok2 = false
					}
					if ok1 != ok2 || e1 != e2 {
						t.Fatalf("%q: token %q at %d: tokensAtCandidate %d %v, tokensAt %d %v", in, tk, got, e1, ok1, e2, ok2)
					}
				}
			}
		}
		g.release(m)
	}
}

// sameAsPlain checks that the optimized grammar fast gives every input
// the same ranked matches as the plain search slow, and that at least 20
// of the inputs match (or the check exercises too little).
func sameAsPlain(t *testing.T, fast, slow *Grammar, inputs []string) {
	t.Helper()
	matched := 0
	for _, in := range inputs {
		a, errA := fast.Match(in)
		b, errB := slow.Match(in)
		if errA != nil || errB != nil {
			t.Fatalf("%q: %v / %v", in, errA, errB)
		}
		if ka, kb := rankedKeys(a), rankedKeys(b); ka != kb {
			t.Fatalf("%q:\noptimized:\n%s\nplain:\n%s", in, ka, kb)
		}
		if len(a) > 0 {
			matched++
		}
	}
	if matched < 20 {
		t.Fatalf("only %d inputs match: the test exercises too little", matched)
	}
}

// TestEngineShareWildAfterWild checks that a way of shared parts that
// left a wildcard open is not stepped into an alternative going on with
// another wildcard (which never matches directly after one): the third
// alternative costs no work.
func TestEngineShareWildAfterWild(t *testing.T) {
	const two = `<Start> = (please)? go (now)? $(a:string) to $(b:string) -> { a, b }
    | (please)? go (now)? $(a:string) via $(b:string) -> { a, b }`
	g2 := mustCompile(t, two+";", Options{})
	g3 := mustCompile(t, two+"\n    | (please)? go (now)? $(a:string) $(b:string) -> { a, b };", Options{})
	slow := mustCompile(t, two+"\n    | (please)? go (now)? $(a:string) $(b:string) -> { a, b };", Options{naive: true})
	for _, in := range []string{"please go now home to work", "go now via town to the sea"} {
		compareNaive(t, g3, slow, in)
		var work [2]int
		for j, g := range []*Grammar{g2, g3} {
			m := g.newMatcher(in, false)
			m.run()
			work[j] = m.work
			g.release(m)
		}
		if work[0] != work[1] {
			t.Errorf("%q: work %d with the third alternative, %d without", in, work[1], work[0])
		}
	}
}

// TestEngineWaysMask checks the kids tryTree tries after several ways of
// shared parts: those any way can go on with (by the next byte of each;
// at the end of the input, those that may match nothing; all when a
// way's next byte is not known).
func TestEngineWaysMask(t *testing.T) {
	var sel [129]uint64
	sel['m'], sel['x'], sel['a'], sel[128] = 0b0011, 0b0101, 0b1000, 0b10000
	m := &matcher{}
	ways := func(chs ...int16) int32 {
		m.shareOuts = m.shareOuts[:0]
		for i, ch := range chs {
			next := int32(i + 1)
			if i == len(chs)-1 {
				next = -1
			}
			m.shareOuts = append(m.shareOuts, shareOut{ch: ch, next: next})
		}
		return 0
	}
	for _, c := range []struct {
		chs  []int16
		want uint64
	}{
		{[]int16{'m'}, 0b0011},
		{[]int16{'m', 'x'}, 0b0111},
		{[]int16{'x', 'a', 'm'}, 0b1111},
		{[]int16{'z', -1}, 0b10000},
		{[]int16{'m', -2, 'x'}, ^uint64(0)},
	} {
		if got := m.waysMask(&sel, ways(c.chs...)); got != c.want {
			t.Errorf("ways %v: kids %b, want %b", c.chs, got, c.want)
		}
	}
}

// literalPart compiles literal tokens with the separator rules of sp,
// as the compiler does, for tests that build parts by hand.
func literalPart(tokens []string, sp Spacing) cpart {
	var s litSlabs
	return s.literalPart(tokens, sp)
}
