// Command agr measures grammarbridge's conformance with TypeAgent's .agr
// matcher on the real grammars and cases in $DIALECT_DATA/agr (default
// ../shared/data relative to the repository root): for every grammar with
// cases it prints the cases, how many give the identical distinct match set,
// how many differ, and each difference with what was missing and extra. It
// also reports how often the best match agrees with TypeAgent's top match.
// With -bench N it times N rounds over each grammar's inputs instead and
// compares the CPU time per input with TypeAgent's timings.tsv (200 warm
// iterations there, so N = 200 measures alike: long enough that garbage
// collection runs as often as it would in steady use). Each timing starts
// warm, as TypeAgent's do: after rounds that have run the collector twice,
// or for at most a second (benchGrammar); the last column is the page
// faults per 1000 inputs that remain.
//
// -typeagent DIR times TypeAgent's own matcher as well, from its built
// actionGrammar package DIR, with Node: -pairs runs of each per grammar,
// alternated, and the ratio taken within each pair. This machine's speed
// swings by two times and more between minutes, so a ratio between
// timings taken together is the sound one; the table gives its median,
// its lowest pair, and the ratio to timings.tsv as well.
//
// -cases reads another directory of cases (and its timings.tsv), such as
// grammarbridge/testdata/ref, TypeAgent's answers for all 59 grammars.
// -deviations matches as `dialect grammar match` does by default, with
// the documented deviations from TypeAgent: the differences it reports
// are the cases those change.
//
//	go run ./internal/eval/agr [-data DIR] [-v] [-grammar NAME] [-cases DIR] [-deviations]
//	go run ./internal/eval/agr -bench 200 -repeat 3 [-grammar NAME]
//	go run ./internal/eval/agr -bench 200 -typeagent DIR [-pairs 5] [-grammar NAME]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"

	"github.com/pattern-dialect/dialect/grammarbridge"
)

func main() {
	def := os.Getenv("DIALECT_DATA")
	if def == "" {
		def = "../shared/data"
	}
	data := flag.String("data", def, "the shared data directory (holding agr/)")
	only := flag.String("grammar", "", "evaluate only this grammar")
	deviations := flag.Bool("deviations", false, "match as `dialect grammar match` does by default, with the documented deviations from TypeAgent (docs/grammar.md): the differences are the cases they change")
	casesDir := flag.String("cases", "", "read the cases (`dir`/<grammar>.jsonl) and timings (dir/timings.tsv) from dir instead of the data's agr/cases and agr/timings.tsv")
	verbose := flag.Bool("v", false, "print every top-match disagreement too")
	bench := flag.Int("bench", 0, "instead of conformance, time `N` rounds over each grammar's inputs")
	repeat := flag.Int("repeat", 3, "with -bench, keep the fastest of `N` runs")
	cpuprofile := flag.String("cpuprofile", "", "with -bench, write a CPU profile to `file`")
	typeagent := flag.String("typeagent", "", "with -bench, time TypeAgent's matcher too, in the same run, from its built actionGrammar package `dir` (ts/packages/actionGrammar, with dist/index.js; needs node)")
	pairs := flag.Int("pairs", 5, "with -typeagent, alternate `N` runs of each per grammar")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "agr:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "agr:", err)
			os.Exit(1)
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	src := dataDirs(filepath.Join(*data, "agr"), *casesDir)
	if *bench > 0 {
		// The comparison is of one core's work: the matcher runs on one
		// goroutine, as TypeAgent's timings are of one Node thread's.
		// With a second P the collector's idle workers take the other
		// core whenever it marks, and their CPU time counts
		// (code-editor: 19.8-28.4 µs an input against 16.8-21.0 µs with
		// one P, alternated). GOMAXPROCS set in the environment is kept.
		if os.Getenv("GOMAXPROCS") == "" {
			runtime.GOMAXPROCS(1)
		}
		fmt.Printf("GOMAXPROCS=%d\n", runtime.GOMAXPROCS(0))
		if *pairs < 1 {
			fmt.Fprintln(os.Stderr, "agr: -pairs must be at least 1")
			os.Exit(2)
		}
		cfg := benchConfig{rounds: *bench, repeat: *repeat, pairs: *pairs}
		cleanup := func() {}
		if *typeagent != "" {
			ta, rm, err := newTypeAgent(*typeagent)
			if err != nil {
				fmt.Fprintln(os.Stderr, "agr:", err)
				os.Exit(1)
			}
			cfg.ta, cleanup = ta, rm
		}
		err := benchmark(src, *only, cfg, os.Stdout)
		cleanup() // before os.Exit, which runs no deferred calls
		if err != nil {
			fmt.Fprintln(os.Stderr, "agr:", err)
			os.Exit(1)
		}
		return
	}
	var opts grammarbridge.Options
	if *deviations {
		opts = opts.AsAuthored()
	}
	sum, err := evaluate(src, *only, *verbose, opts, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "agr:", err)
		os.Exit(1)
	}
	if sum.different > 0 || sum.errors > 0 {
		os.Exit(1)
	}
}

// dirs says where a run reads grammars, cases and TypeAgent's timings.
type dirs struct {
	grammars string // <name>.agr
	cases    string // <name>.jsonl
	timings  string // timings.tsv
}

// dataDirs returns the shared data's directories (agr is its agr/), with
// the cases and timings from cases instead when it is not empty.
func dataDirs(agr, cases string) dirs {
	d := dirs{filepath.Join(agr, "grammars"), filepath.Join(agr, "cases"), filepath.Join(agr, "timings.tsv")}
	if cases != "" {
		d.cases, d.timings = cases, filepath.Join(cases, "timings.tsv")
	}
	return d
}

// summary totals an evaluation.
type summary struct {
	grammars, cases, identical, different, errors int
	topAgree, topCases                            int
}

// tcase is one line of cases/<name>.jsonl.
type tcase struct {
	Input    string `json:"input"`
	Matches  []any  `json:"matches"`
	Top      any    `json:"top"`
	TopTies  []any  `json:"top_ties"`
	TopStats *struct {
		MatchedValueCount int `json:"matchedValueCount"`
		WildcardCharCount int `json:"wildcardCharCount"`
	} `json:"top_stats"`
	RefError string `json:"reference_error"`
}

// evaluate runs every grammar that has a cases file under dir (or only the
// named one) and writes the report to w.
func evaluate(dir dirs, only string, verbose bool, opts grammarbridge.Options, w io.Writer) (summary, error) {
	var sum summary
	files, err := filepath.Glob(filepath.Join(dir.cases, "*.jsonl"))
	if err != nil {
		return sum, err
	}
	if len(files) == 0 {
		return sum, fmt.Errorf("no cases in %s", dir.cases)
	}
	sort.Strings(files)
	fmt.Fprintf(w, "%-30s %6s %9s %9s %9s\n", "grammar", "cases", "identical", "different", "top-agree")
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		if only != "" && name != only {
			continue
		}
		sum.grammars++
		g, err := grammarbridge.Compile(grammarbridge.OSLoader{}, filepath.Join(dir.grammars, name+".agr"), opts)
		if err != nil {
			fmt.Fprintf(w, "%-30s compile error: %v\n", name, err)
			sum.errors++
			continue
		}
		cases, err := readCases(f)
		if err != nil {
			return sum, err
		}
		var ident, diff, topAgree, topCases int
		var notes []string
		for _, c := range cases {
			ms, err := g.Match(c.Input)
			if err != nil {
				diff++
				notes = append(notes, fmt.Sprintf("  %q: error: %v", c.Input, err))
				continue
			}
			got := map[string]bool{}
			for _, m := range ms {
				got[grammarbridge.Canonical(m.Value)] = true
			}
			want := map[string]bool{}
			for _, v := range c.Matches {
				want[grammarbridge.Canonical(v)] = true
			}
			missing, extra := setDiff(want, got), setDiff(got, want)
			if len(missing) == 0 && len(extra) == 0 {
				ident++
			} else {
				diff++
				note := fmt.Sprintf("  %q:", c.Input)
				for _, s := range missing {
					note += "\n      missing " + s
				}
				for _, s := range extra {
					note += "\n      extra   " + s
				}
				notes = append(notes, note)
			}
			if c.Top != nil && len(ms) > 0 {
				topCases++
				ok := grammarbridge.Canonical(ms[0].Value) == grammarbridge.Canonical(c.Top)
				for _, t := range c.TopTies {
					ok = ok || grammarbridge.Canonical(ms[0].Value) == grammarbridge.Canonical(t)
				}
				if st := c.TopStats; st != nil && (st.MatchedValueCount != ms[0].MatchedValues || st.WildcardCharCount != ms[0].WildcardChars) {
					ok = false
				}
				if ok {
					topAgree++
				} else if verbose {
					notes = append(notes, fmt.Sprintf("  %q: top %s %d/%d, TypeAgent %s %v", c.Input, grammarbridge.Canonical(ms[0].Value), ms[0].MatchedValues, ms[0].WildcardChars, grammarbridge.Canonical(c.Top), *c.TopStats))
				}
			}
		}
		fmt.Fprintf(w, "%-30s %6d %9d %9d %5d/%d\n", name, len(cases), ident, diff, topAgree, topCases)
		for _, n := range notes {
			fmt.Fprintln(w, n)
		}
		sum.cases += len(cases)
		sum.identical += ident
		sum.different += diff
		sum.topAgree += topAgree
		sum.topCases += topCases
	}
	fmt.Fprintf(w, "%-30s %6d %9d %9d %5d/%d\n", "TOTAL", sum.cases, sum.identical, sum.different, sum.topAgree, sum.topCases)
	return sum, nil
}

func readCases(file string) ([]tcase, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []tcase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		var c tcase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, n, err)
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

func setDiff(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
