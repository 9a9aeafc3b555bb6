package grammarbridge

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// matchJSON returns the distinct matches of in as a JSON array sorted by
// text, the form of the reference cases.
func matchJSON(t *testing.T, g *Grammar, in string) string {
	t.Helper()
	ms, err := g.Match(in)
	if err != nil {
		t.Fatalf("%q: %v", in, err)
	}
	keys := make([]string, len(ms))
	for i, m := range ms {
		keys[i] = Canonical(m.Value)
	}
	sort.Strings(keys)
	return "[" + strings.Join(keys, ",") + "]"
}

func mustCompile(t *testing.T, src string, opts Options) *Grammar {
	t.Helper()
	g, err := CompileString("t.agr", src, opts)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

type matchCase struct{ in, want string }

func runMatchCases(t *testing.T, g *Grammar, cases []matchCase) {
	t.Helper()
	for _, c := range cases {
		if got := matchJSON(t, g, c.in); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestMatchMusicFixture(t *testing.T) {
	g, err := Compile(FSLoader{os.DirFS("testdata")}, "music.agr", Options{})
	if err != nil {
		t.Fatal(err)
	}
	runMatchCases(t, g, []matchCase{
		// Separators, case, punctuation around the words.
		{"pause", `[{"actionName":"pause"}]`},
		{"  PAUSE,  the   music!! ", `[{"actionName":"pause"}]`},
		{"¿pause the music?", `[{"actionName":"pause"}]`},
		{"pause-the-music", `[{"actionName":"pause"}]`},
		{"pausethe music", `[]`},
		{"pause the musical", `[]`},
		{"pause the music now", `[]`},
		{"", `[]`},
		// Exhaustive wildcard splits; wildcards keep the input's case and inner text.
		{"play Stand by Me by Ben E. King", `[{"actionName":"play","parameters":{"artist":"Ben E. King","track":"Stand by Me"}},{"actionName":"play","parameters":{"artist":"Me by Ben E. King","track":"Stand"}}]`},
		{"play foo   bar, by baz", `[{"actionName":"play","parameters":{"artist":"baz","track":"foo   bar"}}]`},
		// A literal after a wildcard may start mid-word (TypeAgent).
		{"play Hobby Adele", `[{"actionName":"play","parameters":{"artist":"Adele","track":"Hob"}}]`},
		// A wildcard made only of separators is rejected.
		{"play ... by x", `[]`},
		// Built-in entities.
		{"play the twenty-first song", `[{"actionName":"playNumber","parameters":{"n":21}}]`},
		{"play first", `[{"actionName":"playNumber","parameters":{"n":1}}]`},
		{"play five hundred and forty-second track", `[{"actionName":"playNumber","parameters":{"n":542}}]`},
		{"play track #7", `[{"actionName":"playNumber","parameters":{"n":7}}]`},
		{"select two thousand three hundred songs", `[{"actionName":"select","parameters":{"count":2300,"list":[2300]}}]`},
		{"select a dozen songs", `[{"actionName":"select","parameters":{"count":12,"list":[12]}}]`},
		{"select 2.5 songs", `[{"actionName":"select","parameters":{"count":2.5,"list":[2.5]}}]`},
		// A skipped optional capture: property omitted, array element null.
		{"select songs", `[{"actionName":"select","parameters":{"list":[null]}}]`},
		// Quotes are ordinary characters in literals; escapes work.
		{"what's playing", `[{"actionName":"status"}]`},
		{"whats playing", `[]`},
		{"what’s playing", `[]`},
		{"wi-fi on", `[{"actionName":"wifi","parameters":{"on":true}}]`},
		// word behaves as wildcard (several words).
		{"say hello big world", `[{"actionName":"say","parameters":{"w":"hello big world"}}]`},
		// Implicit values: a literal gives its text as written.
		{"color RED", `[{"actionName":"color","parameters":{"c":"Red"}}]`},
		{"color dark   green", `[{"actionName":"color","parameters":{"c":"dark green"}}]`},
		// Imported rule.
		{"volume 30", `[{"actionName":"volume","parameters":{"level":30}}]`},
		{"please pause", `[{"actionName":"politePause"}]`},
	})
}

func TestMatchNumbers(t *testing.T) {
	g := mustCompile(t, "<Start> = n $(x:number) -> x | w $(y:wildcard) n $(x:number) -> { y, x };", Options{})
	runMatchCases(t, g, []matchCase{
		{"n 007", `[7]`},
		{"n 1e3", `[1000]`},
		{"n 0x1F", `[31]`},
		{"n 0b101", `[5]`},
		{"n 0o17", `[15]`},
		{"n -3", `[-3]`},
		{"n +4", `[4]`},
		{"n 2.5", `[2.5]`},
		{"n .5", `[5]`},
		{"n 5th", `[]`},
		{"n 1,000", `[]`},
		{"n 12abc", `[]`},
		{"n ５", `[]`},
		{"n five", `[]`},
		{"w foon 5", `[{"x":5,"y":"foo"}]`},
		// A number does not start in the middle of digits.
		{"w a 13 n 19", `[{"x":19,"y":"a 13"}]`},
	})
}

func TestMatchTwoCapturesInARow(t *testing.T) {
	g := mustCompile(t, `<Start> = at $(a:wildcard) $(b:wildcard) -> { a, b }
		| to $(a:wildcard) <B> -> { a }
		| of $(a:wildcard) $(b:wildcard)? -> { a, b }
		| by $(a:wildcard) $(n:number) -> { a, n };
		<B> = $(x:wildcard) -> x;`, Options{})
	runMatchCases(t, g, []matchCase{
		{"at home today", `[]`},
		{"to home today", `[]`},
		{"of home today", `[{"a":"home today"}]`},
		{"by home 5", `[{"a":"home","n":5}]`},
	})
}

func TestMatchSpacing(t *testing.T) {
	g, err := Compile(FSLoader{os.DirFS("testdata")}, "spacing.agr", Options{})
	if err != nil {
		t.Fatal(err)
	}
	runMatchCases(t, g, []matchCase{
		{"alpha beta", `["auto"]`},
		{"alpha,beta", `["auto"]`},
		{"alphabeta", `[]`},
		{"gamma delta", `["required"]`},
		{"gamma, delta", `["required"]`},
		{"gammadelta", `[]`},
		{"gamma5", `[]`},
		{"gamma 5", `[5]`},
		{"deletetaskflowfoo", `["foo"]`},
		{"delete task flow my flow", `["my flow"]`},
		{"xyz", `["none"]`},
		{"x y z", `[]`},
	})
}

func TestMatchValues(t *testing.T) {
	g, err := Compile(FSLoader{os.DirFS("testdata")}, "values.agr", Options{})
	if err != nil {
		t.Fatal(err)
	}
	runMatchCases(t, g, []matchCase{
		{"sum 5 and 3", `[{"big":true,"diff":2,"pick":"a","t":"5+3","total":8}]`},
		{"sum 1.5 and 2", `[{"big":false,"diff":-0.5,"pick":"b","t":"1.5+2","total":3.5}]`},
		{"opt end", `[{"arr":[null],"d":"none","ty":"undefined"}]`},
		{"opt thing end", `[{"arr":["thing"],"d":"thing","ty":"string","x":"thing"}]`},
		{"lit", `[[1,"two",true,false,null,1500,16]]`},
		{"nest abc", `[{"len":3,"n":"abc","up":"ABC","v":{"k":"abc"}}]`},
		{"spread q", `[{"extra":1,"k":"q"}]`},
	})
}

func TestMatchPhraseSets(t *testing.T) {
	src := "<Start> = (<Polite>)? list flows -> 1 | <Greeting> stop -> 2;"
	compat := mustCompile(t, src, Options{})
	runMatchCases(t, compat, []matchCase{
		{"list flows", `[1]`},
		{"please list flows", `[]`}, // TypeAgent's AST matcher: phrase sets match nothing
		{"stop", `[2]`},
		{"hey stop", `[]`},
	})
	nfa := mustCompile(t, src, Options{PhraseSets: true})
	runMatchCases(t, nfa, []matchCase{
		{"list flows", `[1]`},
		{"please list flows", `[1]`},
		{"would you please list flows", `[1]`},
		{"stop", `[]`},
		{"hey stop", `[2]`},
	})
}

// TestMatchQuantifiedRules checks ?, * and + directly after a rule
// reference: literal text after it in TypeAgent-compatible mode (each
// answer here is what TypeAgent's matcher gave, docs/grammar-ref.md),
// quantifiers with Options.QuantifiedRules.
func TestMatchQuantifiedRules(t *testing.T) {
	src := `<Start> = make <Size>? -> 1 | take <Size>* -> 2 | bake <Size>+ -> 3 | stop <Size>? now -> 4 | go <Size>?fast -> 5
		| (<Size>? | x) done -> 6;
		<Size> = quick;`
	compat := mustCompile(t, src, Options{})
	runMatchCases(t, compat, []matchCase{
		{"make", `[]`},
		{"make quick", `[]`},
		{"make quick?", `[1]`},
		{"make quick ?", `[1]`},
		{"take quick quick", `[]`},
		{"take quick*", `[2]`},
		{"bake quick", `[]`},
		{"bake quick+", `[3]`},
		{"stop quick? now", `[4]`},
		{"stop quick ?now", `[4]`},
		{"stop quick now", `[]`},
		{"go quick?fast", `[5]`},
		{"go quick ?fast", `[5]`},
		{"go quick fast", `[]`},
		{"quick? done", `[6]`},
		{"x done", `[6]`},
		{"done", `[]`},
	})
	author := mustCompile(t, src, Options{QuantifiedRules: true})
	runMatchCases(t, author, []matchCase{
		{"make", `[1]`},
		{"make quick", `[1]`},
		{"take", `[2]`},
		{"take quick quick", `[2]`},
		{"bake", `[]`},
		{"bake quick quick", `[3]`},
		{"stop now", `[4]`},
		{"stop quick now", `[4]`},
		{"go fast", `[5]`},
		{"go quick fast", `[5]`},
		{"done", `[6]`},
		{"quick done", `[6]`},
	})
}

func TestMatchRanking(t *testing.T) {
	g := mustCompile(t, `<Start> = play $(t:wildcard) -> { t }
		| play $(t:wildcard) by $(a:wildcard) -> { t, a }
		| play <Fixed> -> { fixed: true };
		<Fixed> = something good;`, Options{})
	ms, err := g.Match("play something good")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || Canonical(ms[0].Value) != `{"fixed":true}` || ms[0].WildcardChars != 0 {
		t.Fatalf("no-wildcard match should rank first: %+v", ms)
	}
	ms, _ = g.Match("play x by y")
	if Canonical(ms[0].Value) != `{"a":"y","t":"x"}` || ms[0].MatchedValues != 2 || ms[0].WildcardChars != 2 {
		t.Errorf("more values should rank first: %+v", ms)
	}
	best, err := g.Best("play x by y")
	if err != nil || Canonical(best.Value) != `{"a":"y","t":"x"}` {
		t.Errorf("Best: %+v, %v", best, err)
	}
}

func TestMatchExplain(t *testing.T) {
	g := mustCompile(t, `<Start> = play $(t:wildcard) -> t | pause (the)? music -> 1 | pause video -> 2;`, Options{})
	_, err := g.Best("pause the radio")
	var nm *NoMatchError
	if !errors.As(err, &nm) || !errors.Is(err, ErrNoMatch) {
		t.Fatalf("got %v, want *NoMatchError", err)
	}
	if nm.Offset != 10 || strings.Join(nm.Expected, "|") != "music" {
		t.Errorf("got offset %d expected %v", nm.Offset, nm.Expected)
	}
	_, err = g.Best("stop")
	if !errors.As(err, &nm) || nm.Offset != 0 || strings.Join(nm.Expected, "|") != "pause|play" {
		t.Errorf("got %v", err)
	}
	_, err = g.Best("play")
	if !errors.As(err, &nm) || nm.Offset != 4 || strings.Join(nm.Expected, "|") != "$(t)" {
		t.Errorf("got %v", err)
	}
	// After a wildcard, what follows it is expected at the end of the input.
	g2 := mustCompile(t, `<Start> = play $(t:wildcard) by $(a:wildcard) -> { t, a };`, Options{})
	_, err = g2.Best("play some song")
	if !errors.As(err, &nm) || nm.Offset != 14 || strings.Join(nm.Expected, "|") != "by" {
		t.Errorf("got %v", err)
	}
	_, err = g.Best("pause video now")
	if !errors.As(err, &nm) || nm.Offset != 12 || strings.Join(nm.Expected, "|") != "end of input" {
		t.Errorf("got %v", err)
	}
	if err := g.Explain("pause music"); err != nil {
		t.Errorf("Explain of a match: %v", err)
	}
	// What may come first after an optional part, a rule that can match
	// nothing and a phrase set (which, compatible, matches nothing) is
	// expected too: it used to be nothing, at offset -1.
	g3 := mustCompile(t, `<Start> = (<Polite>)? order $(x:wildcard) -> x | <Maybe> $(n:number) cups -> n | (the)? <Left> -> 0;
		<Maybe> = (some)?; <Left> = <Left> tea | green;`, Options{})
	_, err = g3.Best("please order tea")
	if !errors.As(err, &nm) || nm.Offset != 0 || strings.Join(nm.Expected, "|") != "$(n:number)|green|order|some|the" {
		t.Errorf("got %v", err)
	}
}

func TestMatchWorkLimit(t *testing.T) {
	// Every split of the words between three wildcards: cubic in the input.
	g := mustCompile(t, "<Start> = $(a:wildcard) x $(b:wildcard) x $(c:wildcard) x $(d:wildcard) -> 1;", Options{WorkLimit: 10000})
	in := strings.Repeat("x ", 200)
	_, err := g.Match(in)
	if !errors.Is(err, ErrWorkLimit) {
		t.Fatalf("got %v, want ErrWorkLimit", err)
	}
	// Many ways for a memoized rule to end at the same place: comparing
	// them counts as work too.
	same := mustCompile(t, "<Start> = <R> end -> 1 | <R> stop -> 2; <R> = $(a:wildcard) x $(b:wildcard) y -> { a, b };", Options{WorkLimit: 20000})
	if _, err := same.Match(strings.Repeat("q x ", 3000) + "y end"); !errors.Is(err, ErrWorkLimit) {
		t.Errorf("many equal ends: got %v, want ErrWorkLimit", err)
	}
	// Left recursion fails instead of looping.
	lr := mustCompile(t, "<Start> = <L> -> 1; <L> = <L> a | a;", Options{})
	if got := matchJSON(t, lr, "a"); got != "[1]" {
		t.Errorf("left recursion: %s", got)
	}
	if _, err := lr.Match("a a"); err != nil {
		t.Errorf("left recursion: %v", err)
	}
}

func TestMatchRepeat(t *testing.T) {
	g := mustCompile(t, "<Start> = go (very)* far -> 1 | run (fast)+ -> 2;", Options{})
	runMatchCases(t, g, []matchCase{
		{"go far", `[1]`},
		{"go very very far", `[1]`},
		{"run", `[]`},
		{"run fast fast", `[2]`},
	})
}

func TestMatchConcurrent(t *testing.T) {
	g, err := Compile(FSLoader{os.DirFS("testdata")}, "music.agr", Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Each goroutine keeps every result it got and checks them at the end:
	// values come from chunks the matchers keep, and the start rule's
	// first-byte table is made by whichever call comes first.
	inputs := []string{"play Stand by Me by Ben E. King", "xylophone", "pause the music", "select songs"}
	want := map[string][]string{}
	for _, in := range inputs {
		ms, err := g.Match(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			want[in] = append(want[in], Canonical(m.Value))
		}
	}
	if len(want[inputs[0]]) != 2 || len(want["xylophone"]) != 0 {
		t.Fatalf("reference results: %v", want)
	}
	done := make(chan string)
	for i := 0; i < 8; i++ {
		go func() {
			var last string
			type got struct {
				in string
				ms []Match
			}
			var all []got
			for j := 0; j < 200; j++ {
				in := inputs[(i+j)%len(inputs)]
				ms, _ := g.Match(in)
				all = append(all, got{in, ms})
			}
			for _, r := range all {
				if len(r.ms) != len(want[r.in]) {
					last = fmt.Sprintf("%q: %d results, want %d", r.in, len(r.ms), len(want[r.in]))
					continue
				}
				for k, m := range r.ms {
					if c := Canonical(m.Value); c != want[r.in][k] {
						last = fmt.Sprintf("%q: result %d is now %s, want %s", r.in, k, c, want[r.in][k])
					}
				}
			}
			done <- last
		}()
	}
	for i := 0; i < 8; i++ {
		if s := <-done; s != "" {
			t.Error(s)
		}
	}
}

// An input too long for the dense memo table uses the map instead, with
// the same results.
func TestMatchLongInput(t *testing.T) {
	g, err := Compile(FSLoader{os.DirFS("testdata")}, "music.agr", Options{})
	if err != nil {
		t.Fatal(err)
	}
	track := strings.TrimSpace(strings.Repeat("la ", 40000))
	ms, err := g.Match("play " + track + " by Ben")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"actionName":"play","parameters":{"artist":"Ben","track":"` + track + `"}}`
	if len(ms) != 1 || Canonical(ms[0].Value) != want {
		t.Fatalf("got %d matches", len(ms))
	}
	if g.nrules*(len(track)+20)*2 <= maxMemoTab {
		t.Fatal("input not long enough to leave the dense table")
	}
}

// TestMatchCannotStart: inputs whose first byte no match can begin with
// give no match (and an empty, non-nil list) before the matcher is set
// up, as the search would; a start rule that can match nothing or start
// anywhere is always searched.
func TestMatchCannotStart(t *testing.T) {
	g := mustCompile(t, `<Start> = play $(x:wildcard) -> x | (please)? stop -> "stop";`, Options{})
	for _, in := range []string{"", "  ", " , ", "go play", "Xplay it", "über"} {
		ms, err := g.Match(in)
		if err != nil || ms == nil || len(ms) != 0 {
			t.Errorf("%q: %v %v, want an empty list", in, ms, err)
		}
	}
	runMatchCases(t, g, []matchCase{{" , PLAY it", `["it"]`}, {"Stop", `["stop"]`}, {"please stop", `["stop"]`}})
	// Every alternative 'p' selects begins with a literal: the first
	// word is tested too.
	g = mustCompile(t, `<Start> = play $(x:wildcard) -> x | pause -> "p" | stop -> "s";`, Options{})
	runMatchCases(t, g, []matchCase{{"please go", `[]`}, {" Pause ", `["p"]`}, {"pl", `[]`}, {"plays", `[]`}, {"PLAY  x", `["x"]`},
		{"play\u00e9 x", `[]`}, {"playé x", `[]`}, {"pLaY,,éé", `["éé"]`}})
	for _, in := range []string{"please go", "pl", "Xplay"} {
		if !g.cannotStart(in) {
			t.Errorf("%q: cannotStart is false", in)
		}
	}
	opt := mustCompile(t, `<Start> = (hello)? -> "hi";`, Options{})
	runMatchCases(t, opt, []matchCase{{"", `["hi"]`}, {" ", `["hi"]`}, {"hello", `["hi"]`}, {"bye", `[]`}})
}
