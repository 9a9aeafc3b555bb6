package patch

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/internal/stress"
)

// hostile is one input of the class the bounds are about: large texts,
// many hunks, hunks that fit nearly everywhere.
type hostile struct {
	name       string
	old, diff  string
	want       string // "" when the patch must be refused
	kind       error  // the refusal's kind
	opt        Options
	lines, hks int // the sizes the work is measured against
	// growth is the most the work may grow when lines and hunks grow
	// four times: 4 and a margin where it is linear; 16 and a margin
	// where each hunk has as many places as there are hunks (counted up
	// to maxPlaces), or each placed hunk lets the one before it be
	// placed (one round each).
	growth float64
}

// hostiles returns the class at size k (about k thousand lines).
func hostiles(k int) []hostile {
	var out []hostile
	opts := Options{Fuzz: DefaultFuzz, IgnoreWhitespace: true}
	old, diff := stress.AmbiguousPatch(1000*k, 16*k)
	out = append(out, hostile{name: "ambiguous sections", old: old, diff: diff, kind: ErrAmbiguous, opt: opts, lines: 1000 * k, hks: 16 * k, growth: 20})
	old, diff = stress.SameLinePatch(1000*k, 16*k)
	out = append(out, hostile{name: "same line", old: old, diff: diff, kind: ErrAmbiguous, opt: opts, lines: 1000 * k, hks: 16 * k, growth: 5})
	// The same, with whitespace damage so that only the whitespace levels fit.
	out = append(out, hostile{name: "same line, retyped", old: strings.ReplaceAll(old, "a\n", " a \n"), diff: diff, kind: ErrAmbiguous, opt: opts, lines: 1000 * k, hks: 16 * k, growth: 5})
	// The hunks' last context line is nowhere in the block: fuzz must
	// drop it, and the places are rated by the context dropped.
	fuzzed := strings.ReplaceAll(diff, " a\n@@", " z\n@@")
	out = append(out, hostile{name: "same line, fuzz", old: old, diff: fuzzed, kind: ErrAmbiguous, opt: opts, lines: 1000 * k, hks: 16 * k, growth: 5})
	// The same, with that line once in the block, where it rates no place
	// better but could.
	once := old[:len(old)/2] + "z\n" + old[len(old)/2:]
	out = append(out, hostile{name: "same line, fuzz, once", old: once, diff: fuzzed, kind: ErrAmbiguous, opt: opts, lines: 1000 * k, hks: 16 * k, growth: 5})
	old, diff, want := stress.ManyHunks(1000*k, 200*k)
	out = append(out, hostile{name: "many hunks", old: old, diff: diff, want: want, opt: opts, lines: 1000 * k, hks: 200 * k, growth: 5})
	old, diff, want = stress.OrderedPatch(20 * k)
	out = append(out, hostile{name: "placed by order", old: old, diff: diff, want: want, opt: opts, lines: 200 * k, hks: 20 * k, growth: 20})
	old, diff, want = stress.ChainPatch(100 * k)
	out = append(out, hostile{name: "chain", old: old, diff: diff, want: want, opt: opts, lines: 200 * k, hks: 100 * k, growth: 20})
	return out
}

// applyCounting applies the case and returns how much work it took.
func applyCounting(tb testing.TB, h hostile) (string, int, error) {
	tb.Helper()
	p, err := Parse(h.diff)
	if err != nil {
		tb.Fatalf("%s: %v", h.name, err)
	}
	t := newText(h.old)
	c, err := newCareful(context.Background(), p, t, h.opt)
	if err != nil {
		tb.Fatal(err)
	}
	places, err := c.run()
	if err != nil {
		return "", c.work, err
	}
	return p.build(t, places, true), c.work, nil
}

// TestHostilePatches applies the class at two sizes: each must end as it
// should (applied, or refused with the right kind, never with "took too
// long"), and its work must grow no faster than the text and the diff do,
// where listing places per hunk per round grew with their product.
func TestHostilePatches(t *testing.T) {
	small, large := hostiles(2), hostiles(8)
	for k := range small {
		var work [2]int
		for j, h := range []hostile{small[k], large[k]} {
			got, w, err := applyCounting(t, h)
			work[j] = w
			switch {
			case h.want != "" && (err != nil || got != h.want):
				t.Fatalf("%s (%d lines, %d hunks): %v", h.name, h.lines, h.hks, err)
			case h.want == "" && !errors.Is(err, h.kind):
				t.Fatalf("%s (%d lines, %d hunks): %v, want %v", h.name, h.lines, h.hks, err, h.kind)
			case h.want == "" && strings.Contains(err.Error(), "too long"):
				t.Fatalf("%s: ran out of budget: %v", h.name, err)
			}
		}
		ratio := float64(work[1]) / float64(work[0])
		t.Logf("%-22s work %9d -> %9d (x%.1f)", small[k].name, work[0], work[1], ratio)
		if ratio > small[k].growth {
			t.Errorf("%s: work grew %.1f times for four times the input, want at most %.0f", small[k].name, ratio, small[k].growth)
		}
	}
}

// TestAmbiguousErrorListsAll: the refusal of a hunk that fits more places
// than are counted still names them all.
func TestAmbiguousErrorListsAll(t *testing.T) {
	old, diff := stress.SameLinePatch(3000, 10)
	_, _, err := Apply(old, diff)
	var ae *ApplyError
	if !errors.As(err, &ae) || !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("got %v", err)
	}
	// " a a -a +b a a" fits wherever five lines are left before the next
	// hunk's window: the first hunk, alone in the text, anywhere.
	if len(ae.Places) != 3000-4 || ae.Places[0] != 1 || ae.Places[len(ae.Places)-1] != 3000-4 {
		t.Errorf("places %d..%d (%d), want 1..%d", ae.Places[0], ae.Places[len(ae.Places)-1], len(ae.Places), 3000-4)
	}
	if !strings.Contains(ae.Msg, fmt.Sprintf("fit %d places", 3000-4)) {
		t.Errorf("message %q", ae.Msg)
	}
}

// countingCtx is a context that is cancelled from the cancelAt-th look on
// and counts the looks.
type countingCtx struct {
	context.Context
	looks, cancelAt atomic.Int64
}

func (c *countingCtx) Err() error {
	if n := c.looks.Add(1); n >= c.cancelAt.Load() {
		return context.Canceled
	}
	return nil
}

// TestApplyContext: a context that ends stops the application at the next
// look, with an error that wraps the context's, no text and no report;
// the looks come every few thousand units of work, whatever the input.
func TestApplyContext(t *testing.T) {
	for _, h := range hostiles(4) {
		// Count the looks of a whole run, then cancel halfway.
		c := &countingCtx{Context: context.Background()}
		c.cancelAt.Store(1 << 62)
		p, err := Parse(h.diff)
		if err != nil {
			t.Fatal(err)
		}
		cw, err := newCareful(c, p, newText(h.old), h.opt)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = cw.run()
		looks := c.looks.Load()
		if perLook := cw.work / int(looks); perLook > 4*checkEvery {
			t.Errorf("%s: %d looks for %d units of work", h.name, looks, cw.work)
		}
		if looks < 4 {
			continue // too quick to stop halfway
		}
		c.looks.Store(0)
		c.cancelAt.Store(looks / 2)
		got, rep, err := ApplyContext(c, h.old, h.diff, h.opt)
		if !errors.Is(err, context.Canceled) || got != "" || rep != nil {
			t.Errorf("%s: cancelled at look %d of %d: %q, %v, %v", h.name, looks/2, looks, got[:min(len(got), 20)], rep, err)
		}
		if n := c.looks.Load(); n != looks/2 {
			t.Errorf("%s: went on for %d looks after the context ended", h.name, n-looks/2)
		}
	}
}

// TestApplyContextDeadline: a real deadline, reported as such.
func TestApplyContextDeadline(t *testing.T) {
	old, diff, _ := stress.ChainPatch(8000) // about half a second to apply
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	start := time.Now()
	got, rep, err := ApplyContext(ctx, old, diff, Options{Fuzz: DefaultFuzz})
	if !errors.Is(err, context.DeadlineExceeded) || got != "" || rep != nil {
		t.Fatalf("got %v", err)
	}
	if errors.Is(err, ErrNoMatch) || errors.Is(err, ErrAmbiguous) {
		t.Errorf("a timeout taken for a failed patch: %v", err)
	}
	t.Logf("stopped %v after the start: %v", time.Since(start), err)
	// Already done: nothing is parsed.
	if _, _, err := ApplyContext(ctx, old, "not a diff", Options{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("done context: %v", err)
	}
}

// TestScan compares both ways of scanning with a plain search, forwards
// and backwards, in random windows of repetitive texts.
func TestScan(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 3000 {
		ids := 1 + r.IntN(4)
		text := make([]int32, r.IntN(60))
		for k := range text {
			text[k] = int32(r.IntN(ids))
		}
		p := make([]int32, 1+r.IntN(5))
		for k := range p {
			p[k] = int32(r.IntN(ids))
		}
		ks := &keyspace{ids: map[string]int32{}}
		for k := range ids {
			ks.intern(fmt.Sprint(k))
		}
		_ = ks.index(nil, len(text), func(i int, buf []byte) (int32, []byte) { return text[i], buf })
		lo := r.IntN(len(text) + 1)
		hi := lo + r.IntN(len(text)-lo+1)
		var want []int
		for q := lo; q+len(p) <= hi; q++ {
			if slices.Equal(text[q:q+len(p)], p) {
				want = append(want, q)
			}
		}
		c := &careful{ctx: context.Background(), budget: 1 << 40}
		for _, back := range []bool{false, true} {
			wantDir := slices.Clone(want)
			if back {
				slices.Reverse(wantDir)
			}
			var byScan, byKMP []int
			if err := c.scan(ks, p, lo, hi, back, func(q int) bool { byScan = append(byScan, q); return true }); err != nil {
				t.Fatal(err)
			}
			if err := c.kmp(ks.text, p, lo, hi, back, func(q int) bool { byKMP = append(byKMP, q); return true }); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(byScan, wantDir) || !slices.Equal(byKMP, wantDir) {
				t.Fatalf("text %v, pattern %v, [%d,%d) back %v: scan %v, kmp %v, want %v", text, p, lo, hi, back, byScan, byKMP, wantDir)
			}
		}
	}
}
