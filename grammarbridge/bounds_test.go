package grammarbridge

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pattern-dialect/dialect/internal/stress"
)

// TestOccSearch compares the search in a token's list of places with
// reading it from the start.
func TestOccSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		var o occLists
		n := r.IntN(40)
		o.pos = make([]int32, n)
		at := int32(0)
		for k := range o.pos {
			at += 1 + int32(r.IntN(3))
			o.pos[k] = at
		}
		lo := int32(r.IntN(n + 1))
		hi := lo + int32(r.IntN(n-int(lo)+1))
		from := r.IntN(int(at) + 3)
		want := lo
		for want < hi && int(o.pos[want]) < from {
			want++
		}
		if got := o.search(lo, hi, from); got != want {
			t.Fatalf("%v [%d,%d) from %d: %d, want %d", o.pos, lo, hi, from, got, want)
		}
	}
}

// wildcardClass is the pattern and variants of it: wildcards split
// by a literal that occurs all over the input, so that every way of
// splitting is tried until the work limit. Each entry is a grammar and an
// input of about n bytes.
var wildcardClass = []struct {
	name, src string
	input     func(n int) string
}{
	{"issue", stress.WildcardGrammar, stress.WildcardInput},
	{"wide spaces", stress.WildcardGrammar, func(n int) string { return strings.Repeat("a      ", n/7) }},
	{"keywords", `<Start> = $(x:wildcard) (a | c) $(y:wildcard) (a | c) $(z:wildcard) (a | c) $(q:wildcard) b -> { x, y, z, q };`,
		func(n int) string { return strings.Repeat("a c ", n/4) }},
	{"not ascii", `<Start> = $(x:wildcard) á $(y:wildcard) á $(z:wildcard) á $(q:wildcard) b -> { x, y, z, q };`,
		func(n int) string { return strings.Repeat("á ", n/3) }},
	{"rules", "<Start> = $(x:wildcard) <A> $(y:wildcard) <A> $(z:wildcard) <A> $(q:wildcard) b -> { x, y, z, q };\n<A> = a | a a;",
		func(n int) string { return strings.Repeat("a ", n/2) }},
	{"optional", `<Start> = (a)? (a)? $(x:wildcard) (a)? (a)? $(y:wildcard) (a)? $(z:wildcard) b -> { x, y, z };`,
		func(n int) string { return strings.Repeat("a ", n/2) }},
}

// TestWorkLimitBoundsTime: a match that runs into the work limit takes
// about as long on 64 KiB of input as on 4 KiB. Each step used to read a
// token's list of places from its start, so the same number of steps took
// time in proportion to the input (3.5 s at 10 KB, 23 s at 60 KB).
// BenchmarkWorkLimit gives the figures; this compares CPU time of the
// test's own thread, with a wide margin.
func TestWorkLimitBoundsTime(t *testing.T) {
	if testing.Short() {
		t.Skip("times matches")
	}
	const limit = 1 << 17
	for _, c := range wildcardClass {
		g, err := CompileString("w.agr", c.src, Options{WorkLimit: limit})
		if err != nil {
			t.Fatal(err)
		}
		var cost [2]float64
		for k, n := range []int{4 << 10, 64 << 10} {
			in := c.input(n)
			cost[k] = threadCPU(t, 3, func() {
				if _, err := g.Match(in); !errors.Is(err, ErrWorkLimit) {
					t.Fatalf("%s, %d bytes: %v, want the work limit", c.name, n, err)
				}
			})
		}
		t.Logf("%-12s %6.2f ms at 4 KiB, %6.2f ms at 64 KiB", c.name, cost[0]*1e3, cost[1]*1e3)
		if cost[1] > 3*cost[0] {
			t.Errorf("%s: %d steps took %.2f ms on 64 KiB, %.2f ms on 4 KiB", c.name, limit, cost[1]*1e3, cost[0]*1e3)
		}
	}
}

// countingCtx is a context that is cancelled from the cancelAt-th look on.
type countingCtx struct {
	context.Context
	looks, cancelAt atomic.Int64
}

func (c *countingCtx) Done() <-chan struct{} { return make(chan struct{}) } // can be done
func (c *countingCtx) Err() error {
	if c.looks.Add(1) >= c.cancelAt.Load() {
		return context.Canceled
	}
	return nil
}

// TestMatchContext: a context that ends stops the match at the next look,
// every ctxEvery steps, with an error that wraps the context's; a context
// that does not end changes nothing, the work limit included.
func TestMatchContext(t *testing.T) {
	g, err := CompileString("w.agr", stress.WildcardGrammar, Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := stress.WildcardInput(8 << 10)
	for _, at := range []int64{1, 2, 40} {
		ctx := &countingCtx{Context: context.Background()}
		ctx.cancelAt.Store(at)
		m := g.newMatcher(in, false)
		m.watch(ctx)
		m.run()
		work, err := m.work, m.err
		g.release(m)
		if !errors.Is(err, context.Canceled) || errors.Is(err, ErrWorkLimit) {
			t.Fatalf("cancelled at look %d: %v", at, err)
		}
		// Steps are counted by ones and, for memoized outcomes, by the
		// outcomes replayed: a look comes after ctxEvery steps or a few more.
		if looks := ctx.looks.Load(); looks != at || work > int(at)*4*ctxEvery {
			t.Errorf("cancelled at look %d: %d looks, %d steps", at, looks, work)
		}
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.MatchContext(done, in); !errors.Is(err, context.Canceled) {
		t.Errorf("MatchContext: %v", err)
	}
	if _, err := g.BestContext(done, in); !errors.Is(err, context.Canceled) || errors.Is(err, ErrNoMatch) {
		t.Errorf("BestContext: %v", err)
	}

	// A match that succeeds in exactly w steps: with a live context, the
	// limit w still lets it through and w-1 still stops it.
	live, stop := context.WithCancel(context.Background())
	defer stop()
	ok := strings.Repeat("a ", 40) + "b"
	m := g.newMatcher(ok, false)
	m.run()
	w, err := m.work, m.err
	g.release(m)
	if err != nil || w < 3*ctxEvery {
		t.Fatalf("%d steps, %v: want a match of more than %d", w, err, 3*ctxEvery)
	}
	for _, limit := range []int{w, w - 1, ctxEvery, ctxEvery + 1, 2 * ctxEvery} {
		g, err := CompileString("w.agr", stress.WildcardGrammar, Options{WorkLimit: limit})
		if err != nil {
			t.Fatal(err)
		}
		plain, errPlain := g.Match(ok)
		watched, errWatched := g.MatchContext(live, ok)
		if fmt.Sprint(errPlain) != fmt.Sprint(errWatched) || distinctKeys(plain) != distinctKeys(watched) {
			t.Errorf("limit %d: %d matches, %v; with a context %d, %v", limit, len(plain), errPlain, len(watched), errWatched)
		}
		if want := limit >= w; (errPlain == nil) != want {
			t.Errorf("limit %d for a match of %d steps: %v", limit, w, errPlain)
		}
	}
}
