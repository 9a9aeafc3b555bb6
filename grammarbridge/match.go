package grammarbridge

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Match is one distinct value that a grammar gives an input.
type Match struct {
	// Value is a plain Go value: map[string]any, []any, string, float64,
	// bool or nil.
	Value any
	// MatchedValues is TypeAgent's matchedValueCount: how many captured
	// values (wildcards and numbers) the value was built from.
	MatchedValues int
	// WildcardChars is TypeAgent's wildcardCharCount: the total length, in
	// UTF-16 code units, of the wildcard text in the value.
	WildcardChars int
}

// Match returns every distinct value the grammar gives input, best first
// (TypeAgent's ranking: values without wildcard text, then more matched
// values, then fewer wildcard characters; ties keep the matcher's order).
// No match is an empty list and a nil error; an input that needs more work
// than the limit fails with an error matching ErrWorkLimit.
func (g *Grammar) Match(input string) ([]Match, error) {
	m := g.newMatcher(input, false)
	defer g.release(m)
	m.run()
	if m.err != nil {
		return nil, m.err
	}
	return m.ranked(), nil
}

// Best returns the best match for input. When nothing matches, the error
// is a *NoMatchError (matching ErrNoMatch) that says what the grammar would
// have accepted at the furthest point reached.
func (g *Grammar) Best(input string) (Match, error) {
	ms, err := g.Match(input)
	if err != nil {
		return Match{}, err
	}
	if len(ms) > 0 {
		return ms[0], nil
	}
	return Match{}, g.Explain(input)
}

// Explain matches input while recording, at the furthest input position any
// alternative reached, what it expected there. It returns a *NoMatchError,
// or nil when input matches.
func (g *Grammar) Explain(input string) error {
	m := g.newMatcher(input, true)
	defer g.release(m)
	m.run()
	if m.err != nil {
		return m.err
	}
	if len(m.results) > 0 {
		return nil
	}
	exp := make([]string, 0, len(m.expected))
	for e := range m.expected {
		exp = append(exp, e)
	}
	sort.Strings(exp)
	return &NoMatchError{Input: input, Offset: m.far, Expected: exp}
}

// event is one entry of the matcher's trail, from which values are built
// once a parse succeeds.
// It holds no pointers, so the trail is cheap to copy.
type event struct {
	kind evKind
	slot int32 // evWild, evNum: the variable's slot; evBegin: the slot in the parent (-1: none)
	alt  int32 // evBegin: the alternative's id
	a, b int32 // evWild: trimmed text bounds
	num  float64
}

type evKind uint8

const (
	evBegin evKind = iota
	evEnd
	evWild
	evNum
)

// wild is a pending wildcard: its text starts at start and ends where the
// next part is found. start < 0 means none is pending.
type wild struct {
	start int
	ev    int // trail index of its evWild
}

var noWild = wild{start: -1}

// cont is a continuation: where to resume when the current alternative
// completes.
// Continuations live in m.conts and refer to each other by index (-1 is
// the top level): they hold no pointers, so writing them is cheap.
type cont struct {
	parent int32 // continuation of the alternative that entered the rule
	alt    int32 // that alternative's id
	part   int32 // the part that entered the rule
	pos    int32 // input position where the rule was entered (for repeats)
	depth  int32
	serial int32 // unique within a match, for the failure memo

	// collect, when set, makes this a collecting continuation: the rule's
	// outcomes are stored there instead of continuing (see outcomes).
	collect  int32 // 1 + index in m.entries, or 0
	segStart int32 // trail index of the rule's evBegin
	outer    int32 // trail index of the stand-in for the caller's open wildcard, or -1
}

// top is the continuation of the start rule's alternatives.
const top int32 = -1

// memoKey identifies a rule entered at an input position, with or
// without a wildcard open.
type memoKey struct {
	rule *crule
	pos  int
	open bool
}

// memoEntry holds the distinct outcomes of a rule at a position.
type memoEntry struct {
	busy bool // being computed (left recursion fails, as in packrat parsing)
	outs []outcome
}

// maxMemoTab bounds the dense memo table (entries of 8 bytes).
const maxMemoTab = 1 << 20

// noOutcomes is returned for a rule entered again at the same position
// while its outcomes are being computed.
const noOutcomes = -1

// outcome is one way a rule can match: where it ends and its value, or,
// when it ends with a wildcard still open, its whole trail segment.
type outcome struct {
	end int

	// With a wildcard open on entry, either the rule consumed nothing and
	// it is still open (passOuter), or the rule closed it with text oa:ob.
	passOuter   bool
	closedOuter bool
	oa, ob      int32

	pending bool
	wstart  int // the open wildcard's start
	wev     int // its evWild's index in the segment
	seg     int // the rule's trail: m.segs[seg:seg+nseg]
	nseg    int
	val     slotVal // the value, once computed to compare two outcomes
	hasVal  bool
}

// matcher is the state of one match of one input.
type matcher struct {
	g     *Grammar
	in    string
	tbuf  []event // the trail: tbuf[:tn]; kept by length so that pushing and
	tn    int     // truncating write no pointer (no GC write barrier)
	work  int
	limit int
	err   error

	results    []result
	index      map[uint64]int  // value hash -> last results index with it
	memo       map[memoKey]int // -> index in entries, when memoTab is too big
	memoTab    []uint64        // (rule, pos, open) -> gen<<32 | entries index
	gen        uint32          // generation of memoTab entries for this input
	lower      []byte          // the input lower-cased, when asciiState is 1
	asciiState uint8           // 0 unknown, 1 the input is ASCII, 2 it is not
	failed     map[failKey]struct{}
	succ       int         // successes so far: results recorded and outcomes collected
	busyHits   int         // rules found busy (left recursion): failures then are not final
	serial     int32       // last continuation serial
	entries    []memoEntry // reused across inputs
	nent       int         // entries in use
	segs       []event     // trail segments of pending outcomes
	conts      []cont      // continuation arena, used LIFO
	ctop       int         // conts in use
	frames     []frame     // scratch for build
	slotBuf    []slotVal   // scratch for build

	track    bool
	far      int
	expected map[string]bool
}

// result is one distinct value and its best rank.
type result struct {
	value any
	st    stats
	order int
	hash  uint64 // of value, once a second result needs comparing
	next  int    // previous result with the same hash, or -1
}

func (g *Grammar) newMatcher(input string, track bool) *matcher {
	limit := g.opts.WorkLimit
	if limit <= 0 {
		limit = DefaultWorkLimit
	}
	m, _ := g.pool.Get().(*matcher)
	if m == nil {
		m = &matcher{}
	}
	m.g, m.in, m.limit, m.track = g, input, limit, track
	m.work, m.err, m.nent, m.ctop, m.asciiState = 0, nil, 0, 0, 0
	m.results = m.results[:0]
	m.segs = m.segs[:0]
	// The dense memo table is reused with a new generation; an input too
	// long for it uses the map. Clearing a map costs its capacity: big
	// ones are dropped instead.
	m.gen++
	if m.gen == 0 {
		clear(m.memoTab)
		m.gen = 1
	}
	if size := g.nrules * (len(input) + 1) * 2; size <= maxMemoTab {
		if cap(m.memoTab) < size {
			m.memoTab = make([]uint64, size, size+size/2)
		}
		m.memoTab = m.memoTab[:size]
	} else {
		m.memoTab = nil
	}
	if len(m.memo) > 256 {
		m.memo = nil
	} else {
		clear(m.memo)
	}
	if len(m.failed) > 256 {
		m.failed = nil
	} else {
		clear(m.failed)
	}
	m.succ, m.busyHits, m.serial = 0, 0, 0
	if len(m.index) > 64 {
		m.index = nil
	} else {
		clear(m.index)
	}
	if track {
		m.expected = map[string]bool{}
		m.far = -1
	}
	return m
}

// release returns a matcher to the grammar's pool.
func (g *Grammar) release(m *matcher) {
	m.in = ""
	clear(m.results) // drop references to values handed out
	g.pool.Put(m)
}

// push appends ev to the trail.
func (m *matcher) push(ev event) {
	if m.tn == len(m.tbuf) {
		m.tbuf = append(m.tbuf, make([]event, len(m.tbuf)+32)...)
	}
	m.tbuf[m.tn] = ev
	m.tn++
}

// pushSeg appends a recorded segment to the trail.
func (m *matcher) pushSeg(seg []event) {
	for m.tn+len(seg) > len(m.tbuf) {
		m.tbuf = append(m.tbuf, make([]event, len(m.tbuf)+32)...)
	}
	copy(m.tbuf[m.tn:], seg)
	m.tn += len(seg)
}

// pushCont adds a continuation to the arena and returns its index; the
// caller releases it with m.ctop-- once the call that uses it returns.
func (m *matcher) pushCont(k cont) int32 {
	i := m.ctop
	m.ctop++
	if i == len(m.conts) {
		m.conts = append(m.conts, k)
	} else {
		m.conts[i] = k
	}
	return int32(i)
}

func (m *matcher) run() {
	m.tn = 0
	ch, known := m.firstByte(0, noWild)
	for _, a := range m.g.start.alts {
		if known && !a.firstAny && (ch < 0 || !a.first.has(byte(ch))) {
			if m.track && len(a.parts) > 0 {
				m.expectPart(0, &a.parts[0])
			}
			continue
		}
		m.push(event{kind: evBegin, alt: a.id, slot: -1})
		m.step(top, a, 0, 0, noWild)
		m.tn = 0
		if m.err != nil {
			return
		}
	}
}

// expect records, in tracking mode, that what was expected at pos.
func (m *matcher) expect(pos int, what string) {
	for pos < len(m.in) {
		r, n := utf8.DecodeRuneInString(m.in[pos:])
		if !isSep(r) {
			break
		}
		pos += n
	}
	if pos > m.far {
		m.far = pos
		clear(m.expected)
	}
	if pos == m.far {
		m.expected[what] = true
	}
}

// step matches part i of alternative a at pos, then everything after it.
func (m *matcher) step(c int32, a *calt, i int, pos int, w wild) {
	if m.err != nil {
		return
	}
	m.work++
	if m.work > m.limit {
		m.err = fmt.Errorf("grammar match: more than %d steps: %w", m.limit, ErrWorkLimit)
		return
	}
	if i == len(a.parts) {
		m.finishAlt(c, a, pos, w)
		return
	}
	p := &a.parts[i]
	switch p.kind {
	case partString:
		if w.start >= 0 {
			// The literal may start anywhere after the wildcard's start,
			// even inside a word (TypeAgent); each place is a split.
			for t := m.nextCandidate(p, w.start); t >= 0; t = m.nextCandidate(p, t+1) {
				m.work++
				if e, ok := m.tokensAt(p, a.spacing, t); ok && m.setWild(w, t) {
					m.step(c, a, i+1, e, noWild)
					if m.err != nil {
						return
					}
				}
			}
			return
		}
		if e, ok := m.stringAt(p, a.spacing, pos); ok {
			m.step(c, a, i+1, e, noWild)
		} else if m.track {
			m.expectString(p, pos)
		}
	case partNumber:
		if w.start >= 0 {
			for t := w.start; t < len(m.in); t++ {
				if ch := m.in[t]; !(ch >= '0' && ch <= '9' || ch == '+' || ch == '-') {
					continue // a number starts with a digit or a sign
				}
				m.work++
				if v, e, ok := m.numberAt(a.spacing, t); ok && m.boundary(t, a.spacing) && m.setWild(w, t) {
					m.bindNumber(c, a, i, p, v, e)
					if m.err != nil {
						return
					}
				}
			}
		} else if v, e, ok := m.numberLazy(a.spacing, pos); ok {
			m.bindNumber(c, a, i, p, v, e)
		} else if m.track {
			m.expect(pos, "$("+p.name+":number)")
		}
		if p.optional {
			m.stepMemo(c, a, i+1, pos, w)
		}
	case partWildcard:
		if w.start < 0 {
			if m.track {
				m.expect(pos, "$("+p.name+")")
			}
			n := m.tn
			m.push(event{kind: evWild, slot: int32(p.slot)})
			m.step(c, a, i+1, pos, wild{start: pos, ev: n})
			m.tn = n
		}
		// A wildcard directly after another never matches (TypeAgent).
		if p.optional {
			m.stepMemo(c, a, i+1, pos, w)
		}
	case partRules:
		depth := int32(1)
		if c != top {
			depth = m.conts[c].depth + 1
		}
		if depth > maxDepth {
			m.err = fmt.Errorf("grammar match: rules nested more than %d deep (left recursion?): %w", maxDepth, ErrWorkLimit)
			return
		}
		k := m.pushCont(cont{parent: c, alt: a.id, part: int32(i), pos: int32(pos), depth: depth, serial: m.nextSerial(), outer: -1})
		m.enter(k, p, pos, w)
		m.ctop--
		if p.optional {
			m.stepMemo(c, a, i+1, pos, w)
		}
	case partPhrase:
		m.stepMemo(c, a, i+1, pos, w)
	}
}

// failMemoAfter is the work after which failed states are remembered:
// cheap matches do not pay for the map.
const failMemoAfter = 512

// failKey is a matcher state: continuation, alternative, part, input
// position and the start of the open wildcard.
type failKey struct {
	serial, alt, part, pos, wstart int32
}

// stepMemo is step for states that many paths reach (after an optional
// part, after a rule): a state already explored without success is not
// explored again. Success never depends on the values captured so far, so
// this changes no result; it is what keeps grammars with many optional
// parts and wildcards from taking exponential time.
func (m *matcher) stepMemo(c int32, a *calt, i int, pos int, w wild) {
	if i == len(a.parts) && c == top || m.work < failMemoAfter || m.g.opts.naive {
		m.step(c, a, i, pos, w)
		return
	}
	var serial int32
	if c != top {
		serial = m.conts[c].serial
	}
	key := failKey{serial, a.id, int32(i), int32(pos), int32(w.start)}
	if _, failed := m.failed[key]; failed {
		return
	}
	succ, busy := m.succ, m.busyHits
	m.step(c, a, i, pos, w)
	if m.succ == succ && m.busyHits == busy && m.err == nil {
		if m.failed == nil {
			m.failed = map[failKey]struct{}{}
		}
		m.failed[key] = struct{}{}
	}
}

func (m *matcher) nextSerial() int32 {
	m.serial++
	return m.serial
}

// enter tries every alternative of p's rule at pos, continuing with k.
func (m *matcher) enter(k int32, p *cpart, pos int, w wild) {
	r := p.rule
	ch, known := m.firstByte(pos, w)
	if known && !r.firstAny && (ch < 0 || !r.first.has(byte(ch))) {
		if m.track {
			m.expectRule(pos, r)
		}
		return
	}
	n := m.tn
	if m.g.opts.naive || m.firstVisit(r, pos, w.start >= 0) {
		// Most rules are entered once at a position: explore them in place.
		// Only a second visit collects and memoizes their outcomes.
		for _, sub := range r.alts {
			if known && !sub.firstAny && (ch < 0 || !sub.first.has(byte(ch))) {
				if m.track && len(sub.parts) > 0 {
					m.expectPart(pos, &sub.parts[0])
				}
				continue
			}
			m.push(event{kind: evBegin, alt: sub.id, slot: int32(p.slot)})
			m.step(k, sub, 0, pos, w)
			m.tn = n
			if m.err != nil {
				return
			}
		}
		return
	}
	idx := m.outcomes(k, p, pos, w)
	if idx == noOutcomes {
		return
	}
	for i := 0; i < len(m.entries[idx].outs); i++ {
		o := m.entries[idx].outs[i] // entries may grow below: copy
		m.pushSeg(m.segs[o.seg : o.seg+o.nseg])
		m.tbuf[n].slot = int32(p.slot) // the segment was recorded under another caller
		w2 := noWild
		switch {
		case o.passOuter:
			w2 = w
		case o.pending:
			w2 = wild{start: o.wstart, ev: n + o.wev}
		}
		if o.closedOuter {
			ev := &m.tbuf[w.ev]
			ev.a, ev.b = o.oa, o.ob
		}
		m.afterRule(k, p, o.end, w2)
		m.tn = n
		if m.err != nil {
			return
		}
	}
}

// firstByte returns the folded first byte of the input at pos after
// separators (-1 at the end of the input), and whether it is known: it is
// not when a wildcard is open (the next part may be anywhere) or the input
// there is not ASCII.
func (m *matcher) firstByte(pos int, w wild) (int, bool) {
	if w.start >= 0 {
		return 0, false
	}
	for q := pos; q < len(m.in); q++ {
		ch := m.in[q]
		if ch >= utf8.RuneSelf {
			return 0, false
		}
		if !asciiSep[ch] {
			if 'A' <= ch && ch <= 'Z' {
				ch += 'a' - 'A'
			}
			return int(ch), true
		}
	}
	return -1, true
}

// visitedOnce marks a memo slot whose rule was entered once, in place.
const visitedOnce = 0xFFFFFFFF

// firstVisit reports whether rule r is entered at pos (with or without an
// open wildcard) for the first time in this match, and marks it visited.
// It is false, and memoization takes over, when the dense table is not in
// use (very long inputs).
func (m *matcher) firstVisit(r *crule, pos int, open bool) bool {
	slot := m.memoSlot(r, pos, open)
	if slot == nil || uint32(*slot>>32) == m.gen {
		return false
	}
	*slot = uint64(m.gen)<<32 | visitedOnce
	return true
}

// memoSlot returns where the outcomes of rule r at pos (with or without an
// open wildcard) are recorded: a slot of the dense table, or nil when the
// table would be too big and the map is used.
func (m *matcher) memoSlot(r *crule, pos int, open bool) *uint64 {
	if m.memoTab == nil {
		return nil
	}
	i := (int(r.id)*(len(m.in)+1) + pos) * 2
	if open {
		i++
	}
	return &m.memoTab[i]
}

// outcomes returns the index in m.entries of the distinct outcomes of p's
// rule at pos, computing them once per input. With a wildcard open, the
// outcomes also say where the rule closed it.
func (m *matcher) outcomes(k int32, p *cpart, pos int, w wild) int {
	open := w.start >= 0
	slot := m.memoSlot(p.rule, pos, open)
	key := memoKey{p.rule, pos, open}
	if slot != nil {
		if v := *slot; uint32(v>>32) == m.gen && uint32(v) != visitedOnce {
			idx := int(uint32(v))
			if m.entries[idx].busy {
				m.busyHits++
				return noOutcomes
			}
			return idx
		}
	} else if idx, ok := m.memo[key]; ok {
		if m.entries[idx].busy {
			m.busyHits++
			return noOutcomes
		}
		return idx
	}
	idx := m.nent
	m.nent++
	if idx == len(m.entries) {
		m.entries = append(m.entries, memoEntry{})
	}
	m.entries[idx].busy = true
	m.entries[idx].outs = m.entries[idx].outs[:0]
	if slot != nil {
		*slot = uint64(m.gen)<<32 | uint64(uint32(idx))
	} else {
		if m.memo == nil {
			m.memo = map[memoKey]int{}
		}
		m.memo[key] = idx
	}
	base := m.tn
	w2 := noWild
	if open {
		// A stand-in for the caller's open wildcard, which the rule may
		// close: collect reads where.
		m.push(event{kind: evWild, slot: -1})
		w2 = wild{start: w.start, ev: base}
	}
	n := m.tn
	col := m.pushCont(cont{parent: top, collect: int32(idx + 1), segStart: int32(n), depth: m.conts[k].depth, serial: m.nextSerial(), outer: -1})
	if open {
		m.conts[col].outer = int32(w2.ev)
	}
	ch, known := m.firstByte(pos, w2)
	for _, sub := range p.rule.alts {
		if known && !sub.firstAny && (ch < 0 || !sub.first.has(byte(ch))) {
			if m.track && len(sub.parts) > 0 {
				m.expectPart(pos, &sub.parts[0])
			}
			continue
		}
		m.push(event{kind: evBegin, alt: sub.id, slot: int32(p.slot)})
		m.step(col, sub, 0, pos, w2)
		m.tn = n
		if m.err != nil {
			break
		}
	}
	m.ctop--
	m.tn = base
	m.entries[idx].busy = false
	return idx
}

// collect stores an outcome of the rule being memoized, unless an equal
// one (same end, same value and counts) is already there.
func (m *matcher) collect(c int32, pos int, w wild) {
	k := m.conts[c]
	m.succ++
	seg := m.tbuf[k.segStart:m.tn]
	off := len(m.segs)
	m.segs = append(m.segs, seg...)
	o := outcome{end: pos, seg: off, nseg: len(seg)}
	if k.outer >= 0 {
		if w.start >= 0 && w.ev == int(k.outer) {
			o.passOuter = true // consumed nothing: the caller's wildcard is still open
		} else {
			ev := &m.tbuf[k.outer]
			o.closedOuter, o.oa, o.ob = true, ev.a, ev.b
		}
	}
	if w.start >= 0 && !o.passOuter {
		o.pending, o.wstart, o.wev = true, w.start, w.ev-int(k.segStart)
	}
	e := &m.entries[k.collect-1]
	if !o.pending && !o.passOuter {
		for i := range e.outs {
			p := &e.outs[i]
			if p.pending || p.passOuter || p.end != pos || p.closedOuter != o.closedOuter || p.oa != o.oa || p.ob != o.ob {
				continue
			}
			// Two ways to end here: compare their values.
			if !p.hasVal {
				p.val, p.hasVal = m.build(m.segs[p.seg:p.seg+p.nseg]), true
			}
			if !o.hasVal {
				o.val, o.hasVal = m.build(seg), true
			}
			if p.val.st == o.val.st && equalValue(p.val.v, o.val.v) {
				m.segs = m.segs[:off]
				return
			}
		}
	}
	e.outs = append(e.outs, o)
}

// afterRule continues after p's rule (entered with continuation k) has
// matched up to pos.
func (m *matcher) afterRule(k int32, p *cpart, pos int, w wild) {
	kc := m.conts[k] // a copy: the arena may grow below
	if p.repeat && pos > int(kc.pos) {
		k2 := m.pushCont(cont{parent: kc.parent, alt: kc.alt, part: kc.part, pos: int32(pos), depth: kc.depth, serial: m.nextSerial(), outer: -1})
		m.enter(k2, p, pos, w)
		m.ctop--
	}
	m.stepMemo(kc.parent, m.g.alts[kc.alt], int(kc.part)+1, pos, w)
}

// expectString records the first token of p that does not match at pos
// (after the ones that do) as expected.
func (m *matcher) expectString(p *cpart, pos int) {
	q := pos
	for i := range p.toks {
		for q < len(m.in) {
			r, n := utf8.DecodeRuneInString(m.in[q:])
			if !isSep(r) {
				break
			}
			q += n
		}
		e, ok := m.tokenAt(&p.toks[i], q)
		if !ok {
			m.expect(q, p.toks[i].src)
			return
		}
		q = e
	}
	m.expect(q, "end of the word") // the tokens match but end inside a word
}

// expectPart records what part p expects at pos.
func (m *matcher) expectPart(pos int, p *cpart) {
	switch p.kind {
	case partString:
		m.expect(pos, p.toks[0].src)
	case partRules:
		m.expectRule(pos, p.rule)
	}
}

// expectRule records the first literals of r as expected at pos.
func (m *matcher) expectRule(pos int, r *crule) {
	for _, a := range r.alts {
		if len(a.parts) > 0 {
			p := &a.parts[0]
			switch p.kind {
			case partString:
				m.expect(pos, p.toks[0].src)
			case partRules:
				if p.rule != r {
					m.expectRule(pos, p.rule)
				}
			}
		}
	}
}

func (m *matcher) bindNumber(c int32, a *calt, i int, p *cpart, v float64, e int) {
	n := m.tn
	m.push(event{kind: evNum, slot: int32(p.slot), num: v})
	m.step(c, a, i+1, e, noWild)
	m.tn = n
}

// finishAlt continues after alternative a has matched up to pos.
func (m *matcher) finishAlt(c int32, a *calt, pos int, w wild) {
	n := m.tn
	m.push(event{kind: evEnd})
	defer func() { m.tn = n }()
	if c == top {
		m.finishTop(pos, w)
		return
	}
	kc := &m.conts[c]
	if kc.collect != 0 {
		m.collect(c, pos, w)
		return
	}
	m.afterRule(c, &m.g.alts[kc.alt].parts[kc.part], pos, w)
}

// finishTop completes a parse of the whole input: a pending wildcard takes
// the rest; otherwise only separators may remain.
func (m *matcher) finishTop(pos int, w wild) {
	if w.start >= 0 {
		if !m.setWild(w, len(m.in)) {
			return
		}
	} else if !onlySeps(m.in[pos:]) {
		if m.track {
			m.expect(pos, "end of input")
		}
		return
	}
	m.record()
}

// setWild ends the pending wildcard w at end; its text, trimmed of
// separators, must not be empty.
func (m *matcher) setWild(w wild, end int) bool {
	a, b := trimSeps(m.in, w.start, end)
	if a == b {
		return false
	}
	ev := &m.tbuf[w.ev]
	ev.a, ev.b = int32(a), int32(b)
	return true
}

// nextCandidate returns the first position >= from where p's first token
// may start, or -1. For an ASCII token in ASCII input it searches the
// lower-cased input; otherwise every rune start is a candidate.
func (m *matcher) nextCandidate(p *cpart, from int) int {
	if from >= len(m.in) {
		return -1
	}
	tok := p.toks[0].ascii
	if tok == nil || !m.isASCII() {
		for from < len(m.in) && !utf8.RuneStart(m.in[from]) {
			from++
		}
		if from >= len(m.in) {
			return -1
		}
		return from
	}
	j := bytes.Index(m.lower[from:], tok)
	if j < 0 {
		return -1
	}
	return from + j
}

// isASCII reports whether the input is all ASCII, lower-casing it into
// m.lower the first time.
func (m *matcher) isASCII() bool {
	if m.asciiState == 0 {
		m.asciiState = 1
		m.lower = m.lower[:0]
		for i := 0; i < len(m.in); i++ {
			c := m.in[i]
			if c >= utf8.RuneSelf {
				m.asciiState = 2
				break
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			m.lower = append(m.lower, c)
		}
	}
	return m.asciiState == 1
}

// stringAt matches a literal part at pos, skipping separators lazily (the
// fewest that let the part match), as TypeAgent's regular expression does.
func (m *matcher) stringAt(p *cpart, sp Spacing, pos int) (int, bool) {
	for {
		if e, ok := m.tokensAt(p, sp, pos); ok {
			return e, true
		}
		if pos >= len(m.in) {
			return 0, false
		}
		r, n := utf8.DecodeRuneInString(m.in[pos:])
		if !isSep(r) {
			return 0, false
		}
		pos += n
	}
}

// tokensAt matches p's tokens starting exactly at pos, followed by a valid
// boundary, and returns the end.
func (m *matcher) tokensAt(p *cpart, sp Spacing, pos int) (int, bool) {
	return m.tokensFrom(p, sp, 0, pos)
}

func (m *matcher) tokensFrom(p *cpart, sp Spacing, i, pos int) (int, bool) {
	e, ok := m.tokenAt(&p.toks[i], pos)
	if !ok {
		return 0, false
	}
	if i == len(p.toks)-1 {
		if m.boundary(e, sp) {
			return e, true
		}
		return 0, false
	}
	k := p.seps[i]
	if k == sepNone {
		return m.tokensFrom(p, sp, i+1, e)
	}
	// Separators between tokens are matched greedily, backing off one at a
	// time: only needed when the next token itself starts with one.
	s := e
	for s < len(m.in) {
		r, n := utf8.DecodeRuneInString(m.in[s:])
		if !isSep(r) {
			break
		}
		s += n
	}
	min := e
	if k == sepRequired {
		if s == e {
			return 0, false
		}
		_, n := utf8.DecodeRuneInString(m.in[e:])
		min = e + n
	}
	if !isSep(p.toks[i+1].runes[0]) {
		return m.tokensFrom(p, sp, i+1, s)
	}
	for q := s; q >= min; {
		m.work++
		if end, ok := m.tokensFrom(p, sp, i+1, q); ok {
			return end, true
		}
		if q == min {
			break
		}
		_, n := utf8.DecodeLastRuneInString(m.in[:q])
		q -= n
	}
	return 0, false
}

// tokenAt compares one token with the input at pos, case-insensitively.
func (m *matcher) tokenAt(t *ctoken, pos int) (int, bool) {
	in := m.in
	if t.ascii != nil {
		j := 0
		for ; j < len(t.ascii); j++ {
			if pos+j >= len(in) {
				return 0, false
			}
			c := in[pos+j]
			if c >= utf8.RuneSelf {
				break // fall back to runes: a non-ASCII letter may fold to ASCII (K, ſ)
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != t.ascii[j] {
				return 0, false
			}
		}
		if j == len(t.ascii) {
			return pos + j, true
		}
	}
	q := pos
	for _, tr := range t.runes {
		if q >= len(in) {
			return 0, false
		}
		r, n := utf8.DecodeRuneInString(in[q:])
		if !foldEq(r, tr) {
			return 0, false
		}
		q += n
	}
	return q, true
}

// boundary reports whether a part may end at pos under spacing sp.
func (m *matcher) boundary(pos int, sp Spacing) bool {
	if sp == SpacingOptional || sp == SpacingNone || pos == 0 || pos >= len(m.in) {
		return true
	}
	a, _ := utf8.DecodeLastRuneInString(m.in[:pos])
	b, _ := utf8.DecodeRuneInString(m.in[pos:])
	if sp == SpacingRequired {
		return isSep(a) || isSep(b)
	}
	return !needsSep(a, b)
}

// numberLazy matches a number at pos after the fewest separators that let
// it match.
func (m *matcher) numberLazy(sp Spacing, pos int) (float64, int, bool) {
	for {
		if v, e, ok := m.numberAt(sp, pos); ok {
			return v, e, true
		}
		if pos >= len(m.in) {
			return 0, 0, false
		}
		r, n := utf8.DecodeRuneInString(m.in[pos:])
		if !isSep(r) {
			return 0, 0, false
		}
		pos += n
	}
}

// numberAt matches a JavaScript-style number starting exactly at pos:
// 0x/0o/0b integers, or a signed decimal with optional fraction and
// exponent, followed by a valid boundary.
func (m *matcher) numberAt(sp Spacing, pos int) (float64, int, bool) {
	in := m.in
	digitsEnd := func(i int, ok func(byte) bool) int {
		for i < len(in) && ok(in[i]) {
			i++
		}
		return i
	}
	isDec := func(c byte) bool { return c >= '0' && c <= '9' }
	if pos+2 < len(in) && in[pos] == '0' {
		base := 0
		var ok func(byte) bool
		switch in[pos+1] {
		case 'x', 'X':
			base, ok = 16, func(c byte) bool { return isDec(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
		case 'o', 'O':
			base, ok = 8, func(c byte) bool { return c >= '0' && c <= '7' }
		case 'b', 'B':
			base, ok = 2, func(c byte) bool { return c == '0' || c == '1' }
		}
		if base != 0 {
			if e := digitsEnd(pos+2, ok); e > pos+2 && m.boundary(e, sp) {
				return parseBase(in[pos+2:e], base), e, true
			}
		}
	}
	i := pos
	if i < len(in) && (in[i] == '+' || in[i] == '-') {
		i++
	}
	e := digitsEnd(i, isDec)
	if e == i {
		return 0, 0, false
	}
	if e+1 < len(in) && in[e] == '.' && isDec(in[e+1]) {
		e = digitsEnd(e+1, isDec)
	}
	if e+1 < len(in) && (in[e] == 'e' || in[e] == 'E') {
		j := e + 1
		if j < len(in) && (in[j] == '+' || in[j] == '-') {
			j++
		}
		if k := digitsEnd(j, isDec); k > j {
			e = k
		}
	}
	if !m.boundary(e, sp) {
		return 0, 0, false
	}
	v, err := strconv.ParseFloat(in[pos:e], 64)
	if err != nil && !math.IsInf(v, 0) {
		return 0, 0, false
	}
	return v, e, true
}

func parseBase(digits string, base int) float64 {
	if v, err := strconv.ParseUint(digits, base, 64); err == nil {
		return float64(v)
	}
	var z big.Int
	z.SetString(digits, base)
	f, _ := new(big.Float).SetInt(&z).Float64()
	return f
}

// record builds the value of the parse on the trail and adds it to the
// results.
func (m *matcher) record() {
	m.succ++
	out := m.build(m.tbuf[:m.tn])
	v, st := out.v, out.st
	if v == Undefined {
		v = nil
	}
	r := result{value: v, st: st, order: m.work, next: -1}
	if len(m.results) == 0 {
		// The common case, one parse: no hash is needed.
		m.results = append(m.results, r)
		return
	}
	if m.index == nil {
		m.index = map[uint64]int{}
	}
	if len(m.index) == 0 {
		first := &m.results[0]
		first.hash = hashValue(first.value)
		m.index[first.hash] = 0
	}
	r.hash = hashValue(v)
	i, ok := m.index[r.hash]
	for ok {
		if equalValue(m.results[i].value, v) {
			if better(st, m.results[i].st) {
				m.results[i].st = st
				m.results[i].order = m.work
			}
			return
		}
		i = m.results[i].next
		ok = i >= 0
	}
	if i, ok := m.index[r.hash]; ok {
		r.next = i // chain the collision
	}
	m.index[r.hash] = len(m.results)
	m.results = append(m.results, r)
}

// better reports whether a ranks strictly before b.
func better(a, b stats) bool {
	if (a.wildChars == 0) != (b.wildChars == 0) {
		return a.wildChars == 0
	}
	if a.values != b.values {
		return a.values > b.values
	}
	return a.wildChars < b.wildChars
}

func (m *matcher) ranked() []Match {
	rs := m.results
	if len(rs) > 1 {
		slices.SortStableFunc(rs, func(a, b result) int {
			switch {
			case better(a.st, b.st):
				return -1
			case better(b.st, a.st):
				return 1
			}
			return cmp.Compare(a.order, b.order)
		})
	}
	out := make([]Match, len(rs))
	for i, r := range rs {
		out[i] = Match{Value: r.value, MatchedValues: r.st.values, WildcardChars: r.st.wildChars}
	}
	return out
}

// frame is an alternative being rebuilt from the trail.
type frame struct {
	alt        *calt
	parentSlot int32 // where the value goes in the parent frame (-1: nowhere)
	slots      []slotVal
	last       slotVal // value of the last rule or group matched in it
}

// build replays a trail (of a whole parse, or of one rule) and returns
// its value.
func (m *matcher) build(trail []event) slotVal {
	stack := m.frames[:0]
	slots := m.slotBuf[:0]
	var out slotVal
	for i := range trail {
		ev := &trail[i]
		switch ev.kind {
		case evBegin:
			alt := m.g.alts[ev.alt]
			f := frame{alt: alt, parentSlot: ev.slot, last: slotVal{v: Undefined}}
			if n := alt.nslots; n > 0 {
				if len(slots)+n > cap(slots) {
					slots = make([]slotVal, 0, 2*cap(slots)+n) // frames below keep the old array
				}
				f.slots = slots[len(slots) : len(slots)+n]
				slots = slots[:len(slots)+n]
				for j := range f.slots {
					f.slots[j] = slotVal{v: Undefined}
				}
			}
			stack = append(stack, f)
		case evWild:
			s := m.in[ev.a:ev.b]
			stack[len(stack)-1].slots[ev.slot] = slotVal{v: s, st: stats{1, utf16Len(s)}}
		case evNum:
			stack[len(stack)-1].slots[ev.slot] = slotVal{v: ev.num, st: stats{1, 0}}
		case evEnd:
			f := &stack[len(stack)-1]
			v := f.value()
			pslot := f.parentSlot
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				out = v
				break
			}
			parent := &stack[len(stack)-1]
			parent.last = v
			if pslot >= 0 {
				parent.slots[pslot] = v
			}
		}
	}
	clear(slots)
	clear(stack)
	m.frames, m.slotBuf = stack[:0], slots[:0]
	clear(slots)
	clear(stack)
	m.frames, m.slotBuf = stack[:0], slots[:0]
	return out
}

// value computes a completed alternative's value.
func (f *frame) value() slotVal {
	a := f.alt
	switch a.implicit {
	case implicitExplicit:
		e := evaluator{slots: f.slots, vars: a.vars}
		v := e.eval(a.value)
		return slotVal{v: v, st: e.st}
	case implicitSlot:
		return f.slots[0]
	case implicitText:
		// TypeAgent records a rule's default text as a matched value.
		return slotVal{v: a.text, st: stats{1, 0}}
	case implicitChild:
		return f.last
	}
	return slotVal{v: Undefined}
}

// String describes the grammar's size, for debugging.
func (g *Grammar) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "grammar: %d start alternatives", len(g.start.alts))
	return b.String()
}
