package grammarbridge

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// distinctKeys returns the canonical texts of a match list, sorted.
func distinctKeys(ms []Match) string {
	keys := make([]string, len(ms))
	for i, m := range ms {
		keys[i] = Canonical(m.Value)
	}
	slicesSort(keys)
	return strings.Join(keys, "\n")
}

func slicesSort(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// compareNaive matches in with the optimized and the naive matcher and
// fails when the distinct sets or the best match's counts differ.
func compareNaive(t *testing.T, fast, slow *Grammar, in string) {
	t.Helper()
	a, errA := fast.Match(in)
	b, errB := slow.Match(in)
	if errA != nil || errB != nil {
		return // the naive search may hit the work limit; nothing to compare
	}
	if ka, kb := distinctKeys(a), distinctKeys(b); ka != kb {
		t.Fatalf("%q:\noptimized:\n%s\nnaive:\n%s", in, ka, kb)
	}
	if len(a) > 0 && (a[0].MatchedValues != b[0].MatchedValues || a[0].WildcardChars != b[0].WildcardChars) {
		t.Fatalf("%q: best counts %d/%d, naive %d/%d", in, a[0].MatchedValues, a[0].WildcardChars, b[0].MatchedValues, b[0].WildcardChars)
	}
}

// TestNaiveEquivalence checks that memoization, first-byte pruning and the
// other optimizations change no result: on the fixtures and, when present,
// on every real grammar with cases, over the reference inputs and random
// recombinations of their words.
func TestNaiveEquivalence(t *testing.T) {
	type pair struct {
		name       string
		fast, slow *Grammar
		inputs     []string
	}
	var pairs []pair
	for _, name := range []string{"music.agr", "spacing.agr", "values.agr"} {
		fast, err := Compile(FSLoader{os.DirFS("testdata")}, name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		slow, _ := Compile(FSLoader{os.DirFS("testdata")}, name, Options{naive: true, WorkLimit: 200000})
		pairs = append(pairs, pair{name, fast, slow, []string{
			"play Stand by Me by Ben E. King", "play the twenty-first song", "select songs", "pause the music",
			"say hello big world", "gamma 5", "deletetaskflowfoo", "sum 5 and 3", "opt thing end", "nest abc"}})
	}
	base := os.Getenv("DIALECT_DATA")
	if base == "" {
		base = filepath.Join("..", "..", "shared", "data")
	}
	if _, err := os.Stat(filepath.Join(base, "agr", "cases")); err == nil {
		dir := filepath.Join(base, "agr")
		for _, name := range caseGrammars(t, dir) {
			if name == "code-editor" && testing.Short() {
				continue
			}
			var inputs []string
			for _, c := range readRefCases(t, dir, name) {
				inputs = append(inputs, c.Input)
			}
			pairs = append(pairs, pair{name, compileData(t, dir, name, Options{}), compileData(t, dir, name, Options{naive: true, WorkLimit: 200000}), inputs})
		}
	}
	// The verbs' argument grammars (verbs/grammars), on inputs made of
	// the lexer's placeholders and the grammars' own words: a shape the
	// reference grammars lack (a captured rule with a number, shared by
	// alternatives) once crashed the matcher there.
	files, _ := filepath.Glob(filepath.Join("..", "verbs", "grammars", "*.agr"))
	for _, file := range files {
		if filepath.Base(file) == "common.agr" {
			continue // shared rules, imported by the others
		}
		fast, err := Compile(OSLoader{}, file, Options{})
		if err != nil {
			t.Fatal(err)
		}
		slow, _ := Compile(OSLoader{}, file, Options{naive: true, WorkLimit: 200000})
		pairs = append(pairs, pair{"verbs/" + filepath.Base(file), fast, slow, verbsInputs(t, file)})
	}
	rng := rand.New(rand.NewPCG(4, 2))
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			var words []string
			for _, in := range p.inputs {
				compareNaive(t, p.fast, p.slow, in)
				words = append(words, strings.Fields(in)...)
			}
			n := 40
			if testing.Short() {
				n = 5
			}
			for i := 0; i < n && len(words) > 0; i++ {
				k := 1 + rng.IntN(8)
				var b strings.Builder
				for j := 0; j < k; j++ {
					if j > 0 {
						b.WriteByte(' ')
					}
					b.WriteString(words[rng.IntN(len(words))])
				}
				compareNaive(t, p.fast, p.slow, b.String())
			}
		})
	}
}

// verbsInputs returns inputs for a verbs grammar: the lexer's
// placeholders (verbs/lex.go) and the words of the grammar's source,
// alone and in pairs.
func verbsInputs(t *testing.T, file string) []string {
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"zw1", "zw 2", "zq3", "za4", "zu5", "zr6", "7"}
	seen := map[string]bool{}
	for _, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "//") {
			continue
		}
		for _, w := range strings.FieldsFunc(line, func(r rune) bool { return r < 'a' || r > 'z' }) {
			if !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	ins := append([]string(nil), words...)
	for i, a := range words {
		ins = append(ins, a+" "+words[(i*7+3)%len(words)], "zw1 "+a, "zw1 zq2 "+a)
	}
	return ins
}
