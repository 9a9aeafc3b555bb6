package grammarbridge

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestBestIsMatchFirst checks that Best, which keeps only the best value
// as it goes (matcher.keepBest), gives Match's first result: the same
// value and counts, and the same error kind when nothing matches or the
// work limit is hit. The inputs are every reference input of the shared
// data and random inputs of each grammar's case words, which have many
// parses, ties in rank and values found again with better counts.
func TestBestIsMatchFirst(t *testing.T) {
	dir := dataDir(t)
	r := rand.New(rand.NewPCG(3, 8))
	ties := 0 // inputs whose first result ties the second in rank
	for _, name := range caseGrammars(t, dir) {
		g := compileData(t, dir, name, Options{WorkLimit: 200000})
		cases := readRefCases(t, dir, name)
		var inputs, words []string
		for _, c := range cases {
			inputs = append(inputs, c.Input)
			words = append(words, strings.Fields(c.Input)...)
		}
		for range 40 {
			ws := strings.Fields(cases[r.IntN(len(cases))].Input)
			ws = ws[:min(len(ws), 1+r.IntN(3))]
			for range 3 + r.IntN(10) {
				ws = append(ws, words[r.IntN(len(words))])
			}
			inputs = append(inputs, strings.Join(ws, " "))
		}
		for _, in := range inputs {
			ms, err := g.Match(in)
			best, berr := g.Best(in)
			switch {
			case err != nil:
				if !errors.Is(err, ErrWorkLimit) || !errors.Is(berr, ErrWorkLimit) {
					t.Errorf("%s %q: Match %v, Best %v", name, in, err, berr)
				}
				continue
			case len(ms) == 0:
				if !errors.Is(berr, ErrNoMatch) {
					t.Errorf("%s %q: no match, Best gives %v", name, in, berr)
				}
				continue
			case berr != nil:
				t.Errorf("%s %q: %d matches, Best gives %v", name, in, len(ms), berr)
				continue
			}
			if len(ms) > 1 && ms[0].MatchedValues == ms[1].MatchedValues && ms[0].WildcardChars == ms[1].WildcardChars {
				ties++
			}
			if Canonical(best.Value) != Canonical(ms[0].Value) || best.MatchedValues != ms[0].MatchedValues || best.WildcardChars != ms[0].WildcardChars {
				t.Errorf("%s %q: Best %s (%d, %d), Match's first %s (%d, %d)", name, in,
					Canonical(best.Value), best.MatchedValues, best.WildcardChars,
					Canonical(ms[0].Value), ms[0].MatchedValues, ms[0].WildcardChars)
			}
		}
	}
	if ties == 0 {
		t.Fatal("no input's best match ties another: the test does not check the order of ties")
	}
	t.Logf("%d inputs with a tie for the best rank", ties)
}
