package patch

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// sameAsReference applies diff to original with opt by both appliers and
// reports how they differ: text, report and error message must be equal.
func sameAsReference(original, diff string, opt Options) string {
	got, grep, gerr := ApplyWith(original, diff, opt)
	want, wrep, werr := refApply(original, diff, opt)
	switch {
	case (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error():
		return fmt.Sprintf("error %v, reference %v", gerr, werr)
	case got != want:
		return fmt.Sprintf("text %q, reference %q", got, want)
	case !reflect.DeepEqual(grep, wrep):
		return fmt.Sprintf("report %+v, reference %+v", grep, wrep)
	}
	return ""
}

// randomCase makes a text of lines drawn from a few, so that hunks fit
// several places, a change of it, and a diff of the change perturbed the
// ways models perturb them: little context, wrong or no numbers, lines
// added above the hunks, whitespace changed, the change made already.
func randomCase(r *rand.Rand) (original, diff string, opt Options) {
	alphabet := []string{"a", "b", "c", "d", "  a", "a  ", "\tb", "e\r"}[:1+r.IntN(8)]
	line := func() string { return alphabet[r.IntN(len(alphabet))] + "\n" }
	var old []string
	for range r.IntN(40) {
		old = append(old, line())
	}
	updated := slices.Clone(old)
	for range 1 + r.IntN(4) {
		k := r.IntN(len(updated) + 1)
		switch r.IntN(3) {
		case 0:
			updated = append(updated[:k], append([]string{"new " + line()}, updated[k:]...)...)
		case 1:
			if k < len(updated) {
				updated = append(updated[:k], updated[k+1:]...)
			}
		default:
			if k < len(updated) {
				updated[k] = "changed " + line()
			}
		}
	}
	d := Diff(strings.Join(old, ""), strings.Join(updated, ""), r.IntN(4)).String()
	switch r.IntN(6) {
	case 5: // sent twice: the text has the change already
		old = updated
	case 0: // no numbers
		var b strings.Builder
		for _, l := range strings.SplitAfter(d, "\n") {
			if strings.HasPrefix(l, "@@") {
				l = "@@\n"
			}
			b.WriteString(l)
		}
		d = b.String()
	case 1: // lines added to the text: numbers off, and more places
		for range 1 + r.IntN(5) {
			k := r.IntN(len(old) + 1)
			old = append(old[:k], append([]string{line()}, old[k:]...)...)
		}
	case 2: // whitespace changed in the text
		for k := range old {
			if r.IntN(3) == 0 {
				old[k] = " " + strings.ReplaceAll(old[k], "\t", "    ")
			}
		}
	}
	return strings.Join(old, ""), d, Options{Fuzz: r.IntN(3), IgnoreWhitespace: r.IntN(2) == 0}
}

// TestSameAsReference checks, on random repetitive texts and perturbed
// diffs, that the careful applier decides exactly as the reference does:
// same text, same report, same error, ambiguity and order included.
func TestSameAsReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	kinds := map[string]int{}
	for k := range 20000 {
		original, diff, opt := randomCase(r)
		if msg := sameAsReference(original, diff, opt); msg != "" {
			t.Fatalf("case %d %+v: %s\ntext:\n%s\ndiff:\n%s", k, opt, msg, original, diff)
		}
		_, _, err := ApplyWith(original, diff, opt)
		kinds[kindOf(err)]++
	}
	// The cases must reach every outcome, or the comparison proves little.
	for _, k := range []string{"ok", "ambiguous", "no match", "applied"} {
		if kinds[k] < 100 {
			t.Errorf("only %d cases ended %s: %v", kinds[k], k, kinds)
		}
	}
	t.Logf("outcomes: %v", kinds)
}

// kindOf names the kind of err, "ok" for nil.
func kindOf(err error) string {
	for k, name := range map[error]string{ErrAmbiguous: "ambiguous", ErrNoMatch: "no match", ErrApplied: "applied", ErrMalformed: "malformed", ErrNoHunks: "no hunks"} {
		if errors.Is(err, k) {
			return name
		}
	}
	if err != nil {
		return "other"
	}
	return "ok"
}

// TestSameAsReferenceFixtures compares the two on the fixtures, the fuzz
// seeds and, when present, the real changes, with every option.
func TestSameAsReferenceFixtures(t *testing.T) {
	fixtures := append(loadFixtures(t), sharedChangesIfAny(t)...)
	opts := []Options{{Strict: true}, {}, {Fuzz: DefaultFuzz}, {Fuzz: DefaultFuzz, IgnoreWhitespace: true}}
	for _, fx := range fixtures {
		for _, opt := range opts {
			for _, text := range []string{fx.old, fx.new} { // the new text: applied already
				if msg := sameAsReference(text, fx.diff, opt); msg != "" {
					t.Errorf("%s %+v: %s", fx.name, opt, msg)
				}
			}
		}
	}
	for _, s := range fuzzSeeds {
		for _, opt := range opts {
			if msg := sameAsReference("a\nb\nc\nd\na\nb\n", s, opt); msg != "" {
				t.Errorf("%q %+v: %s", s, opt, msg)
			}
		}
	}
}

// FuzzSameAsReference lets the fuzzer look for a text and a diff on which
// the two appliers differ.
func FuzzSameAsReference(f *testing.F) {
	for _, fx := range loadFixtures(f) {
		f.Add(fx.old, fx.diff, false, uint8(2))
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		original, diff, opt := randomCase(r)
		f.Add(original, diff, opt.IgnoreWhitespace, uint8(opt.Fuzz))
	}
	f.Fuzz(func(t *testing.T, original, diff string, ws bool, fuzz uint8) {
		if len(original) > 1<<14 || len(diff) > 1<<14 {
			return // the reference is quadratic
		}
		opt := Options{Fuzz: int(fuzz % 4), IgnoreWhitespace: ws}
		if msg := sameAsReference(original, diff, opt); msg != "" {
			t.Fatalf("%+v: %s", opt, msg)
		}
	})
}
