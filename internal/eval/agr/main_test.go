package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
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
	if err := benchmark(dataDirs("testdata/agr", ""), "", benchConfig{rounds: 2, repeat: 2}, &b); err != nil {
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
	if err := benchmark(dataDirs("testdata/agr", dir), "", benchConfig{rounds: 1, repeat: 1}, &b); err != nil {
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

// -typeagent runs the embedded driver with Node against an actionGrammar
// package. The package here is a stand-in whose matcher spins for 1 ms
// an input (and throws on one, which the driver times with the rest), so
// the TypeAgent column must read at least that, and the same-run ratio
// must be TypeAgent's time over grammarbridge's. The spin is long enough
// that grammarbridge stays well below it under the race detector on a
// busy machine, so an inverted ratio (below 1) cannot pass; the ratio is
// checked against the medians within a factor of 4, as a pause of the
// machine in one of the two pairs moves the two differently.
func TestTypeAgentPairs(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node:", err)
	}
	pkg := fakePackage(t, `import fs from "node:fs";
export function loadGrammarRules(file) { return { text: fs.readFileSync(file, "utf-8") }; }
export function matchGrammar(grammar, input) {
    if (typeof grammar.text !== "string" || typeof input !== "string") throw new Error("bad call");
    const end = performance.now() + 1;
    while (performance.now() < end) {}
    if (input.includes("halt")) throw new Error("thrown, and timed");
    return [];
}
`)
	ta, closeTA, err := newTypeAgent(pkg)
	if err != nil {
		t.Fatal(err)
	}
	defer closeTA()
	var b strings.Builder
	if err := benchmark(dataDirs("testdata/agr", ""), "", benchConfig{rounds: 4, pairs: 2, ta: ta}, &b); err != nil {
		t.Fatal(err)
	}
	var ours, theirs, ratio float64
	for _, line := range strings.Split(b.String(), "\n") {
		if f := strings.Fields(line); len(f) == 8 && f[0] == "tiny" {
			ours, _ = strconv.ParseFloat(f[2], 64)
			theirs, _ = strconv.ParseFloat(f[3], 64)
			ratio, _ = strconv.ParseFloat(strings.TrimSuffix(f[4], "x"), 64)
		}
	}
	if theirs < 1000 || ours <= 0 || ratio <= 1 || ratio < theirs/ours/4 || ratio > 4*theirs/ours {
		t.Errorf("tiny: ours %v µs, TypeAgent %v µs, same-run %vx; want TypeAgent >= 1000 and the ratio theirs/ours, above 1:\n%s", ours, theirs, ratio, b.String())
	}
	if !strings.Contains(b.String(), "slowest same-run speedup") {
		t.Errorf("no summary line:\n%s", b.String())
	}
}

// A directory that is not a built package, and a package whose grammar
// loader fails, are errors that say so.
func TestTypeAgentErrors(t *testing.T) {
	if _, _, err := newTypeAgent(t.TempDir()); err == nil || !strings.Contains(err.Error(), "dist/index.js") {
		t.Errorf("empty directory: err = %v, want one naming dist/index.js", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node:", err)
	}
	pkg := fakePackage(t, `export function loadGrammarRules() { throw new Error("cannot load this grammar"); }
export function matchGrammar() { return []; }
`)
	ta, closeTA, err := newTypeAgent(pkg)
	if err != nil {
		t.Fatal(err)
	}
	defer closeTA()
	if _, err := ta.time("testdata/agr/grammars/tiny.agr", []string{"stop"}, 1); err == nil || !strings.Contains(err.Error(), "cannot load this grammar") {
		t.Errorf("err = %v, want TypeAgent's own message", err)
	}
}

// fakePackage makes a stand-in for a built actionGrammar package whose
// dist/index.js is js, and returns its directory.
func fakePackage(t *testing.T, js string) string {
	t.Helper()
	pkg := t.TempDir()
	if err := os.Mkdir(filepath.Join(pkg, "dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "dist", "index.js"), []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	return pkg
}
