package patch

// The careful applier as it was before it numbered lines and counted
// places instead of listing them: quadratic in the worst case, but
// straightforward. The tests compare the two on every input they have.

import (
	"fmt"
	"slices"
)

// The reference's budget, as it was.
const (
	refWorkPerLine = 8
	refMinWork     = 1 << 22
)

// refApply is ApplyWith with the reference applier.
func refApply(original, diff string, opt Options) (string, *Report, error) {
	p, err := Parse(diff)
	if err != nil {
		return "", nil, err
	}
	t := newText(original)
	if opt.Strict {
		places, err := p.placeStrict(t)
		if err != nil {
			return "", nil, err
		}
		return p.build(t, places, false), p.report(t, places), nil
	}
	places, err := p.refPlaceCareful(t, opt)
	if err != nil {
		return "", nil, err
	}
	return p.build(t, places, true), p.report(t, places), nil
}

// wsKeys returns the text's whitespace-normalised keys, computing them once.
func (c *refCareful) wsKeys() []string {
	if c.ws == nil {
		c.ws = make([]string, c.t.n())
		for i := range c.ws {
			c.ws[i] = wsKey(lineKey(c.t.line(i)))
		}
	}
	return c.ws
}

// careful holds the state of one careful application.
type refCareful struct {
	work   int // line comparisons so far
	budget int // the most line comparisons allowed
	p      *Patch
	t      *text
	opt    Options
	places []place
	placed []bool
	// oldKeys and oldWS are each hunk's old lines as compared.
	oldKeys, oldWS [][]string
	ws             []string // the text's wsKeys, filled on first use
}

// placeCareful places every hunk by content, GNU patch style, refusing to
// guess. Each hunk is searched at its best level between its placed
// neighbours; one place and it goes there. A hunk that fits several places
// waits until its neighbours are placed and narrow its window, or until
// the order of the hunks leaves it one place (byOrder); if it still fits
// several, the patch is refused. Line numbers never choose between places.
func (p *Patch) refPlaceCareful(t *text, opt Options) ([]place, error) {
	c := &refCareful{p: p, t: t, opt: opt, places: make([]place, len(p.Hunks)), placed: make([]bool, len(p.Hunks))}
	c.budget = max(refMinWork, refWorkPerLine*t.n()*len(p.Hunks))
	c.oldKeys = make([][]string, len(p.Hunks))
	c.oldWS = make([][]string, len(p.Hunks))
	for i := range p.Hunks {
		for _, l := range p.Hunks[i].Lines {
			if l.old() {
				k := lineKey(l.Text)
				c.oldKeys[i] = append(c.oldKeys[i], k)
				if opt.IgnoreWhitespace {
					c.oldWS[i] = append(c.oldWS[i], wsKey(k))
				}
			}
		}
	}
	failures := make([]error, len(p.Hunks))
	options := make([]*refFits, len(p.Hunks))
	// Hunks without old lines are placed by line numbers shifted like
	// their neighbours, so they wait until the others are settled.
	blindToo := false
	for progress := true; progress; {
		progress = false
		for i := range p.Hunks {
			if c.placed[i] || len(c.oldKeys[i]) == 0 && !blindToo {
				continue
			}
			f, err := c.locate(i)
			options[i], failures[i] = f, err
			if err == nil && len(f.at) == 1 {
				c.places[i], c.placed[i], failures[i], options[i] = c.placeAt(i, f.lv, f.at[0]), true, nil, nil
				progress = true
			}
		}
		if !progress {
			progress = c.byOrder(options)
		}
		if !progress && !blindToo {
			blindToo, progress = true, true
		}
	}
	for i, err := range failures {
		if err != nil {
			return nil, err
		}
		if !c.placed[i] {
			return nil, c.ambiguity(i, options[i])
		}
		if err := c.applied(i); err != nil {
			return nil, err
		}
	}
	return c.places, nil
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
func (c *refCareful) applied(i int) error {
	h, pl := &c.p.Hunks[i], c.places[i]
	deletes, adds, context := false, false, false
	var newKeys []string
	for _, l := range h.Lines {
		deletes = deletes || l.Op == Delete
		adds = adds || l.Op == Insert
		context = context || l.Op == Context
		if l.new() {
			newKeys = append(newKeys, lineKey(l.Text))
		}
	}
	if !context && !deletes && !h.NoNumbers && h.OldStart == 0 && c.startsWith(newKeys) {
		// "@@ -0,0": the diff says the text was empty, and the text
		// already starts with what it adds.
		return c.p.applyError(i, ErrApplied, nil, "the diff creates the text, and the text already starts with its lines: the patch seems applied already")
	}
	exact := pl.fuzz == 0 && !pl.ws
	if !adds || !context || deletes && exact {
		return nil
	}
	lo, hi, _ := c.window(i)
	m := len(newKeys)
	if exact { // only where it overlaps the place the hunk fit
		lo, hi = max(lo, pl.at-m+1), min(hi, pl.end()+m-1)
	}
	for q := lo; q+m <= hi; q++ {
		if deletes && q < pl.end() && pl.at < q+m {
			continue // what is left where lines are removed is no sign
		}
		k := 0
		for k < m && lineKey(c.t.line(q+k)) == newKeys[k] {
			k++
		}
		if k == m {
			return c.p.applyError(i, ErrApplied, nil, fmt.Sprintf("the text already has its new lines at line %d: the patch seems applied already", q+1))
		}
	}
	return nil
}

// startsWith reports whether the text's first lines are keys.
func (c *refCareful) startsWith(keys []string) bool {
	if len(keys) == 0 || len(keys) > c.t.n() {
		return false
	}
	for k, s := range keys {
		if lineKey(c.t.line(k)) != s {
			return false
		}
	}
	return true
}

// fits is where a hunk fits at its best level: one place, or several that
// fit equally well.
type refFits struct {
	lv level
	m  int   // old lines compared at that level
	at []int // 0-based indexes of the first compared line
}

// byOrder uses the order of the hunks to choose between equally good
// places: hunk i must come after some place of every hunk before it and
// before some place of every hunk after it. A hunk left with one such
// place is placed there. It reports whether it placed any.
func (c *refCareful) byOrder(options []*refFits) bool {
	n := len(c.p.Hunks)
	for _, f := range options {
		if f != nil && len(f.at) > maxPlaces {
			return false
		}
	}
	span := func(i int) (starts []int, m int, ok bool) {
		if c.placed[i] {
			return []int{c.places[i].at}, c.places[i].end() - c.places[i].at, true
		}
		if options[i] == nil {
			return nil, 0, false
		}
		return options[i].at, options[i].m, true
	}
	// minEnd[i]: the earliest end of hunk i over all orderly placements of
	// hunks 0..i; maxStart[i]: the latest start over hunks i..n-1.
	minEnd, maxStart := make([]int, n+1), make([]int, n+1)
	for i := range n {
		starts, m, ok := span(i)
		if !ok {
			return false
		}
		minEnd[i+1] = -1
		for _, q := range starts {
			if q >= minEnd[i] {
				minEnd[i+1] = q + m
				break
			}
		}
		if minEnd[i+1] < 0 {
			return false
		}
	}
	maxStart[n] = c.t.n()
	for i := n - 1; i >= 0; i-- {
		starts, m, _ := span(i)
		maxStart[i] = -1
		for k := len(starts) - 1; k >= 0; k-- {
			if starts[k]+m <= maxStart[i+1] {
				maxStart[i] = starts[k]
				break
			}
		}
		if maxStart[i] < 0 {
			return false
		}
	}
	progress := false
	for i := range n {
		if c.placed[i] {
			continue
		}
		f := options[i]
		var ok []int
		for _, q := range f.at {
			if q >= minEnd[i] && q+f.m <= maxStart[i+1] {
				ok = append(ok, q)
			}
		}
		if len(ok) == 1 {
			c.places[i], c.placed[i], options[i] = c.placeAt(i, f.lv, ok[0]), true, nil
			progress = true
		}
	}
	return progress
}

// ambiguity is the error for hunk i, which fits several places.
func (c *refCareful) ambiguity(i int, f *refFits) error {
	lines := make([]int, len(f.at))
	for k, q := range f.at {
		lines[k] = q - f.lv.pf + 1
	}
	advice := "refusing to guess: give more context or the right line numbers"
	if h := &c.p.Hunks[i]; !h.NoNumbers && slices.Contains(lines, h.statedIndex()+1) {
		advice = fmt.Sprintf("the header points at line %d, but line numbers alone do not choose: give more context lines", h.statedIndex()+1)
	}
	return c.p.applyError(i, ErrAmbiguous, lines, fmt.Sprintf("its lines fit %d places equally well (%s)%s; %s",
		len(f.at), listLines(lines), how(f.lv), advice))
}

// placeAt is hunk i placed at q, matched at level lv.
func (c *refCareful) placeAt(i int, lv level, q int) place {
	h := &c.p.Hunks[i]
	pl := place{at: q, lines: h.Lines[lv.pf : len(h.Lines)-lv.sf], dropped: lv.pf, fuzz: lv.fuzz, ws: lv.ws}
	if !h.NoNumbers {
		pl.offset = q - (h.statedIndex() + lv.pf)
	}
	return pl
}

// window returns the range of the text hunk i may occupy, between its
// placed neighbours, and the offset of the nearest placed neighbour with
// line numbers (the one before it if any).
func (c *refCareful) window(i int) (lo, hi, offset int) {
	hi = c.t.n()
	offsetFound, loFound := false, false
	for j := i - 1; j >= 0; j-- {
		if !c.placed[j] {
			continue
		}
		if !loFound {
			lo, loFound = c.places[j].end(), true
		}
		if !c.p.Hunks[j].NoNumbers {
			offset, offsetFound = c.places[j].offset, true
			break
		}
	}
	hiFound := false
	for j := i + 1; j < len(c.p.Hunks); j++ {
		if !c.placed[j] {
			continue
		}
		if !hiFound {
			hi, hiFound = c.places[j].at, true
		}
		if !offsetFound && !c.p.Hunks[j].NoNumbers {
			offset, offsetFound = c.places[j].offset, true
		}
		if offsetFound {
			break
		}
	}
	return lo, hi, offset
}

// locate finds where hunk i fits within its window at its best level, or
// says why it fits nowhere.
func (c *refCareful) locate(i int) (*refFits, error) {
	h := &c.p.Hunks[i]
	lo, hi, offset := c.window(i)
	if len(c.oldKeys[i]) == 0 {
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
		return &refFits{at: []int{at}}, nil
	}
	for _, lv := range h.levels(c.opt) {
		old := c.oldKeys[i]
		var keys []string // nil: compare lineKey of the raw lines
		if lv.ws {
			old, keys = c.oldWS[i], c.wsKeys()
		}
		key := func(q int) string {
			if keys == nil {
				return lineKey(c.t.line(q))
			}
			return keys[q]
		}
		old = old[lv.pf : len(old)-lv.sf]
		m, n := len(old), c.t.n()
		match := func(q int) bool {
			if q < lo || q+m > hi {
				return false
			}
			for k, s := range old {
				c.work++
				if key(q+k) != s {
					return false
				}
			}
			return true
		}
		one := func(q int) (*refFits, error) { return &refFits{lv: lv, m: m, at: []int{q}}, nil }
		// Where the shape of the hunk's context says it belongs: a diff
		// tool writes less context only at the start or end of a text.
		if lv.start && match(0) {
			return one(0)
		}
		if lv.end && match(n-m) {
			return one(n - m)
		}
		// Line numbers never choose between places: models get them
		// wrong, and a wrong number can point at a copy of the right lines.
		var at []int
		for q := lo; q+m <= hi; q++ {
			if c.work > c.budget {
				return nil, c.p.applyError(i, ErrNoMatch, nil, "the search for its place took too long; give fewer, more distinctive lines")
			}
			c.work++
			if key(q) == old[0] && match(q) {
				at = append(at, q)
			}
		}
		if len(at) > 1 && lv.pf+lv.sf > 0 {
			at = c.closest(i, lv, at)
		}
		if len(at) > 0 {
			return &refFits{lv: lv, m: m, at: at}, nil
		}
	}
	where := " in the text"
	if lo > 0 || hi < c.t.n() {
		where = fmt.Sprintf(" between line %d and line %d, where the hunks around it leave room", lo+1, hi)
	}
	return nil, c.p.applyError(i, ErrNoMatch, nil, fmt.Sprintf("its context and removed lines are found nowhere%s%s", where, how(level{fuzz: c.opt.Fuzz, ws: c.opt.IgnoreWhitespace})))
}

// closest keeps, of the places where hunk i fits at level lv, those whose
// surroundings best match the context lines the level dropped: a dropped
// line equal to the text's line counts two, equal but for whitespace one.
// A place that matches more of the hunk fits better; where it is only
// nearer to the stated line it does not.
func (c *refCareful) closest(i int, lv level, at []int) []int {
	old := c.oldKeys[i]
	score := func(q int) int {
		s := 0
		for k := range len(old) {
			if k >= lv.pf && k < len(old)-lv.sf {
				continue // compared already
			}
			j := q - lv.pf + k
			if j < 0 || j >= c.t.n() {
				continue
			}
			switch tk := lineKey(c.t.line(j)); {
			case tk == old[k]:
				s += 2
			case wsKey(tk) == wsKey(old[k]):
				s++
			}
		}
		return s
	}
	best, keep := -1, at[:0:0]
	for _, q := range at {
		switch s := score(q); {
		case s > best:
			best, keep = s, append(keep[:0], q)
		case s == best:
			keep = append(keep, q)
		}
	}
	return keep
}
