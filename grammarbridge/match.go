package grammarbridge

import (
	"context"
	le "encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Match is one distinct value that a grammar gives an input.
type Match struct {
	// Value is the value as JSON, written as JSON.stringify writes it:
	// object properties in the order the grammar wrote them, undefined
	// ones left out, numbers as JavaScript prints them. Decode it with
	// encoding/json (into a struct of the action's fields, or an any);
	// Canonical gives the form with keys sorted. The matcher never
	// writes it again: it can be kept.
	Value json.RawMessage
	// MatchedValues is TypeAgent's matchedValueCount: how many captured
	// values the value was built from (wildcards, numbers, and the default
	// literal values of captured rules; literals written after "->" count
	// nothing).
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
	return g.match(nil, input)
}

// MatchContext is Match that gives up when ctx is done, with an error that
// wraps ctx.Err(). The work limit bounds a match already (DefaultWorkLimit
// steps take a fraction of a second); the context is for callers with a
// deadline of their own. The matcher looks at ctx every few thousand
// steps, and not at all when ctx can never be done (nil, Background).
func (g *Grammar) MatchContext(ctx context.Context, input string) ([]Match, error) {
	return g.match(ctx, input)
}

// match is Match, watching ctx unless it is nil.
func (g *Grammar) match(ctx context.Context, input string) ([]Match, error) {
	if g.cannotStart(input) {
		// Most inputs a grammar is not for fail here, before the matcher
		// is set up and the input lower-cased (about 400 instructions).
		return []Match{}, nil
	}
	m := g.newMatcher(input, false)
	m.watch(ctx)
	m.run()
	// No defer (it costs more than the rest of a short match's set-up): a
	// panic only loses the matcher.
	if err := m.err; err != nil {
		g.release(m)
		return nil, err
	}
	ms := m.ranked()
	g.release(m)
	return ms, nil
}

// cannotStart reports whether no match of the start rule can begin where
// input does: by the folded first byte after separators (the test
// enterRule makes on every rule), then, when every alternative that byte
// selects begins with a literal, by their first-word tests (as tryTree
// makes them), before anything is set up. It is never true under
// Options.naive (every rule may start with anything).
func (g *Grammar) cannotStart(input string) bool {
	r := g.start
	if !r.startTests {
		return false
	}
	t := r.startAct.Load()
	if t == nil {
		t = r.makeStartAct()
	}
	q := 0
	for q < len(input) && t[input[q]] == startSep {
		q++
	}
	if q == len(input) {
		return !r.firstAny // only separators: r must match nothing
	}
	act := t[input[q]]
	if act < startWords {
		return act == startNone
	}
	ws := r.firstWords[act-startWords]
	// The eight bytes at q, lower-cased when they are ASCII (bytes past
	// the end are 0, which no token has). On other input the test is
	// not made: letters that are not ASCII may fold to ASCII ones.
	var x uint64
	if q+8 <= len(input) {
		x = le.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(input[q:]), 8))
	} else {
		var b [8]byte
		copy(b[:], input[q:])
		x = le.LittleEndian.Uint64(b[:])
	}
	const hi = 0x8080808080808080
	if x&hi != 0 {
		return false
	}
	x |= (x + 0x3f3f3f3f3f3f3f3f) &^ (x + 0x2525252525252525) & hi >> 2
	for i := 0; i+1 < len(ws); i += 2 {
		if x&ws[i+1] == ws[i] {
			return false
		}
	}
	return true
}

// Best returns the best match for input. When nothing matches, the error
// is a *NoMatchError (matching ErrNoMatch) that says what the grammar would
// have accepted at the furthest point reached.
func (g *Grammar) Best(input string) (Match, error) {
	return g.best(nil, input)
}

// BestContext is Best that gives up when ctx is done (see MatchContext).
func (g *Grammar) BestContext(ctx context.Context, input string) (Match, error) {
	return g.best(ctx, input)
}

// best is Best, watching ctx unless it is nil.
func (g *Grammar) best(ctx context.Context, input string) (Match, error) {
	if !g.cannotStart(input) {
		m := g.newMatcher(input, false)
		m.bestOnly = true
		m.watch(ctx)
		m.run()
		if err := m.err; err != nil {
			g.release(m)
			return Match{}, err
		}
		if len(m.results) > 0 {
			var best Match
			m.setMatch(&best, &m.results[0])
			g.release(m)
			return best, nil
		}
		g.release(m)
	}
	return Match{}, g.explain(ctx, input)
}

// Explain matches input while recording, at the furthest input position any
// alternative reached, what it expected there. It returns a *NoMatchError,
// or nil when input matches.
func (g *Grammar) Explain(input string) error {
	return g.explain(nil, input)
}

// explain is Explain, watching ctx unless it is nil.
func (g *Grammar) explain(ctx context.Context, input string) error {
	m := g.newMatcher(input, true)
	defer g.release(m)
	m.watch(ctx)
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
	// Every failure records what it expected (expectAlt); should one not,
	// the place is the input's start, never before it.
	return &NoMatchError{Input: input, Offset: max(m.far, 0), Expected: exp}
}

// event is one entry of the matcher's trail, from which values are built
// once a parse succeeds. It holds no pointers, so the trail is cheap to
// copy, and is 16 bytes: the trail is copied whole for the success memo
// (keepTrail, replay) and shared rule outcomes, and an event of 32 bytes
// doubled what those copies and every push wrote. What a kind does not
// use is shared: an evBegin's alternative is in a, an evNum's number in a
// and b (beginEvent, numEvent).
type event struct {
	kind evKind
	slot int32 // evWild, evNum: the variable's slot; evBegin: the slot in the parent (-1: none)
	a, b int32 // evWild: trimmed text bounds; evBegin: a is the alternative's id; evNum: the number's bits
}

// beginEvent returns the evBegin of alternative alt, entered for the
// variable in slot of its parent (-1: none).
func beginEvent(alt, slot int32) event { return event{kind: evBegin, slot: slot, a: alt} }

// numEvent returns the evNum binding number v to the variable in slot.
func numEvent(slot int32, v float64) event {
	bits := math.Float64bits(v)
	return event{kind: evNum, slot: slot, a: int32(uint32(bits)), b: int32(uint32(bits >> 32))}
}

// alt returns an evBegin's alternative id.
func (ev event) alt() int32 { return ev.a }

// num returns an evNum's number.
func (ev event) num() float64 {
	return math.Float64frombits(uint64(uint32(ev.a)) | uint64(uint32(ev.b))<<32)
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
// completes. Continuations live in m.conts and refer to each other by index (-1 is
// the top level): they hold no pointers, so writing them is cheap.
type cont struct {
	parent int32 // continuation of the alternative that entered the rule
	alt    int32 // that alternative's id
	part   int32 // the part that entered the rule
	pos    int32 // input position where the rule was entered (for repeats)
	depth  int32
	serial int32 // unique within a match, for the success memo's keys

	// collect, when set, makes this a collecting continuation: the rule's
	// outcomes are stored there instead of continuing (see outcomes).
	collect  int32 // 1 + index in m.entries, or -1 - index in m.shareCols, or 0
	segStart int32 // trail index of the rule's evBegin
	outer    int32 // trail index of the stand-in for the caller's open wildcard, or -1
}

// top is the continuation of the start rule's alternatives.
const top int32 = -1

// matcher is the state of one match of one input.
type matcher struct {
	g     *Grammar
	in    string
	tbuf  []event // the trail: tbuf[:tn]; kept by length so that pushing and
	tn    int     // truncating write no pointer (no GC write barrier)
	work  int
	limit int // the work at which stopWork is called: workLimit, or the next look at ctx
	err   error
	// workLimit is the most work allowed; ctx, when it can be done, is
	// looked at every ctxEvery steps (see watch).
	workLimit int
	ctx       context.Context

	results []result
	// bestOnly keeps only the best result (Best): record keeps no
	// value that does not rank strictly better than it.
	bestOnly    bool
	memo        map[memoKey]int   // -> index in entries, when memoTab is too big
	memoTab     []uint64          // (rule, pos, open) -> gen<<32 | entries index
	gen         uint32            // generation of memoTab entries for this input
	lower       []byte            // the input lower-cased (only its ASCII letters when it is not ASCII; reused)
	asciiState  uint8             // 0 unknown, 1 the input is ASCII, 2 it is not
	lowerPad    []byte            // lower and 8 more bytes (of no meaning)
	pairsDone   bool              // pairs is filled for this input
	occ         occLists          // places of the searched tokens (occur.go)
	pairs       [pairWords]uint64 // hashed set of lower's byte pairs (pairHash), for long searches
	sm          succMemo          // parses found from states (succ.go)
	succ        int               // successes so far: results recorded and outcomes collected
	busyHits    int               // rules found busy (left recursion): failures then are not final
	serial      int32             // last continuation serial
	entries     []memoEntry       // reused across inputs
	nent        int               // entries in use
	segs        []event           // trail segments of pending outcomes
	conts       []cont            // continuation arena, used LIFO
	shareOuts   []shareOut        // ways shared prefixes matched (share.go), used LIFO
	shareSegs   []event           // their trail segments
	shareCols   []shareCol        // collections of ways under way, LIFO
	shareActive int               // tryAlts calls exploring a prefix tree
	silent      int               // > 0 inside a silent rule part: no events are pushed
	ctop        int               // conts in use
	js          jsonBufs          // the buffers values are written in (jsonvalue.go)
	slotBuf     []nval            // scratch for build
	nodes       []node            // the value arena (lazy.go)
	kids        []kid
	vals        []any
	strCache    *[strCacheSize]strEntry // the input's wildcard texts: nodes, JSON, hashes (lazy.go)
	strUsed     []uint8                 // its entries in use
	keys        []rankKey               // the result index while matching, then the ranking keys (result.go)

	// The walk of simple rule parts (simple.go): the ends listed (a
	// stack: the caller goes on from its own, m.sEnds[base:end], and
	// gives them back unless they are kept, or kept ones are above), where
	// the walk under way lists them, the enclosing alternatives, and the
	// split of the open wildcard being walked (sT < 0: none).
	sEnds      []simpleEnd
	sBase      int
	sStack     [maxSimpleDepth]simpleFrame
	sT, sA, sB int32
	sLeads     [maxKeptLeads + 1]int32 // where each lead's ends begin in the walk under way (simpleAfter)
	sKeptWalks int                     // walks made from an earlier walk's ends (simpleAfterKept), for tests
	sRewalks   int                     // walks from kept ends made again in full (simple), for tests
	skipped    bool                    // a search after a wildcard skipped a place inside a match since simple cleared it (skipInside)
	// The ends of walks with a wildcard open, kept for this input:
	// sRules holds, for a rule, the first place its walk started and
	// where in sEnds its ends are (valid when gen is sGen); sTab holds,
	// for a rule and place, sGen where noLead found the rule cannot
	// begin.
	sTab   []uint32
	sRules []simpleKeep
	sGen   uint32

	// inEnd is the input's length, or no length at all when paths are
	// not to be dropped by the input they need (calt.minFrom): for
	// Explain's expected lists and Options.naive.
	inEnd int

	track    bool
	far      int
	expected map[string]bool
}

func (g *Grammar) newMatcher(input string, track bool) *matcher {
	limit := g.opts.WorkLimit
	if limit <= 0 {
		limit = DefaultWorkLimit
	}
	// One matcher is kept at hand (cheaper than the pool when a grammar is
	// used by one goroutine at a time); the pool holds the others.
	m := g.spare.Swap(nil)
	if m == nil {
		m, _ = g.pool.Get().(*matcher)
		if m == nil {
			m = &matcher{}
		}
	}
	if cap(m.tbuf)-len(m.tbuf) < eventPad { // a new matcher (or a trail a test set): room for copyEvents
		m.tbuf = make([]event, 32, 32+eventPad)
	}
	m.g, m.in, m.limit, m.workLimit, m.ctx, m.track = g, input, limit, limit, nil, track
	m.inEnd = len(input)
	if track || g.opts.naive {
		m.inEnd = math.MaxInt32
	}
	m.work, m.err, m.nent, m.ctop, m.asciiState = 0, nil, 0, 0, 0
	m.results, m.bestOnly = m.results[:0], false
	m.js.startInput()
	m.segs = m.segs[:0]
	m.lowerInput()
	m.shareOuts, m.shareSegs, m.shareCols, m.shareActive, m.silent = m.shareOuts[:0], m.shareSegs[:0], m.shareCols[:0], 0, 0
	m.resetArena()
	m.sEnds = m.sEnds[:0]
	if m.sGen++; m.sGen == 0 {
		clear(m.sTab[:cap(m.sTab)])
		clear(m.sRules)
		m.sGen = 1
	}
	// The dense memo table is reused with a new generation; an input too
	// long for it uses the map. Clearing a map costs its capacity: big
	// ones are dropped instead.
	m.gen++
	if m.gen == 0 {
		clear(m.memoTab)
		m.gen = 1
	}
	if size := g.nrules * (len(input) + 1) * memoVariants; size <= maxMemoTab {
		if cap(m.memoTab) < size {
			m.memoTab = make([]uint64, size, size+size/2)
		}
		m.memoTab = m.memoTab[:size]
	} else {
		m.memoTab = nil
	}
	if len(m.memo) > 256 {
		m.memo = nil
	} else if len(m.memo) > 0 {
		clear(m.memo)
	}
	m.succ, m.busyHits, m.serial = 0, 0, 0
	if track {
		m.expected = map[string]bool{}
		m.far = -1
	}
	return m
}

// release returns a matcher to the grammar's pool.
func (g *Grammar) release(m *matcher) {
	m.in, m.ctx = "", nil
	clear(m.vals)
	m.vals = m.vals[:0]
	m.clearStrCache() // drop references to the input
	if !g.spare.CompareAndSwap(nil, m) {
		g.pool.Put(m)
	}
}

// push appends ev to the trail.
func (m *matcher) push(ev event) {
	if m.tn == len(m.tbuf) {
		m.growTrail(1)
	}
	m.tbuf[m.tn] = ev
	m.tn++
}

// growTrail makes room in the trail for k more events. The trail keeps
// eventPad events of capacity past its length (copyEvents reads and
// writes them).
//
//go:noinline
func (m *matcher) growTrail(k int) {
	n := 2*len(m.tbuf) + k + 32
	tb := make([]event, n, n+eventPad)
	copy(tb, m.tbuf[:m.tn])
	m.tbuf = tb
}

// pushSeg appends a recorded segment to the trail.
func (m *matcher) pushSeg(seg []event) {
	if m.tn+len(seg) > len(m.tbuf) {
		m.growTrail(len(seg))
	}
	copy(m.tbuf[m.tn:], seg)
	m.tn += len(seg)
}

// pushKept is pushSeg for a segment of the kept trails (succ.go), which
// keep eventPad events readable past their end: it is copied with
// copyEvents.
func (m *matcher) pushKept(seg []event) {
	if m.tn+len(seg) > len(m.tbuf) {
		m.growTrail(len(seg))
	}
	copyEvents(unsafe.Add(unsafe.Pointer(unsafe.SliceData(m.tbuf)), 16*m.tn), unsafe.Pointer(unsafe.SliceData(seg)), len(seg))
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
	m.tryAlts(m.g.start, -1, top, 0, noWild, ch, known, 0)
}

// watch makes the match look at ctx every ctxEvery steps, unless ctx can
// never be done. The looks cost nothing on the way: m.limit is set to the
// work of the next look, which the test of every step against the limit
// catches (stopWork).
func (m *matcher) watch(ctx context.Context) {
	if ctx == nil || ctx.Done() == nil {
		return
	}
	m.ctx = ctx
	m.limit = min(m.workLimit, m.work+ctxEvery)
}

// ctxEvery is how many steps pass between two looks at the context: a
// step takes about a hundred nanoseconds at most, so a done context is
// seen within a millisecond.
const ctxEvery = 1 << 12

// stopWork is called when the work passes m.limit: it reports whether the
// match stops, because the work passed the work limit or ctx is done, or
// goes on to the next look at ctx. Once stopped the limit is below any
// work, so that one test stops every later step.
func (m *matcher) stopWork() bool {
	if m.err == nil && m.work <= m.workLimit && m.ctx != nil {
		err := m.ctx.Err()
		if err == nil {
			m.limit = min(m.workLimit, m.work+ctxEvery)
			return false
		}
		m.err = fmt.Errorf("grammar match: %w", err)
	}
	if m.err == nil {
		m.err = fmt.Errorf("grammar match: more than %d steps: %w", m.workLimit, ErrWorkLimit)
	}
	m.limit = math.MinInt
	return true
}

// step matches part i of alternative a at pos, then everything after it.
//
// Going on to the next part with nothing to undo (a literal matched, an
// optional part skipped) is a turn of the loop, not a call: a call costs
// about 30 instructions (its arguments, frame and return), often more
// than the test of the part.
func (m *matcher) step(c int32, a *calt, i int, pos int, w wild) {
	for {
		// After an error the limit is below any work: one test stops both.
		m.work++
		if m.work > m.limit && m.stopWork() {
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
				m.literalAfter(c, a, i, p, w, m.nextCandidate(p, w.start))
				if m.track {
					// The wildcard could have taken everything so far: the
					// literal is what the input still needs.
					m.expect(len(m.in), p.toks[0].src)
				}
				return
			}
			if e, ok := m.stringAt(p, a.spacing, pos); ok {
				i, pos = i+1, e
				continue
			}
			if m.track {
				m.expectString(p, pos)
			}
			return
		case partNumber:
			if w.start >= 0 {
				// Each number from where the one before ended, as
				// TypeAgent's global expression finds them (nextNumber);
				// the wildcard may end before it when the boundary after
				// it holds and the wildcard is not empty.
				for t, e := m.nextNumber(w.start); t >= 0; t, e = m.nextNumber(e) {
					m.work++
					if m.boundary(e, a.spacing) && m.setWild(w, t) {
						if v, ok := m.numberValue(t, e); ok {
							m.bindNumber(c, a, i, p, v, e)
							if m.err != nil {
								return
							}
						}
					}
				}
			} else if v, e, ok := m.numberLazy(a.spacing, pos); ok {
				m.bindNumber(c, a, i, p, v, e)
			} else if m.track {
				m.expect(pos, "$("+p.name+":number)")
			}
		case partWildcard:
			// Not when what is left of the input cannot hold the wildcard
			// and the parts after it (a path that would fail later anyway).
			if w.start < 0 && pos+int(a.minFrom[i]) <= m.inEnd {
				if m.track {
					m.expect(pos, "$("+p.name+")")
				}
				n := m.tn
				m.push(event{kind: evWild, slot: int32(p.slot)})
				if i+1 < len(a.parts) {
					m.step(c, a, i+1, pos, wild{start: pos, ev: n})
				} else if m.work++; m.work <= m.limit || !m.stopWork() {
					// The last part: its step would only finish a.
					m.finishAlt(c, a, pos, wild{start: pos, ev: n})
				}
				m.tn = n
			}
			// A wildcard directly after another never matches (TypeAgent).
		case partRules:
			if p.keywords {
				m.keywords(c, a, i, p, pos, w)
				break
			}
			if p.simple != simpleNo {
				if p.simple == simpleLead {
					if w.start >= 0 && m.noLead(p, pos, w.start) {
						// Not one alternative can begin: no match.
						break
					}
				} else if m.simple(c, a, i, p, pos, w) {
					// Literals and keywords only, silent: no rule entry.
					return
				}
			}
			depth := int32(1)
			if c != top {
				depth = m.conts[c].depth + 1
			}
			if depth > maxDepth {
				m.err = fmt.Errorf("grammar match: rules nested more than %d deep (left recursion?): %w", maxDepth, ErrWorkLimit)
				m.limit = math.MinInt // every later step stops at once
				return
			}
			k := m.pushCont(cont{parent: c, alt: a.id, part: int32(i), pos: int32(pos), depth: depth, serial: m.nextSerial(), outer: -1})
			m.enter(k, p, pos, w)
			m.ctop--
		case partPhrase:
			// Matches nothing: on to the next part.
			p = nil
		}
		if p != nil && !p.optional {
			return
		}
		// On after the part, skipped: a state many paths reach (stepMemo).
		i++
		if m.work >= succMemoAfter {
			m.stepSuccMemo(c, a, i, pos, w)
			return
		}
	}
}

// literalAfter matches literal p, part i of a, with wildcard w open, at
// each place from t on (t: the first candidate, or -1): the literal may
// start anywhere after the wildcard's start, even inside a word
// (TypeAgent), but not inside an earlier match of it (skipInside); each
// place is a split.
func (m *matcher) literalAfter(c int32, a *calt, i int, p *cpart, w wild, t int) {
	for t >= 0 {
		m.work++
		e, ok := m.tokensAtCandidate(p, a.spacing, t)
		if ok && m.setWild(w, t) {
			if closeMemo(a, i) || m.work >= succMemoAfter {
				m.stepSuccMemo(c, a, i+1, e, noWild)
			} else {
				m.step(c, a, i+1, e, noWild)
			}
			if m.err != nil {
				return
			}
		}
		if t = m.nextCandidate(p, t+1); t >= 0 && t < e {
			t = m.skipInside(p, e)
		}
	}
}

// closeMemo reports whether the state after part i of a, a literal or
// keyword that closed an open wildcard, is memoized from the start of
// the match (stepSuccMemo), not only past succMemoAfter. Other paths
// often reach it: each way the parts before the wildcard ended opens it
// at another place, and the literal closes each at the same one (email:
// (<Polite>)? ('reply' | 'respond') ('to' | 'for')? $(body:string) ('to'
// | 'for') $(messageRef:string) ...: two ways after 'respond' 'to'). A
// revisit then records the parses kept from the first instead of
// searching again. The memo costs a lookup and an entry on every first
// visit and a kept trail for every parse: only where at least
// closeMemoParts parts are left to search.
func closeMemo(a *calt, i int) bool {
	return len(a.parts)-i > closeMemoParts
}

// closeMemoParts: see closeMemo (with 1, weather and player took 2-3 %
// more instructions; with 2, 0.5-1.3 %, and email 7.7 % fewer).
const closeMemoParts = 2

// keywords matches a rule whose alternatives are each one literal (a
// group of keywords) without entering it: each alternative that matches
// leaves the same trail as a full rule entry (its begin and end), and the
// match continues after the part. When the part's value is not used, it
// leaves nothing: the value of that rule entry would go nowhere, and its
// ranking counts travel with its value only.
func (m *matcher) keywords(c int32, a *calt, i int, p *cpart, pos int, w wild) {
	n := m.tn
	if w.start >= 0 {
		m.keywordsAfter(c, a, i, p, w, n)
		return
	}
	q, ch, known := m.firstPlace(pos)
	if p.rule.kwTrees && !m.track && m.asciiState == 1 {
		if tree := p.rule.treeFor(ch, known); tree != nil {
			m.keywordTree(tree, c, a, i, p, pos, n)
			return
		}
	}
	alts := p.rule.alts
	// test: the alternatives' first bytes are to be tested (not when the
	// list is the one for ch).
	test := known
	var x uint64 // the input's first word at pos, when xok (see firstWord)
	xok := false
	if !m.track {
		alts = p.rule.altsFor(ch, known)
		test = known && p.rule.firstIdx == nil
		if len(alts) > 1 && m.asciiState == 1 {
			// The first word (see firstWord) where the first byte is.
			x, xok = m.word8(q), true
		}
	}
	for _, sub := range alts {
		sp := &sub.parts[0]
		if test && !sub.firstAny && (ch < 0 || !sub.first.has(byte(ch))) {
			if m.track {
				m.expectString(sp, pos)
			}
			continue
		}
		m.work++
		if xok && x&sp.fmask != sp.fword {
			continue
		}
		if e, ok := m.stringAt(sp, sub.spacing, pos); ok {
			m.keywordMatched(sub, e, c, a, i, p, n)
			if m.err != nil {
				return
			}
		} else if m.track {
			m.expectString(sp, pos)
		}
	}
}

// firstPlace is firstByte with no wildcard open; it also returns where
// that byte is: the first place at or after pos that is not a separator
// (the input's length at its end).
//
// It reads the lower-cased input, as firstByte does: its ASCII letters are
// folded already, and a byte that is not ASCII is no separator of the
// table, so one test per separator skipped.
func (m *matcher) firstPlace(pos int) (q, ch int, known bool) {
	low := m.lower
	for q = pos; uint(q) < uint(len(low)); q++ {
		if c := low[q]; !asciiSep[c] {
			if c >= utf8.RuneSelf {
				return q, 0, false
			}
			return q, int(c), true
		}
	}
	return q, -1, true
}

// keywordsAfter is keywords with wildcard w open: each keyword may start
// anywhere after the wildcard's start (the next byte is not known, so
// every alternative is tried).
func (m *matcher) keywordsAfter(c int32, a *calt, i int, p *cpart, w wild, n int) {
	for _, sub := range p.rule.alts {
		sp := &sub.parts[0]
		for t := m.nextCandidate(sp, w.start); t >= 0; {
			m.work++
			e, ok := m.tokensAtCandidate(sp, sub.spacing, t)
			if ok && m.setWild(w, t) {
				// keywordMatched, the state after it memoized at once (as in
				// literalAfter).
				if p.valueUsed && m.silent == 0 {
					m.push(beginEvent(sub.id, int32(p.slot)))
					m.push(event{kind: evEnd})
				}
				if closeMemo(a, i) || m.work >= succMemoAfter {
					m.stepSuccMemo(c, a, i+1, e, noWild)
				} else {
					m.step(c, a, i+1, e, noWild)
				}
				m.tn = n
				if m.err != nil {
					return
				}
			}
			if t = m.nextCandidate(sp, t+1); t >= 0 && t < e {
				t = m.skipInside(sp, e)
			}
		}
		if m.track {
			m.expect(len(m.in), sp.toks[0].src)
		}
	}
}

// tryAlts steps into each alternative of r at pos that can start with
// the next byte ch (when known), under continuation c, resetting the event
// stack to n after each; it stops at an error.
func (m *matcher) tryAlts(r *crule, slot int, c int32, pos int, w wild, ch int, known bool, n int) {
	alts := r.alts
	if !m.track {
		if w.start < 0 {
			if tree := r.treeFor(ch, known); tree != nil {
				// Alternatives that begin alike: share those parts.
				m.shareActive++
				m.tryTree(tree, 0, -1, pos, slot, c, n, nil)
				if m.shareActive--; m.shareActive == 0 {
					// No collection is under way: drop every way collected.
					m.shareOuts, m.shareSegs = m.shareOuts[:0], m.shareSegs[:0]
				}
				m.tn = n
				return
			}
		}
		alts = r.altsFor(ch, known)
	}
	for _, sub := range alts {
		if known && !sub.firstAny && (ch < 0 || !sub.first.has(byte(ch))) {
			if m.track {
				m.expectAlt(pos, sub, r)
			}
			continue
		}
		i, e := 0, pos
		if p := sub.lit0; p != nil && !m.track {
			if w.start >= 0 {
				// Find the literal before anything is set up: most
				// alternatives tried after a wildcard fail here.
				t := m.nextCandidate(p, w.start)
				m.work++ // the step it saves
				if t < 0 {
					continue
				}
				if m.silent == 0 {
					m.push(beginEvent(sub.id, int32(slot)))
				}
				m.literalAfter(c, sub, 0, p, w, t)
				m.tn = n
				if m.err != nil {
					return
				}
				continue
			}
			var ok bool
			if e, ok = m.stringAt(p, sub.spacing, pos); !ok {
				continue
			}
			i++
		} else if sub.kwFirst && !m.track {
			// A group of keywords: matched in place, as step would.
			m.work++
			if m.silent == 0 {
				m.push(beginEvent(sub.id, int32(slot)))
			}
			if w.start >= 0 {
				// keywords would only pass it on.
				m.keywordsAfter(c, sub, 0, &sub.parts[0], w, m.tn)
			} else {
				m.keywords(c, sub, 0, &sub.parts[0], pos, w)
			}
			m.tn = n
			if m.err != nil {
				return
			}
			continue
		}
		if m.silent == 0 {
			m.push(beginEvent(sub.id, int32(slot)))
		}
		m.step(c, sub, i, e, w)
		m.tn = n
		if m.err != nil {
			return
		}
	}
}

// enter tries every alternative of p's rule at pos, continuing with k.
func (m *matcher) enter(k int32, p *cpart, pos int, w wild) {
	if p.silent {
		m.silent++
		m.enterRule(k, p, pos, w)
		m.silent--
		return
	}
	m.enterRule(k, p, pos, w)
}

func (m *matcher) enterRule(k int32, p *cpart, pos int, w wild) {
	r := p.rule
	ch, known := m.firstByte(pos, w)
	if known && !r.firstAny && (ch < 0 || !r.first.has(byte(ch))) {
		if m.track {
			m.expectRule(pos, r)
		}
		return
	}
	n := m.tn
	if m.g.opts.naive || m.firstVisit(r, pos, w.start >= 0, m.memoUsed(p)) {
		// Most rules are entered once at a position: explore them in place.
		// Only a second visit collects and memoizes their outcomes.
		m.tryAlts(r, p.slot, k, pos, w, ch, known, n)
		return
	}
	idx := m.outcomes(k, p, pos, w)
	if idx == noOutcomes {
		return
	}
	for i := 0; i < len(m.entries[idx].outs); i++ {
		o := m.entries[idx].outs[i] // entries may grow below: copy
		if o.nseg > 0 {
			m.pushSeg(m.segs[o.seg : o.seg+o.nseg])
			m.tbuf[n].slot = int32(p.slot) // the segment was recorded under another caller
		}
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

// afterRule continues after p's rule (entered with continuation k) has
// matched up to pos.
func (m *matcher) afterRule(k int32, p *cpart, pos int, w wild) {
	kc := &m.conts[k] // not used once the arena may have grown
	parent, alt, part := kc.parent, kc.alt, kc.part
	if p.repeat && pos > int(kc.pos) {
		k2 := m.pushCont(cont{parent: parent, alt: alt, part: part, pos: int32(pos), depth: kc.depth, serial: m.nextSerial(), outer: -1})
		// Still inside p's rule: when p is silent, m.silent already counts it.
		m.enterRule(k2, p, pos, w)
		m.ctop--
	}
	// Back in the caller, which is not silent on account of p (when p is
	// silent). stepMemo written out (it is not inlined).
	a, i := m.g.alts[alt], int(part)+1
	if p.silent {
		m.silent--
	}
	if m.work < succMemoAfter {
		m.step(parent, a, i, pos, w)
	} else {
		m.stepSuccMemo(parent, a, i, pos, w)
	}
	if p.silent {
		m.silent++
	}
}

func (m *matcher) bindNumber(c int32, a *calt, i int, p *cpart, v float64, e int) {
	n := m.tn
	m.push(numEvent(int32(p.slot), v))
	m.step(c, a, i+1, e, noWild)
	m.tn = n
}

// finishAlt continues after alternative a has matched up to pos.
func (m *matcher) finishAlt(c int32, a *calt, pos int, w wild) {
	n := m.tn
	if c == top {
		if m.silent == 0 {
			m.push(event{kind: evEnd})
		}
		m.finishTop(pos, w)
		m.tn = n
		return
	}
	kc := &m.conts[c] // the arena does not grow before its last use
	if kc.collect < 0 {
		m.collectShare(c, pos, w)
		return
	}
	if m.silent == 0 {
		m.push(event{kind: evEnd})
	}
	if kc.collect > 0 {
		m.collect(c, pos, w)
	} else {
		m.afterRule(c, &m.g.alts[kc.alt].parts[kc.part], pos, w)
	}
	m.tn = n
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

// String describes the grammar's size, for debugging.
func (g *Grammar) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "grammar: %d start alternatives", len(g.start.alts))
	return b.String()
}

// eventPad is how many events past its length the trail and the kept
// trails have room for, readable: copyEvents copies that many whatever
// the count, without the choices by length that memmove makes and
// mispredicts (kept trails of 3 to 14 events on code-editor).
const eventPad = 16

// copyEvents copies n events from src to dst: the first eventPad
// whatever n, then one at a time. It reads and writes up to eventPad
// events past n, which the callers have.
func copyEvents(dst, src unsafe.Pointer, n int) {
	copy64(dst, src)
	copy64(unsafe.Add(dst, 64), unsafe.Add(src, 64))
	copy64(unsafe.Add(dst, 128), unsafe.Add(src, 128))
	copy64(unsafe.Add(dst, 192), unsafe.Add(src, 192))
	for i := eventPad * 16; i < n*16; i += 16 {
		*(*[16]byte)(unsafe.Add(dst, i)) = *(*[16]byte)(unsafe.Add(src, i))
	}
}
