package patch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"
)

// level is one way of matching a hunk. A hunk's levels run from the best
// fit (all context, exact lines) to the worst (most context dropped,
// whitespace ignored); a hunk goes at the first level where it fits.
type level struct {
	fuzz   int  // the fuzz factor this level belongs to
	pf, sf int  // context lines dropped before and after the change
	start  bool // the hunk claims the start of the text (less leading context than trailing)
	end    bool // the hunk claims the end of the text (less trailing context than leading)
	ws     bool // compare with whitespace normalised
}

// levels lists the hunk's levels in the order GNU patch tries fuzz: at
// fuzz f it drops f lines from the end with more context, and the end with
// less context only once the other end is down to its size. A hunk whose
// leading (trailing) context is shorter claims the start (end) of the text,
// as a diff tool writes it there; unlike GNU patch that claim is a
// preference, not a condition. Levels that would leave no old line to
// compare are skipped: such a hunk would match anywhere.
func (h *Hunk) levels(opt Options) []level {
	prefix, suffix := h.prefixContext(), h.suffixContext()
	oldN := 0
	for _, l := range h.Lines {
		if l.old() {
			oldN++
		}
	}
	maxFuzz := opt.Fuzz
	if prefix == len(h.Lines) { // context only: nothing to drop around
		maxFuzz = 0
	}
	ctx := max(prefix, suffix)
	var out []level
	for f := 0; f <= maxFuzz; f++ {
		pf, sf := f+prefix-ctx, f+suffix-ctx
		lv := level{fuzz: f, start: pf < 0 && !h.NoNumbers && h.OldStart <= 1, end: sf < 0}
		lv.pf, lv.sf = min(max(pf, 0), prefix), min(max(sf, 0), suffix)
		if oldN > 0 && oldN-lv.pf-lv.sf <= 0 {
			continue
		}
		for _, ws := range []bool{false, true} {
			if ws && !opt.IgnoreWhitespace {
				continue
			}
			lv.ws = ws
			if !containsLevel(out, lv) {
				out = append(out, lv)
			}
		}
	}
	return out
}

func containsLevel(ls []level, lv level) bool {
	for _, l := range ls {
		if l.pf == lv.pf && l.sf == lv.sf && l.start == lv.start && l.end == lv.end && l.ws == lv.ws {
			return true
		}
	}
	return false
}

// Limits that keep a hostile patch from making the search run away. A
// real patch against a real text stays far below both.
const (
	// workPerLine and minWork bound the work of one application (see
	// careful.spend): enough to scan the whole text workPerLine times per
	// hunk, and never less than minWork. Each unit is a few nanoseconds,
	// so the budget bounds time near-linearly in lines × hunks.
	workPerLine = 4
	minWork     = 1 << 20
	// maxPlaces is the most places a hunk may fit before it is refused
	// as ambiguous without trying the order of the hunks.
	maxPlaces = 1000
)

// careful holds the state of one careful application. Nothing in it grows
// with the number of places a hunk fits: a hunk's places are counted and
// found again by scanning when needed, never listed, so memory stays a
// small multiple of the text and the diff.
type careful struct {
	ctx    context.Context
	work   int // units of work so far (see spend)
	check  int // the work at which spend next looks at the budget and ctx
	budget int // the most work allowed
	p      *Patch
	t      *text
	opt    Options
	places []place
	placed []bool
	ends   []int // ends[i] is places[i].end(), once hunk i is placed
	// exact numbers every hunk line's key (old and new lines); ws, built
	// on first use, the old lines' keys with whitespace normalised.
	exact keyspace
	ws    *keyspace
	// oldExact, oldWS and newExact are each hunk's old lines and new
	// lines as numbers.
	oldExact, oldWS, newExact [][]int32
	// keep[i] says when hunk i's last search still holds (see keeps).
	keep []span
}

// span is a range of lines, [from, to).
type span struct{ from, to int }

// window is the part of the text a hunk may occupy, between its placed
// neighbours, and the offset of the nearest placed neighbour with line
// numbers (the one before it if any).
type window struct{ lo, hi, offset int }

// placeCareful places every hunk by content, GNU patch style, refusing to
// guess. Each hunk is searched at its best level between its placed
// neighbours; one place and it goes there. A hunk that fits several places
// waits until its neighbours are placed and narrow its window, or until
// the order of the hunks leaves it one place (byOrder); if it still fits
// several, the patch is refused. Line numbers never choose between places.
func (p *Patch) placeCareful(ctx context.Context, t *text, opt Options) ([]place, error) {
	if t.n() > maxTextLines {
		return nil, &ApplyError{Msg: fmt.Sprintf("the text has more than %d lines", maxTextLines), Kind: ErrNoMatch}
	}
	c, err := newCareful(ctx, p, t, opt)
	if err != nil {
		return nil, c.stop(-1, err)
	}
	return c.run()
}

// newCareful prepares the careful application of p to t: it numbers the
// hunks' lines and the text's. The error is ctx's.
func newCareful(ctx context.Context, p *Patch, t *text, opt Options) (*careful, error) {
	n := len(p.Hunks)
	c := &careful{ctx: ctx, p: p, t: t, opt: opt, places: make([]place, n), placed: make([]bool, n), keep: make([]span, n), ends: make([]int, n)}
	c.budget = max(minWork, workPerLine*t.n()*n)
	for i := range c.keep {
		c.keep[i] = span{-1, -1} // searched never
	}
	lines := 0
	for i := range p.Hunks {
		lines += len(p.Hunks[i].Lines)
	}
	c.exact.ids = make(map[string]int32, lines)
	c.oldExact, c.newExact = make([][]int32, n), make([][]int32, n)
	// One array holds every hunk's old and new lines (a line of context is
	// in both).
	ids := make([]int32, 0, 2*lines)
	// Most lines of a text are in no hunk; their length and ends say so
	// without hashing them.
	var seen sketch
	for i := range p.Hunks {
		from := len(ids)
		for _, l := range p.Hunks[i].Lines {
			if l.old() {
				key := lineKey(l.Text)
				seen.add(key)
				ids = append(ids, c.exact.intern(key))
			}
		}
		c.oldExact[i] = ids[from:len(ids):len(ids)]
		from = len(ids)
		for _, l := range p.Hunks[i].Lines {
			if l.new() {
				key := lineKey(l.Text)
				seen.add(key)
				ids = append(ids, c.exact.intern(key))
			}
		}
		c.newExact[i] = ids[from:len(ids):len(ids)]
	}
	err := c.exact.index(ctx, t.n(), func(i int, _ []byte) (int32, []byte) {
		key := lineKey(t.line(i))
		if !seen.has(key) {
			return -1, nil
		}
		id, ok := c.exact.ids[key]
		if !ok {
			return -1, nil
		}
		return id, nil
	})
	return c, err
}

// run places the hunks.
func (c *careful) run() ([]place, error) {
	t, n := c.t, len(c.p.Hunks)
	if err := c.ctx.Err(); err != nil {
		return nil, c.stop(-1, err)
	}
	failures := make([]error, n)
	options := make([]*fits, n)
	// todo holds the hunks not placed yet, in order; his[k] is where the
	// window of todo[k] ends.
	todo, his := make([]int, n), make([]int, n)
	for i := range todo {
		todo[i] = i
	}
	// Hunks without old lines are placed by line numbers shifted like
	// their neighbours, so they wait until the others are settled.
	blindToo := false
	for progress := true; progress; {
		progress = false
		k := 0
		for _, i := range todo {
			if !c.placed[i] {
				todo[k] = i
				k++
			}
		}
		todo = todo[:k]
		// The hunks after a hunk are placed later in a sweep than it is
		// searched, so its window's end is where it was at the start.
		hi := t.n()
		for k := len(todo) - 1; k >= 0; k-- {
			if i := todo[k]; i+1 < n && c.placed[i+1] {
				hi = c.places[i+1].at
			}
			his[k] = hi
		}
		lo := 0
		for k, i := range todo {
			if err := c.spend(1); err != nil {
				return nil, c.stop(i, err)
			}
			if i > 0 && c.placed[i-1] { // else lo is the end of the window of i-1
				lo = c.ends[i-1]
			}
			blind := len(c.oldExact[i]) == 0
			if blind && !blindToo {
				continue
			}
			if kp := c.keep[i]; kp.from >= lo && kp.to <= his[k] {
				continue // as it was: still several places, or none
			}
			w := window{lo: lo, hi: his[k]}
			if blind {
				w.offset = c.offset(i)
			}
			f, err := c.locate(i, w)
			if err != nil && c.fatal(err) {
				return nil, c.stop(i, err)
			}
			c.keep[i] = c.keeps(f, err, w)
			options[i], failures[i] = f, err
			if err == nil && f.n == 1 {
				c.place(i, f.lv, f.first)
				failures[i], options[i] = nil, nil
				progress = true
			}
		}
		if !progress {
			var err error
			if progress, err = c.byOrder(options); err != nil {
				return nil, c.stop(-1, err)
			}
		}
		if !progress && !blindToo {
			blindToo, progress = true, true
		}
	}
	hi := t.n()
	for i := n - 1; i >= 0; i-- { // his[i]: where the window of hunk i ends
		his[i] = hi
		if c.placed[i] {
			hi = c.places[i].at
		}
	}
	for i, err := range failures {
		lo := 0
		if i > 0 && c.placed[i-1] { // every hunk before i is placed
			lo = c.ends[i-1]
		}
		if errors.Is(err, errNowhere) {
			return nil, c.noMatch(i, window{lo: lo, hi: his[i]})
		}
		if err != nil {
			return nil, err
		}
		if !c.placed[i] {
			return nil, c.ambiguity(i, options[i], lo, his[i])
		}
		if err := c.applied(i, his[i]); err != nil {
			return nil, err
		}
	}
	return c.places, nil
}

// fatal reports whether err ends the whole application: the budget is
// used up or the context is done.
func (c *careful) fatal(err error) bool {
	return errors.Is(err, errBudget) || contextErr(err)
}

// stop turns an error that ended the application while hunk i (or, for
// -1, no hunk in particular) was being placed into the error to return.
func (c *careful) stop(i int, err error) error {
	if errors.Is(err, errBudget) {
		if i < 0 {
			return &ApplyError{Msg: "the search for the hunks' places took too long; give fewer, more distinctive lines", Kind: ErrNoMatch}
		}
		return c.p.applyError(i, ErrNoMatch, nil, "the search for its place took too long; give fewer, more distinctive lines")
	}
	if contextErr(err) {
		return c.p.stopped(i, err)
	}
	return err
}

// offset returns the offset of the nearest placed hunk with line numbers
// before hunk i, or else after it; 0 when there is none. Only a hunk
// without old lines needs it.
func (c *careful) offset(i int) int {
	for j := i - 1; j >= 0; j-- {
		if c.placed[j] && !c.p.Hunks[j].NoNumbers {
			return c.places[j].offset
		}
	}
	for j := i + 1; j < len(c.p.Hunks); j++ {
		if c.placed[j] && !c.p.Hunks[j].NoNumbers {
			return c.places[j].offset
		}
	}
	return 0
}

// place places hunk i at q, matched at level lv.
func (c *careful) place(i int, lv level, q int) {
	c.places[i], c.placed[i] = c.placeAt(i, lv, q), true
	c.ends[i] = c.places[i].end()
}

// keeps returns the span hunk i's search in w was for: while the hunk's
// window covers it, a search would find the same. Windows only narrow, so
// a hunk whose places all stay inside its window fits them the same at
// the same level; a hunk found nowhere stays nowhere (the message names
// the window, so it is written at the end); a hunk with too many places
// to count them all, or without old lines, holds only while its window is
// as it was (the span is the window) or never.
func (c *careful) keeps(f *fits, err error, w window) span {
	switch {
	case f == nil && !errors.Is(err, errNowhere):
		return span{-1, -1}
	case f == nil:
		return span{math.MaxInt, -1}
	case f.n > maxPlaces:
		return span{w.lo, w.hi}
	}
	return span{f.first, f.last + f.m}
}

// applied returns an ErrApplied error when hunk i looks applied already,
// as when a model sends the same patch twice: the text already has the
// hunk's new lines, context and all, and its old lines fit only because
// they are still there around the added ones, or because fuzz dropped the
// context that tells. So it looks for the new lines
//   - where the hunk fit, for a hunk that only adds lines and fit exactly
//     (after it is applied, such a hunk still fits when its added lines
//     have no context on one side, or end like the context after them);
//   - anywhere between the hunk's neighbours, for a hunk that fit only
//     with fuzz or whitespace ignored; if it removes lines, away from where
//     it fit (what a removal leaves can read like its result).
//
// A hunk whose removed lines are all there exactly is never taken for
// applied, nor is one without context lines, unless it says the text was
// empty ("@@ -0,0") and the text starts with its lines.
//
// The hunks before i are placed; hi is the start of the next placed one.
func (c *careful) applied(i, hi int) error {
	h, pl := &c.p.Hunks[i], c.places[i]
	deletes, adds, context := false, false, false
	for _, l := range h.Lines {
		deletes = deletes || l.Op == Delete
		adds = adds || l.Op == Insert
		context = context || l.Op == Context
	}
	newKeys := c.newExact[i]
	if !context && !deletes && !h.NoNumbers && h.OldStart == 0 && c.startsWith(newKeys) {
		// "@@ -0,0": the diff says the text was empty, and the text
		// already starts with what it adds.
		return c.p.applyError(i, ErrApplied, nil, "the diff creates the text, and the text already starts with its lines: the patch seems applied already")
	}
	exact := pl.fuzz == 0 && !pl.ws
	if !adds || !context || deletes && exact {
		return nil
	}
	lo := 0
	if i > 0 {
		lo = c.ends[i-1]
	}
	m := len(newKeys)
	if exact { // only where it overlaps the place the hunk fit
		lo, hi = max(lo, pl.at-m+1), min(hi, c.ends[i]+m-1)
	}
	found := -1
	err := c.scan(&c.exact, newKeys, lo, hi, false, func(q int) bool {
		if deletes && q < c.ends[i] && pl.at < q+m {
			return true // what is left where lines are removed is no sign
		}
		found = q
		return false
	})
	if err != nil {
		return c.stop(i, err)
	}
	if found >= 0 {
		return c.p.applyError(i, ErrApplied, nil, fmt.Sprintf("the text already has its new lines at line %d: the patch seems applied already", found+1))
	}
	return nil
}

// startsWith reports whether the text's first lines are keys.
func (c *careful) startsWith(keys []int32) bool {
	if len(keys) == 0 || len(keys) > c.t.n() {
		return false
	}
	for k, id := range keys {
		if c.exact.text[k] != id {
			return false
		}
	}
	return true
}

// fits is where a hunk fits in its window at its best level: the places
// are the matches of pat at lv in the window (with the best score, when lv
// dropped context); they are counted, and found again by scanning.
type fits struct {
	lv  level
	m   int       // old lines compared at that level
	pat []int32   // those lines, as numbers of ks
	ks  *keyspace // exact or whitespace-normalised
	// score is the best score of the context lv dropped, over the
	// matches (see score); -1 when lv dropped none.
	score int
	// n is the number of places, counted up to maxPlaces+1 at least
	// (counting stops beyond that when nothing can change the outcome).
	n     int
	first int // the first place
	last  int // the last place, when n <= maxPlaces
}

// each calls visit with each place of f in [lo, hi), in increasing order
// (decreasing with back), until visit returns false.
func (c *careful) each(f *fits, i, lo, hi int, back bool, visit func(q int) bool) error {
	if f.score < 0 {
		return c.scan(f.ks, f.pat, lo, hi, back, visit)
	}
	return c.scan(f.ks, f.pat, lo, hi, back, func(q int) bool {
		return c.score(i, f.lv, q) != f.score || visit(q)
	})
}

// byOrder uses the order of the hunks to choose between equally good
// places: hunk i must come after some place of every hunk before it and
// before some place of every hunk after it. A hunk left with one such
// place is placed there. It reports whether it placed any.
//
// It needs no list of places: going forward, each hunk takes its first
// place after the earliest end of the hunks before it (minEnd); going
// back, its last place before the latest start of the hunks after it
// (maxStart). A hunk has exactly one place between the two when both
// passes chose the same. Each pass reads each line of the text about once.
func (c *careful) byOrder(options []*fits) (bool, error) {
	n := len(c.p.Hunks)
	for i, f := range options {
		if !c.placed[i] && (f == nil || f.n > maxPlaces) {
			return false, nil
		}
	}
	first, last := make([]int, n), make([]int, n)
	// Each hunk's window: [los[i], his[i]).
	los, his := make([]int, n), make([]int, n)
	hi := c.t.n()
	for i := n - 1; i >= 0; i-- {
		his[i] = hi
		if c.placed[i] {
			hi = c.places[i].at
		}
	}
	lo, minEnd := 0, 0
	for i := range n {
		if c.placed[i] {
			if c.places[i].at < minEnd {
				return false, nil
			}
			lo, minEnd = c.ends[i], c.ends[i]
			continue
		}
		f, q := options[i], -1
		los[i] = lo
		if err := c.each(f, i, max(lo, minEnd), his[i], false, func(p int) bool { q = p; return false }); err != nil {
			return false, err
		}
		if q < 0 {
			return false, nil
		}
		first[i], minEnd = q, q+f.m
	}
	maxStart := c.t.n()
	for i := n - 1; i >= 0; i-- {
		if c.placed[i] {
			if c.ends[i] > maxStart {
				return false, nil
			}
			maxStart = c.places[i].at
			continue
		}
		f, q := options[i], -1
		if err := c.each(f, i, los[i], min(his[i], maxStart), true, func(p int) bool { q = p; return false }); err != nil {
			return false, err
		}
		if q < 0 {
			return false, nil
		}
		last[i], maxStart = q, q
	}
	progress := false
	for i := range n {
		if !c.placed[i] && first[i] == last[i] {
			c.place(i, options[i].lv, first[i])
			options[i] = nil
			progress = true
		}
	}
	return progress, nil
}

// ambiguity is the error for hunk i, which fits several places. It lists
// them all, scanning once more without a budget.
func (c *careful) ambiguity(i int, f *fits, lo, hi int) error {
	var at []int
	c.budget = math.MaxInt
	if err := c.each(f, i, lo, hi, false, func(q int) bool { at = append(at, q); return true }); err != nil {
		return c.stop(i, err)
	}
	lines := make([]int, len(at))
	for k, q := range at {
		lines[k] = q - f.lv.pf + 1
	}
	advice := "refusing to guess: give more context or the right line numbers"
	if h := &c.p.Hunks[i]; !h.NoNumbers && slices.Contains(lines, h.statedIndex()+1) {
		advice = fmt.Sprintf("the header points at line %d, but line numbers alone do not choose: give more context lines", h.statedIndex()+1)
	}
	return c.p.applyError(i, ErrAmbiguous, lines, fmt.Sprintf("its lines fit %d places equally well (%s)%s; %s",
		len(at), listLines(lines), how(f.lv), advice))
}

// placeAt is hunk i placed at q, matched at level lv.
func (c *careful) placeAt(i int, lv level, q int) place {
	h := &c.p.Hunks[i]
	pl := place{at: q, lines: h.Lines[lv.pf : len(h.Lines)-lv.sf], dropped: lv.pf, fuzz: lv.fuzz, ws: lv.ws}
	if !h.NoNumbers {
		pl.offset = q - (h.statedIndex() + lv.pf)
	}
	return pl
}

// end returns the index after the last original line the place covers.
func (pl place) end() int {
	n := pl.at
	for _, l := range pl.lines {
		if l.old() {
			n++
		}
	}
	return n
}

// wsSpace returns the whitespace-normalised keyspace, building it on first
// use: most applications never need it.
func (c *careful) wsSpace() *keyspace {
	if c.ws != nil {
		return c.ws
	}
	ks := &keyspace{ids: map[string]int32{}}
	c.oldWS = make([][]int32, len(c.p.Hunks))
	for i := range c.p.Hunks {
		for _, l := range c.p.Hunks[i].Lines {
			if l.old() {
				c.oldWS[i] = append(c.oldWS[i], ks.intern(wsKey(lineKey(l.Text))))
			}
		}
	}
	// Not stopped by the context: it is made once, and most applications
	// never need it.
	ks.index(nil, c.t.n(), func(i int, buf []byte) (int32, []byte) {
		buf = appendWSKey(buf[:0], lineKey(c.t.line(i)))
		id, ok := ks.ids[string(buf)]
		if !ok {
			return -1, buf
		}
		return id, buf
	})
	c.ws = ks
	return ks
}

// locate finds where hunk i fits within window w at its best level, or
// says why it fits nowhere.
func (c *careful) locate(i int, w window) (*fits, error) {
	h := &c.p.Hunks[i]
	lo, hi, offset := w.lo, w.hi, w.offset
	if len(c.oldExact[i]) == 0 {
		// Nothing to compare: only the line numbers, or a window with room
		// for one place only, can place it.
		at := h.statedIndex() + offset
		switch {
		case lo == hi:
			at = lo
		case h.NoNumbers:
			return nil, c.p.applyError(i, ErrNoMatch, nil, "it has neither context lines nor line numbers, so nothing says where it goes")
		case at < lo || at > hi:
			return nil, c.p.applyError(i, ErrNoMatch, nil, fmt.Sprintf("it has no context lines and its line %d is outside the text or overlaps another hunk", at))
		}
		return &fits{score: -1, n: 1, first: at, last: at}, nil
	}
	for _, lv := range h.levels(c.opt) {
		ks, old := &c.exact, c.oldExact[i]
		if lv.ws {
			ks, old = c.wsSpace(), c.oldWS[i]
		}
		pat := old[lv.pf : len(old)-lv.sf]
		m, n := len(pat), c.t.n()
		f := &fits{lv: lv, m: m, pat: pat, ks: ks, score: -1}
		// Where the shape of the hunk's context says it belongs: a diff
		// tool writes less context only at the start or end of a text.
		if lv.start && c.matchAt(ks, pat, 0, lo, hi) {
			f.n, f.first, f.last = 1, 0, 0
			return f, nil
		}
		if lv.end && c.matchAt(ks, pat, n-m, lo, hi) {
			f.n, f.first, f.last = 1, n-m, n-m
			return f, nil
		}
		// Line numbers never choose between places: models get them
		// wrong, and a wrong number can point at a copy of the right lines.
		// Where the level dropped context, the places whose surroundings
		// match more of it fit better (see score).
		dropped := lv.pf+lv.sf > 0
		count := func(q int) bool {
			if f.n++; f.n == 1 {
				f.first = q
			}
			f.last = q
			return f.n <= maxPlaces
		}
		var err error
		if !dropped {
			err = c.scan(ks, pat, lo, hi, false, count)
		} else {
			// Where the level dropped context, the places whose
			// surroundings match more of it fit better. Dropped lines
			// that are rare in the text score only at a few places:
			// those are rated first, and if one of them beats anything
			// the frequent lines can give, the others need no look.
			cand, most := c.candidates(i, lv, lo, hi)
			for _, q := range cand {
				if c.matchAt(ks, pat, q, lo, hi) {
					c.rate(f, c.score(i, lv, q), q)
				}
			}
			if f.n == 0 || f.score <= most {
				f.n, f.score = 0, -1
				err = c.scan(ks, pat, lo, hi, false, func(q int) bool {
					c.rate(f, c.score(i, lv, q), q)
					return f.n <= maxPlaces || f.score < most
				})
			}
		}
		if err != nil {
			return nil, err
		}
		if f.n > 0 {
			return f, nil
		}
	}
	return nil, errNowhere
}

// errNowhere is what locate returns for a hunk whose lines are found
// nowhere in its window; placeCareful writes the error (noMatch) at the
// end, when the window is final.
var errNowhere = errors.New("found nowhere")

// noMatch is the error for hunk i, whose lines are found nowhere in w.
func (c *careful) noMatch(i int, w window) error {
	where := " in the text"
	if w.lo > 0 || w.hi < c.t.n() {
		where = fmt.Sprintf(" between line %d and line %d, where the hunks around it leave room", w.lo+1, w.hi)
	}
	return c.p.applyError(i, ErrNoMatch, nil, fmt.Sprintf("its context and removed lines are found nowhere%s%s", where, how(level{fuzz: c.opt.Fuzz, ws: c.opt.IgnoreWhitespace})))
}

// rate counts the place q of f, with score s: the best score so far
// starts the count again.
func (c *careful) rate(f *fits, s, q int) {
	switch {
	case s > f.score:
		f.score, f.n, f.first, f.last = s, 1, q, q
	case s == f.score:
		f.n, f.last = f.n+1, q
	}
}

// candidates splits the context lines that level lv drops from hunk i
// into rare and frequent ones in the window [lo, hi) of the text (compared
// with whitespace normalised). It returns, in order, the places where a
// rare one is, at its distance from the place: elsewhere a place scores
// only by the frequent ones, at most most.
func (c *careful) candidates(i int, lv level, lo, hi int) (cand []int, most int) {
	ws := c.wsSpace()
	old, oldWS := c.oldExact[i], c.oldWS[i]
	m := len(old) - lv.pf - lv.sf
	// within returns the text lines in the window where the dropped old
	// line k would be, of ks's number id.
	within := func(ks *keyspace, id int32, k int) []int32 {
		o := ks.occurs(id)
		from := sort.Search(len(o), func(j int) bool { return int(o[j]) >= lo+k-lv.pf })
		to := sort.Search(len(o), func(j int) bool { return int(o[j]) > hi-m+k-lv.pf })
		return o[from:max(from, to)]
	}
	rare := (hi - lo) / 8
	var dropped []int
	for k := range lv.pf {
		dropped = append(dropped, k)
	}
	for k := len(old) - lv.sf; k < len(old); k++ {
		dropped = append(dropped, k)
	}
	for _, k := range dropped {
		c.work += 4 * bits.Len(uint(c.t.n()))
		occ := within(ws, oldWS[k], k)
		if len(occ) <= rare {
			for _, j := range occ {
				cand = append(cand, int(j)-k+lv.pf)
			}
			continue
		}
		if len(within(&c.exact, old[k], k)) > 0 {
			most += 2
		} else {
			most++
		}
	}
	slices.Sort(cand)
	c.work += len(cand) * (1 + bits.Len(uint(len(cand))))
	return slices.Compact(cand), most
}

// matchAt reports whether pat matches at q, inside [lo, hi).
func (c *careful) matchAt(ks *keyspace, pat []int32, q, lo, hi int) bool {
	if q < lo || q+len(pat) > hi {
		return false
	}
	c.work += len(pat)
	for k, id := range pat {
		if ks.text[q+k] != id {
			return false
		}
	}
	return true
}

// score rates the place q of hunk i at level lv by the context lines the
// level dropped: a dropped line equal to the text's line counts two, equal
// but for whitespace one. A place that matches more of the hunk fits
// better; where it is only nearer to the stated line it does not.
func (c *careful) score(i int, lv level, q int) int {
	old := c.oldExact[i]
	ws := c.wsSpace()
	oldWS := c.oldWS[i]
	s := 0
	rate := func(k int) {
		j := q - lv.pf + k
		if j < 0 || j >= c.t.n() {
			return
		}
		switch {
		case c.exact.text[j] == old[k]:
			s += 2
		case ws.text[j] == oldWS[k]:
			s++
		}
	}
	// Only the dropped lines: those between were compared already.
	for k := range lv.pf {
		rate(k)
	}
	for k := len(old) - lv.sf; k < len(old); k++ {
		rate(k)
	}
	c.work += lv.pf + lv.sf
	return s
}

// how describes a level for messages.
func how(lv level) string {
	var parts []string
	if lv.fuzz > 0 {
		parts = append(parts, fmt.Sprintf("fuzz %d", lv.fuzz))
	}
	if lv.ws {
		parts = append(parts, "whitespace ignored")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// listLines renders up to five line numbers.
func listLines(lines []int) string {
	var b strings.Builder
	for k, n := range lines {
		if k == 5 {
			fmt.Fprintf(&b, " and %d more", len(lines)-5)
			break
		}
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "line %d", n)
	}
	return b.String()
}
