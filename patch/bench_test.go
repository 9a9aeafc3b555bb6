package patch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/pattern-dialect/dialect/internal/stress"
)

// sharedChanges loads the real changes in $DIALECT_DATA/diffs (default
// ../../shared/data, beside the checkout), or skips.
func sharedChanges(tb testing.TB) []fixture {
	tb.Helper()
	out := sharedChangesIfAny(tb)
	if len(out) == 0 {
		tb.Skipf("no shared data under %s (set DIALECT_DATA)", sharedDir())
	}
	return out
}

// sharedDir is where the shared data is looked for.
func sharedDir() string {
	if dir := os.Getenv("DIALECT_DATA"); dir != "" {
		return dir
	}
	return filepath.Join("..", "..", "shared", "data")
}

// sharedChangesIfAny is sharedChanges, or nil without the shared data.
func sharedChangesIfAny(tb testing.TB) []fixture {
	tb.Helper()
	paths, _ := filepath.Glob(filepath.Join(sharedDir(), "diffs", "*", "*", "diff.patch"))
	sort.Strings(paths)
	var out []fixture
	for _, p := range paths {
		d := filepath.Dir(p)
		read := func(n string) string {
			b, err := os.ReadFile(filepath.Join(d, n))
			if err != nil {
				tb.Fatal(err)
			}
			return string(b)
		}
		out = append(out, fixture{filepath.Join(filepath.Base(filepath.Dir(d)), filepath.Base(d)), read("old"), read("new"), read("diff.patch")})
	}
	return out
}

// TestSharedData applies every real change, strictly and carefully, and
// checks the parser against go-gitdiff on each.
func TestSharedData(t *testing.T) {
	changes := sharedChanges(t)
	for _, ch := range changes {
		agreeWithGitdiff(t, ch.name, ch.diff)
		for _, opt := range []Options{{Strict: true}, {Fuzz: DefaultFuzz}} {
			if got, _, err := ApplyWith(ch.old, ch.diff, opt); err != nil || got != ch.new {
				t.Errorf("%s %+v: %v", ch.name, opt, err)
			}
		}
	}
	t.Logf("%d changes", len(changes))
}

func benchApply(b *testing.B, changes []fixture, opt Options) {
	n := 0
	for _, ch := range changes {
		n += len(ch.old) + len(ch.diff)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	cpu0, ok := processCPU()
	for b.Loop() {
		for _, ch := range changes {
			if got, _, err := ApplyWith(ch.old, ch.diff, opt); err != nil || got != ch.new {
				b.Fatalf("%s: %v", ch.name, err)
			}
		}
	}
	if cpu1, ok1 := processCPU(); ok && ok1 {
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkApplyAll applies all the real changes once per iteration, parse
// included: the target is 50 ms per iteration for the 250 changes.
func BenchmarkApplyAll(b *testing.B) {
	changes := sharedChanges(b)
	b.Run("careful", func(b *testing.B) { benchApply(b, changes, Options{Fuzz: DefaultFuzz}) })
	b.Run("strict", func(b *testing.B) { benchApply(b, changes, Options{Strict: true}) })
	b.Run("careful-ws", func(b *testing.B) { benchApply(b, changes, Options{Fuzz: DefaultFuzz, IgnoreWhitespace: true}) })
}

// BenchmarkApplyFixtures runs without the shared data.
func BenchmarkApplyFixtures(b *testing.B) {
	benchApply(b, loadFixtures(b), Options{Fuzz: DefaultFuzz})
}

// BenchmarkDiffAll creates the diff of every real change.
func BenchmarkDiffAll(b *testing.B) {
	changes := sharedChanges(b)
	n := 0
	for _, ch := range changes {
		n += len(ch.old) + len(ch.new)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		for _, ch := range changes {
			_ = Diff(ch.old, ch.new, DefaultContext).String()
		}
	}
}

// BenchmarkBounds applies the hostile inputs of the issue at four sizes
// each, so time and bytes allocated per operation show how they grow:
// hunks that fit everywhere against a growing block (refused as
// ambiguous), and a growing number of hunks that apply.
func BenchmarkBounds(b *testing.B) {
	opt := Options{Fuzz: DefaultFuzz, IgnoreWhitespace: true}
	run := func(b *testing.B, old, diff string, want error) {
		b.SetBytes(int64(len(old) + len(diff)))
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := ApplyWith(old, diff, opt); !errors.Is(err, want) && (want != nil || err != nil) {
				b.Fatal(err)
			}
		}
	}
	for _, lines := range []int{15000, 30000, 60000, 120000} {
		// 1,900 hunks against 120,000 lines, as in the issue.
		old, diff := stress.SameLinePatch(lines, lines/63)
		b.Run(fmt.Sprintf("sameline/lines=%d", lines), func(b *testing.B) { run(b, old, diff, ErrAmbiguous) })
	}
	for _, lines := range []int{15000, 30000, 60000, 120000} {
		old, diff := stress.AmbiguousPatch(lines, lines/63)
		b.Run(fmt.Sprintf("sections/lines=%d", lines), func(b *testing.B) { run(b, old, diff, ErrAmbiguous) })
	}
	for _, hunks := range []int{2500, 5000, 10000, 20000} {
		old, diff, _ := stress.ManyHunks(6*hunks, hunks)
		b.Run(fmt.Sprintf("manyhunks/hunks=%d", hunks), func(b *testing.B) { run(b, old, diff, nil) })
	}
}
