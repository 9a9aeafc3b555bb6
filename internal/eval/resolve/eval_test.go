package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect/fuzzy"
)

// TestEvalFixture runs the whole evaluation on a small fixture with the
// shared data's layout and checks the figures it prints.
func TestEvalFixture(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out, "testdata", 20); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		// serch, searhing, recal, gettin, calcualte right; xqzt unresolved.
		"non-strict rows 6: right verb 5/6 = 83.33%, wrong verb 0/6 = 0.00%, unresolved 1/6 = 16.67%",
		"strict-verb rows 3: resolved to a verb 0 (must be 0), near miss naming the verb 3",
		"overall   5/6 = 83.33%", // aken → ache is beyond the rules
		"Soundex codes (soundex.tsv):                       4/4 = 100.00%",
		"Soundex difference (soundex_difference.tsv):       2/2 = 100.00%",
		"/search ×1 → search (exact)",
		"resolved by a tier other than exact/case: 0",
		"/etc→none /data→none /tmp→none /app→none /div→none /f→none",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

func TestFindSlashWords(t *testing.T) {
	got := findSlashWords("Edit /etc/hosts, </div> 1/2 a/b https://x.y/recall (/f) \\/no [/look-up] /2 /-x\n/tmp")
	want := []string{"etc", "div", "f", "look-up", "tmp"}
	if !slices.Equal(got, want) {
		t.Errorf("findSlashWords = %q, want %q", got, want)
	}
}

// TestLookalikes holds (f) to its target on the built-in vocabulary: no
// fold look-alike of a strict name resolves, each is a near miss naming
// its verb.
func TestLookalikes(t *testing.T) {
	ours := builtinEntries()
	r, err := fuzzy.New(ours, fuzzy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := evalLookalikes(ours, r)
	if len(l.leaks) != 0 || l.near != l.tokens || l.tokens < 50 {
		t.Errorf("%d look-alikes, %d near misses, resolved: %v", l.tokens, l.near, l.leaks)
	}
}

func TestOneEdits(t *testing.T) {
	got := oneEdits("ab")
	for _, want := range []string{"a", "b", "ba", "xab", "axb", "abx", "xb", "ax"} {
		if !slices.Contains(got, want) {
			t.Errorf("oneEdits(ab) lacks %q", want)
		}
	}
	if slices.Contains(got, "ab") || len(got) != 2+1+26*3+26*2-4 {
		t.Errorf("oneEdits(ab) = %d strings", len(got))
	}
}

func TestBigVocabulary(t *testing.T) {
	rows := [][]string{{"a", "b", "zap"}, {"a", "b", "zap"}, {"a", "b", "yank"}, {"a", "b", "search"}}
	es := bigVocabulary(rows, 18)
	if len(es) != 18 || es[16].Verb != "zap" || es[17].Verb != "yank" {
		t.Errorf("bigVocabulary: %d entries, tail %+v", len(es), es[len(es)-2:])
	}
	for _, e := range es[16:] {
		if e.Strictness != fuzzy.Normal {
			t.Errorf("custom verb %s is %s", e.Verb, e.Strictness)
		}
	}
}

// TestEvalSharedData runs the real evaluation when the shared data is
// present and -short is not set, and holds it to the targets.
func TestEvalSharedData(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	dir := os.Getenv("DIALECT_DATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "..", "shared", "data")
	}
	if _, err := os.Stat(filepath.Join(dir, "misspellings")); err != nil {
		t.Skipf("no shared data at %s", dir)
	}
	rows, err := readTSVFile(filepath.Join(dir, "misspellings", "verb_misspellings.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	ours := builtinEntries()
	r, err := fuzzy.New(ours, fuzzy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	own, strict := owners(ours)
	s := evalMisspellings(rows, r, own, strict, 2)
	if 100*s.correct < 95*s.rows || 1000*s.wrong > 5*s.rows || s.strictResolved != 0 {
		t.Errorf("misspellings: %d/%d right, %d wrong, %d strict resolved", s.correct, s.rows, s.wrong, s.strictResolved)
	}
	// Every one-edit typo of every name: never the wrong verb, never a
	// strict one.
	if ty := evalTypos(ours, r); ty.wrong != 0 || ty.strictResolve != 0 || ty.tokens < 10000 {
		t.Errorf("one-edit typos: %d tokens, %d wrong, %d strict resolved: %v", ty.tokens, ty.wrong, ty.strictResolve, ty.wrongExamples)
	}
	mrows, err := readTSVFile(filepath.Join(dir, "morph", "verb_inflections.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if m := evalMorph(mrows); 100*m.all.n < 97*m.all.of {
		t.Errorf("morphology %s, want >= 97%%", m.all)
	}
	fr, err := evalFalseMatches(filepath.Join(dir, "llm_outputs"), r)
	if err != nil {
		t.Fatal(err)
	}
	for w, res := range fr.resolved {
		if res.Tier != fuzzy.TierExact && res.Tier != fuzzy.TierCase {
			t.Errorf("/%s in llm_outputs resolved to %s by %s", w, res.Verb, res.Tier)
		}
	}
}
