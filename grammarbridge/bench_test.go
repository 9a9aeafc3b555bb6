package grammarbridge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect/internal/stress"
)

// BenchmarkMatch matches each grammar's reference inputs, one input per
// operation (cycling), so ns/op is the mean time per input, comparable with
// timings.tsv.
func BenchmarkMatch(b *testing.B) {
	benchInputs(b, func(g *Grammar, in string) error {
		_, err := g.Match(in)
		return err
	})
}

// BenchmarkBest is BenchmarkMatch for Best, which the verbs call: the best
// match alone (no match is not an error here).
func BenchmarkBest(b *testing.B) {
	benchInputs(b, func(g *Grammar, in string) error {
		if _, err := g.Best(in); err != nil && !errors.Is(err, ErrNoMatch) {
			return err
		}
		return nil
	})
}

// BenchmarkMatchGenerated is BenchmarkMatch on the generated inputs of
// all 59 grammars (testdata/ref), comparable with testdata/ref/timings.tsv.
func BenchmarkMatchGenerated(b *testing.B) {
	dir := dataDir(b)
	files, err := filepath.Glob(filepath.Join("testdata", "ref", "*.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		benchGrammar(b, name, compileData(b, dir, name, Options{}), readCaseFile(b, f), func(g *Grammar, in string) error {
			_, err := g.Match(in)
			return err
		})
	}
}

// benchInputs runs match over the reference inputs of every grammar with
// cases, one sub-benchmark per grammar: ns/op is the mean per input.
func benchInputs(b *testing.B, match func(*Grammar, string) error) {
	dir := dataDir(b)
	for _, name := range caseGrammars(b, dir) {
		benchGrammar(b, name, compileData(b, dir, name, Options{}), readRefCases(b, dir, name), match)
	}
}

// benchGrammar is one sub-benchmark: match over the inputs of cases.
func benchGrammar(b *testing.B, name string, g *Grammar, cases []refCase, match func(*Grammar, string) error) {
	inputs := make([]string, len(cases))
	total := 0
	for i, c := range cases {
		inputs[i] = c.Input
		total += len(c.Input)
	}
	b.Run(name, func(b *testing.B) {
		b.SetBytes(int64(total / len(inputs)))
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if err := match(g, inputs[i%len(inputs)]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCompile compiles the largest grammar (discord.agr) from source.
func BenchmarkCompile(b *testing.B) {
	dir := dataDir(b)
	file := filepath.Join(dir, "grammars", "discord.agr")
	src, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CompileString("discord.agr", string(src), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWorkLimit matches the pattern (stress.WildcardGrammar)
// against "a a a ..." of 8 to 64 KiB: every size runs into the default
// work limit, so ns/op should stay flat as the input grows, each step
// costing about the same.
func BenchmarkWorkLimit(b *testing.B) {
	g, err := CompileString("w.agr", stress.WildcardGrammar, Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, kib := range []int{8, 16, 32, 64} {
		in := stress.WildcardInput(kib << 10)
		b.Run(fmt.Sprintf("KiB=%d", kib), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			cpu0, ok := processCPU()
			for b.Loop() {
				if _, err := g.Match(in); !errors.Is(err, ErrWorkLimit) {
					b.Fatal(err)
				}
			}
			if cpu1, ok1 := processCPU(); ok && ok1 {
				b.ReportMetric(float64((cpu1-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			}
		})
	}
}
