package grammarbridge

import (
	"slices"
	"unsafe"
)

// This file holds the success memo: the parses found from a state, kept
// so that the next path that reaches the same state replays them instead
// of searching again.
//
// A grammar with many optional parts and wildcards (code-editor) reaches
// the same state — continuation, alternative, part, input position,
// start of the open wildcard — by many paths: each way to split the text
// before it. Every such path finds the same parses from there on, for
// their trail events after the state depend on the state alone (and,
// with a wildcard open, write only where it ends before the state). So
// the trails of the parses found from a state are kept, and a later
// visit appends their parts after the state to its own trail and records
// each; a state that found nothing keeps none, and a later visit stops at
// once (this replaced a memo of failed states only). On code-editor's
// inputs the search visited each such state 5 to 19 times (an input with
// 804 results: 6830 steps over 366 distinct states).
//
// What a state found is the run of parses recorded while it was
// searched: a depth-first search records them one after another, so
// the kept trails of a state are contiguous, and a replay, which records
// too, keeps them contiguous for the states around it.

// succMemoAfter is the work after which states are memoized: a match
// that stays below it pays nothing. Of the reference inputs only
// code-editor's reach it. The states after a literal or keyword that
// closed a wildcard, which other paths often reach, are memoized from
// the start (closeMemo, match.go).
const succMemoAfter = 256

// maxSuccKeep is the number of kept trail events above which the kept
// trails are dropped after an input, not reused by the next; maxSuccTab
// is the table size above which it is dropped.
const (
	maxSuccKeep = 1 << 14
	maxSuccTab  = 1 << 12
)

// maxSuccTrails bounds the kept trail events of one input (8 MB): past
// it, no more trails are kept and only failed states are memoized (a
// replay needs every parse of its state kept).
const maxSuccTrails = 1 << 18

// succMemo is the matcher's success memo for the input under way.
type succMemo struct {
	gen    uint32 // matcher.gen of the input it holds
	epoch  uint64 // its generation of the table's slots
	trails []event
	ends   []int32 // kept trail j is trails[start(j):ends[j]]
	full   bool    // maxSuccTrails was reached: no state keeps its parses from then on
	off    bool    // Options.naive or Explain: no state is memoized
	// active counts the states being searched: the parses recorded when
	// none is are kept for none.
	active int
	tab    []succSlot
	n      int // slots of this epoch in tab
	// replayed counts the parses recorded by replays (for tests), and
	// resumed those whose value topValue is to write resuming the walk
	// of the parse before (resumePoint).
	replayed, resumed int
}

// succSlot is a slot of the success memo's table (open addressing,
// linear probing; a slot of an older epoch is empty).
type succSlot struct {
	key   stateKey
	epoch uint64
	// base is the trail's length when the state was reached; r0:r1 are
	// the kept trails of the parses found from it (r0 == r1: it failed).
	// wev is the index in those trails of the open wildcard's event, or
	// -1: where each parse closed it.
	base, r0, r1, wev int32
}

// startSuccMemo readies the memo for the input under way.
func (m *matcher) startSuccMemo() {
	sm := &m.sm
	sm.gen = m.gen
	sm.epoch++
	sm.n, sm.full, sm.replayed, sm.resumed, sm.active = 0, false, 0, 0, 0
	sm.off = m.g.opts.naive || m.track
	if cap(sm.trails) > maxSuccKeep {
		sm.trails, sm.ends = nil, nil
	}
	sm.trails, sm.ends = sm.trails[:0], sm.ends[:0]
	if len(sm.tab) > maxSuccTab {
		sm.tab = nil
	}
}

// keepTrail keeps the trail of the parse being recorded, when the memo
// is in use for this input (record calls it first).
func (m *matcher) keepTrail() {
	// A state is searched only once the memo is in use for the input
	// (stepSuccMemo), so active implies it. Past maxSuccTrails (full),
	// what is kept is kept for no state: it is not tested here.
	sm := &m.sm
	if sm.active == 0 {
		return
	}
	if len(sm.trails)+m.tn > maxSuccTrails {
		sm.full = true
		return
	}
	n, k := len(sm.trails), m.tn
	if cap(sm.trails)-n < k+eventPad {
		sm.trails = slices.Grow(sm.trails, k+eventPad)
	}
	sm.trails = sm.trails[:n+k]
	copyEvents(unsafe.Pointer(unsafe.SliceData(sm.trails[n:])), unsafe.Pointer(unsafe.SliceData(m.tbuf)), k)
	sm.ends = append(sm.ends, int32(n+k))
}

// stepSuccMemo is stepMemo once the work passed succMemoAfter: a state
// searched before is not searched again; the parses it found are
// recorded again after this path's trail. With a wildcard open, the
// state's search writes nothing in the trail before it but where the
// wildcard ends (setWild): the replay writes that too.
func (m *matcher) stepSuccMemo(c int32, a *calt, i int, pos int, w wild) {
	sm := &m.sm
	if sm.gen != m.gen {
		m.startSuccMemo()
	}
	if sm.off || i == len(a.parts) && c == top {
		m.step(c, a, i, pos, w)
		return
	}
	key := m.stateKeyOf(c, a, i, pos, w)
	h := key.hash()
	if s := sm.find(key, h); s >= 0 {
		m.replay(&sm.tab[s], w)
		return
	}
	succ, busy, r0, base := m.succ, m.busyHits, len(sm.ends), m.tn
	sm.active++
	m.step(c, a, i, pos, w)
	sm.active--
	switch {
	case m.err != nil || m.busyHits != busy:
		// Stopped, or a rule found busy: what was found here is not all
		// the state can find.
	case m.succ == succ:
		sm.add(key, h, base, r0, r0, -1)
	case !sm.full && m.topDirected(c):
		wev := -1
		if w.start >= 0 {
			wev = w.ev
		}
		sm.add(key, h, base, r0, len(sm.ends), wev)
	}
}

// topDirected reports whether an alternative that completes under
// continuation c completes a parse of the whole input, not an outcome
// being collected (outcomes, collectShare): then everything its search
// finds is recorded, and kept.
func (m *matcher) topDirected(c int32) bool {
	for c != top {
		k := &m.conts[c]
		if k.collect != 0 {
			return false
		}
		c = k.parent
	}
	return true
}

// replay records again the parses of a memoized state: each kept
// trail's events after the state's, after the trail as it is now. The
// table does not change meanwhile (recording adds no state).
func (m *matcher) replay(s *succSlot, w wild) {
	n := m.tn
	base, wev, r1 := s.base, s.wev, s.r1
	start := int32(0) // where kept trail j begins: where the one before ends
	if s.r0 > 0 {
		start = m.sm.ends[s.r0-1]
	}
	// The parses after the first resume topValue's walk of the trail
	// they share (resumePoint).
	tf := m.js.top
	same := n
	if wev >= 0 {
		same = min(same, w.ev)
	}
	// The kept trails as they are now: recording appends to them
	// (keepTrail), which leaves what is there as it is.
	trails, ends := m.sm.trails, m.sm.ends[s.r0:r1]
	for j, end := range ends {
		if wev >= 0 {
			src, ev := &trails[start+wev], &m.tbuf[w.ev]
			ev.a, ev.b = src.a, src.b
		}
		seg := trails[start+base : end]
		start = end
		m.pushKept(seg)
		// Work about as the search that found it counted (a step for
		// every two of its events): the limit stops a match after about
		// as many parses with the memo as without, and its parses are
		// what costs the time (code-editor, 80 repeats of five keywords:
		// the limit is hit after 1.2-1.5 s with the memo, 1.8-2.0 s
		// without).
		m.work += 1 + len(seg)/2
		m.sm.replayed++
		m.record()
		if j == 0 && len(ends) > 1 {
			tf.resume, tf.resumeBound = m.resumePoint(m.tbuf[:m.tn], same)
			if tf.resume > 0 {
				m.sm.resumed += len(ends) - 1
			}
		}
		m.tn = n
		if m.work > m.limit && m.stopWork() {
			tf.resume = 0
			return
		}
	}
	tf.resume = 0
}

// find returns the index of state k's slot (hash h), or -1.
func (sm *succMemo) find(k stateKey, h uint) int {
	tab := sm.tab
	if len(tab) == 0 {
		return -1
	}
	mask := uint(len(tab) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &tab[i]
		if s.epoch != sm.epoch {
			return -1
		}
		if s.key == k {
			return int(i)
		}
	}
}

// add adds state k (hash h, not in the table), growing the table to
// keep it at most half full.
func (sm *succMemo) add(k stateKey, h uint, base, r0, r1, wev int) {
	if (sm.n+1)*2 > len(sm.tab) {
		old := sm.tab
		sm.tab = make([]succSlot, max(64, 2*len(old)))
		sm.n = 0
		for j := range old {
			if s := &old[j]; s.epoch == sm.epoch {
				sm.put(*s, s.key.hash())
			}
		}
	}
	sm.put(succSlot{key: k, epoch: sm.epoch, base: int32(base), r0: int32(r0), r1: int32(r1), wev: int32(wev)}, h)
}

// put stores slot s (hash h) in a free slot of the table.
func (sm *succMemo) put(s succSlot, h uint) {
	mask := uint(len(sm.tab) - 1)
	i := h & mask
	for sm.tab[i].epoch == sm.epoch {
		i = (i + 1) & mask
	}
	sm.tab[i] = s
	sm.n++
}
