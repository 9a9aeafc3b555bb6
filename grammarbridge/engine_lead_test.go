package grammarbridge

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// leadTokens are literals whose first token starts with separators
// ('send', the quoted keywords of email.agr and the code grammars).
var leadTokens = [][]string{
	{"'send'"}, {"'can", "you'"}, {"'to'"}, {"''a"}, {"-play"}, {"'a'"},
	{"\"x\""}, {"'s"}, {"'what's", "up'"}, {",.k"}, {"'"}, {"''"},
	{"'send'", "'an'", "'email'"}, {"x", "'y'"}, {"'a'", "''b"}, {"a", "'"}, {"to", "-do"}, {"'can", "'you'"},
}

// checkStringAtLead compares stringAt, which tests one place for a token
// that starts with separators, with trying every place (stringAtLazy), and
// tokensAt (tokensASCII) with tokensFrom, which backtracks over the
// separators before such tokens.
func checkStringAtLead(t *testing.T, g *Grammar, in string, toks [][]string) {
	t.Helper()
	m := g.newMatcher(in, false)
	defer g.release(m)
	for _, tk := range toks {
		for _, sp := range []Spacing{SpacingAuto, SpacingRequired, SpacingOptional, SpacingNone} {
			p := literalPart(tk, sp)
			for pos := 0; pos <= len(in); pos++ {
				e1, ok1 := m.stringAt(&p, sp, pos)
				e2, ok2 := m.stringAtLazy(&p, sp, pos)
				if ok1 != ok2 || ok1 && e1 != e2 {
					t.Errorf("%q %q %v at %d: stringAt %d %v, lazy %d %v", in, tk, sp, pos, e1, ok1, e2, ok2)
				}
				e1, ok1 = m.tokensAt(&p, sp, pos)
				e2, ok2 = m.tokensFrom(&p, sp, 0, pos)
				if ok1 != ok2 || ok1 && e1 != e2 {
					t.Errorf("%q %q %v at %d: tokensAt %d %v, tokensFrom %d %v", in, tk, sp, pos, e1, ok1, e2, ok2)
				}
				if p.asciiToks && m.isASCII() {
					// tokensRange, as literal nodes and searches after a
					// wildcard use it, then the boundary.
					e3, ok3 := m.tokensRange(&p, 0, len(p.toks), pos)
					ok3 = ok3 && m.boundary(e3, sp)
					if ok3 != ok2 || ok3 && e3 != e2 {
						t.Errorf("%q %q %v at %d: tokensRange %d %v, tokensFrom %d %v", in, tk, sp, pos, e3, ok3, e2, ok2)
					}
				}
			}
		}
	}
}

// TestEngineStringAtLead checks the one-place test of literals that start
// with separators on chosen and random inputs.
func TestEngineStringAtLead(t *testing.T) {
	g := mustCompile(t, `<Start> = x -> 1;`, Options{})
	inputs := []string{
		"'send' 'to' Bob", "  'SEND'", "''send'", " ,'send'", "'sendx'", "send'",
		"'can' 'you'", "'can you'", "'Can  You' x", "'''a", "''a", "-play", "--play",
		"'what's up'", "x 'to'", "'", "''", " ' ", "", "  \u00a0'send'", "é'send'",
		"'send' 'an' 'email'", "'send''an'  ,'email'x", "x'y'", "x 'y'", "x''y'", "'a'''b", "'a' ''b", "a'", "a '",
		"to-do", "to -do", "to--do", "'can 'you'", "'can'you'",
	}
	for _, in := range inputs {
		checkStringAtLead(t, g, in, leadTokens)
	}
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "''' ,.-\"sendtoyucabxSNKk"
	for range 400 {
		b := make([]byte, r.IntN(14))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		checkStringAtLead(t, g, string(b), leadTokens)
	}
}

// FuzzEngineStringAtLead is TestEngineStringAtLead on any input.
func FuzzEngineStringAtLead(f *testing.F) {
	for _, s := range []string{"'send' 'to' Bob", "''a", " ,'send'", "'Can  You' x", "--play"} {
		f.Add(s)
	}
	g, err := CompileString("t.agr", `<Start> = x -> 1;`, Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) > 64 {
			return
		}
		checkStringAtLead(t, g, in, leadTokens)
	})
}

// TestEngineNextCandidateLead checks the search for tokens that start with
// separators (the rest of the token first) against a plain search.
func TestEngineNextCandidateLead(t *testing.T) {
	g := mustCompile(t, `<Start> = x -> 1;`, Options{})
	inputs := []string{
		"'send' 'to' Bob 'to' x", "to' 'to'", "''to'", "'TO' 'tO'", "x'to'y", "'t'o'", "",
		"'send' 'an' 'email' to Zoe's friend 'to' the 'to' of " + strings.Repeat("'to ", 20) + "'to'",
	}
	for _, in := range inputs {
		m := g.newMatcher(in, false)
		for _, tk := range []string{"'to'", "''to'", "'t", ",.k", "'send'", "-x"} {
			p := literalPart([]string{tk}, SpacingAuto)
			if p.toks[0].lead == 0 {
				t.Fatalf("%q: no lead", tk)
			}
			for from := 0; from <= len(in); from++ {
				want := -1
				if j := strings.Index(strings.ToLower(in[from:]), tk); j >= 0 {
					want = from + j
				}
				if got := m.nextCandidate(&p, from); got != want {
					t.Errorf("%q: token %q from %d: got %d, want %d", in, tk, from, got, want)
				}
			}
		}
		g.release(m)
	}
}
