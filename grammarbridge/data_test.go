package grammarbridge

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// dataDir returns the shared agr data directory ($DIALECT_DATA/agr, by
// default ../../shared/data/agr from this package), skipping the test when
// it is absent.
func dataDir(tb testing.TB) string {
	base := os.Getenv("DIALECT_DATA")
	if base == "" {
		base = filepath.Join("..", "..", "shared", "data")
	}
	dir := filepath.Join(base, "agr")
	if _, err := os.Stat(filepath.Join(dir, "cases")); err != nil {
		tb.Skipf("shared data not found at %s (set DIALECT_DATA)", dir)
	}
	return dir
}

// refCase is one line of cases/<name>.jsonl.
type refCase struct {
	Input    string `json:"input"`
	Matches  []any  `json:"matches"`
	Top      any    `json:"top"`
	TopTies  []any  `json:"top_ties"`
	TopStats *struct {
		MatchedValueCount int `json:"matchedValueCount"`
		WildcardCharCount int `json:"wildcardCharCount"`
	} `json:"top_stats"`
}

// caseGrammars lists the grammars that have cases, sorted.
func caseGrammars(tb testing.TB, dir string) []string {
	files, err := filepath.Glob(filepath.Join(dir, "cases", "*.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".jsonl"))
	}
	sort.Strings(names)
	return names
}

func readRefCases(tb testing.TB, dir, name string) []refCase {
	return readCaseFile(tb, filepath.Join(dir, "cases", name+".jsonl"))
}

// readCaseFile reads a file of reference cases, one JSON object a line.
func readCaseFile(tb testing.TB, file string) []refCase {
	name := filepath.Base(file)
	f, err := os.Open(file)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []refCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var c refCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

func compileData(tb testing.TB, dir, name string, opts Options) *Grammar {
	g, err := Compile(OSLoader{}, filepath.Join(dir, "grammars", name+".agr"), opts)
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return g
}

// matchRefCases matches every reference input of every grammar with
// hook as the record hook (it sees every parse); without the shared data
// it skips the rest of the test.
func matchRefCases(t *testing.T, hook func(*matcher)) {
	dir := dataDir(t)
	for _, name := range caseGrammars(t, dir) {
		g := compileData(t, dir, name, Options{})
		g.recordHook = hook
		for _, c := range readRefCases(t, dir, name) {
			if _, err := g.Match(c.Input); err != nil {
				t.Fatal(err)
			}
		}
	}
}
