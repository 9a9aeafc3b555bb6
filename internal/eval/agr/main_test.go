package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/grammarbridge"
)

// The fixture has three cases: two the matcher agrees with and one whose
// recorded answer is deliberately wrong, so the difference report is
// exercised.
func TestEvaluateFixture(t *testing.T) {
	var b strings.Builder
	sum, err := evaluate(dataDirs("testdata/agr", ""), "", true, grammarbridge.Options{}, &b)
	if err != nil {
		t.Fatal(err)
	}
	if sum.grammars != 1 || sum.cases != 3 || sum.identical != 2 || sum.different != 1 || sum.errors != 0 {
		t.Errorf("summary %+v\n%s", sum, b.String())
	}
	if sum.topAgree != 2 || sum.topCases != 2 {
		t.Errorf("top agreement %d/%d\n%s", sum.topAgree, sum.topCases, b.String())
	}
	out := b.String()
	for _, want := range []string{`"halt":`, `missing {"stop":true}`, "TOTAL"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestBenchmarkFixture(t *testing.T) {
	var b strings.Builder
	if err := benchmark(dataDirs("testdata/agr", ""), "", 2, 2, &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"tiny", "compile tiny.agr", "speedup"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// With -cases, the cases and timings come from that directory and the
// grammars still from the data's: a directory with only the fixture's
// first case and a timing of its own is what both read.
func TestCasesDir(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/agr/cases/tiny.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSpace(string(src)), "\n")
	if err := os.WriteFile(filepath.Join(dir, "tiny.jsonl"), []byte(lines[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "timings.tsv"), []byte("grammar\tinputs\tmean_us_opt_none\ntiny\t1\t123456\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	sum, err := evaluate(dataDirs("testdata/agr", dir), "", false, grammarbridge.Options{}, &b)
	if err != nil {
		t.Fatal(err)
	}
	if sum.cases != 1 || sum.identical != 1 {
		t.Errorf("summary %+v, want the one case of %s\n%s", sum, dir, b.String())
	}
	b.Reset()
	if err := benchmark(dataDirs("testdata/agr", dir), "", 1, 1, &b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "123456.0") {
		t.Errorf("benchmark did not read %s/timings.tsv:\n%s", dir, b.String())
	}
}

// warmUp runs until the collector has run twice, however many rounds
// that takes, so that the timed rounds start from a heap that has taken
// its pages back (it stopped after the timed rounds' number before, and
// a grammar that allocates little was timed while the heap grew); only
// maxWarmUp stops it sooner.
func TestWarmUpRunsCollectorTwice(t *testing.T) {
	g, err := grammarbridge.Compile(grammarbridge.OSLoader{}, "testdata/agr/grammars/tiny.agr", grammarbridge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases, err := readCases("testdata/agr/cases/tiny.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	inputs := make([]string, len(cases))
	for i, c := range cases {
		inputs[i] = c.Input
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	gc0, start := ms.NumGC, time.Now()
	warmUp(g, inputs)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&ms)
	if ms.NumGC < gc0+2 && elapsed < maxWarmUp {
		t.Errorf("warmUp returned after %v and %d collections, want two (or %v)", elapsed, ms.NumGC-gc0, maxWarmUp)
	}
}
