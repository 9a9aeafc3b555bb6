package grammarbridge

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestConformance checks every reference case of the shared data: the
// distinct match set must equal TypeAgent's, and the best match must be
// TypeAgent's top match (or one of its ties) with the same ranking counts.
// It skips when the data is absent; with -short it checks every fifth case.
func TestConformance(t *testing.T) {
	dir := dataDir(t)
	total, checked := 0, 0
	for _, name := range caseGrammars(t, dir) {
		g := compileData(t, dir, name, Options{})
		n, k := checkCases(t, g, name, readRefCases(t, dir, name))
		total += n
		checked += k
	}
	if total < 2731 {
		t.Errorf("read %d cases, want at least 2731", total)
	}
	t.Logf("checked %d of %d cases", checked, total)
}

// TestConformanceGenerated checks all 59 real grammars of the shared data,
// the 28 that have no reference cases there among them, against
// TypeAgent's answers to inputs made for them by agrgen (testdata/ref,
// docs/grammar-ref.md), as TestConformance does: the grammars are the
// shared data's, the answers those of TypeAgent's matcher at the revision
// the data names.
func TestConformanceGenerated(t *testing.T) {
	dir := dataDir(t)
	files, err := filepath.Glob(filepath.Join("testdata", "ref", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 59 {
		t.Fatalf("%d files of cases in testdata/ref, want 59", len(files))
	}
	total, checked := 0, 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		g := compileData(t, dir, name, Options{})
		n, k := checkCases(t, g, name, readCaseFile(t, f))
		total += n
		checked += k
	}
	t.Logf("checked %d of %d cases", checked, total)
}

// TestConformanceOverlap checks TypeAgent's answers on literals that can
// begin again inside a match of themselves, found after a wildcard ("a a"
// in "b a a a", "that" in "thathat"): TypeAgent looks for the next match
// where the last one ended, so a place inside a match is never tried
// (matcher.skipInside). The grammar has such literals as plain parts,
// keywords, the leads of a simple rule and the alternatives of a
// captured rule. 46 of the 206 cases differed before it.
func TestConformanceOverlap(t *testing.T) {
	g, err := Compile(OSLoader{}, filepath.Join("testdata", "overlap", "overlap.agr"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases := readCaseFile(t, filepath.Join("testdata", "overlap", "overlap.jsonl"))
	if len(cases) != 206 {
		t.Fatalf("%d cases, want 206", len(cases))
	}
	checkCases(t, g, "overlap", cases)
}

// checkCases checks g on cases: the distinct match set must equal
// TypeAgent's, and the best match must be TypeAgent's top match (or one
// of its ties) with the same ranking counts. With -short it checks every
// fifth case. It returns the cases read and checked.
func checkCases(t *testing.T, g *Grammar, name string, cases []refCase) (total, checked int) {
	t.Helper()
	for i, c := range cases {
		total++
		if testing.Short() && i%5 != 0 {
			continue
		}
		checked++
		checkHashes(t, g, c.Input)
		ms, err := g.Match(c.Input)
		if err != nil {
			t.Errorf("%s %q: %v", name, c.Input, err)
			continue
		}
		got := map[string]bool{}
		for _, m := range ms {
			got[Canonical(m.Value)] = true
		}
		want := map[string]bool{}
		for _, v := range c.Matches {
			want[Canonical(v)] = true
		}
		same := len(got) == len(want)
		for k := range want {
			same = same && got[k]
		}
		if !same {
			t.Errorf("%s %q:\n got %v\nwant %v", name, c.Input, got, want)
			continue
		}
		if c.Top == nil {
			continue
		}
		top := Canonical(ms[0].Value)
		ok := top == Canonical(c.Top)
		for _, tie := range c.TopTies {
			ok = ok || top == Canonical(tie)
		}
		if st := c.TopStats; st != nil && (st.MatchedValueCount != ms[0].MatchedValues || st.WildcardCharCount != ms[0].WildcardChars) {
			ok = false
		}
		if !ok {
			t.Errorf("%s %q: best %s (%d, %d), TypeAgent %s %+v", name, c.Input, top, ms[0].MatchedValues, ms[0].WildcardChars, Canonical(c.Top), *c.TopStats)
		}
	}
	return total, checked
}

// checkHashes checks that the hashes computed while values are built are
// those of the values (hashValue), which deduplication relies on.
func checkHashes(t *testing.T, g *Grammar, in string) {
	t.Helper()
	m := g.newMatcher(in, false)
	defer g.release(m)
	m.run()
	for i := range m.results {
		r := &m.results[i]
		v := decodeJSON(t, m.resultValue(r))
		if r.hash != hashValue(v) {
			t.Fatalf("%q: built hash %x, hashValue %x for %s", in, r.hash, hashValue(v), Canonical(v))
		}
	}
}
