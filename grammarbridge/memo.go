package grammarbridge

// This file holds the memoization of rule outcomes and of failed states.

// memoKey identifies a rule entered at an input position, with or
// without a wildcard open.
type memoKey struct {
	rule *crule
	pos  int
	open bool
	used bool // the caller uses the rule's value (see memoUsed)
}

// memoEntry holds the distinct outcomes of a rule at a position.
type memoEntry struct {
	busy bool // being computed (left recursion fails, as in packrat parsing)
	used bool // the callers use the rule's value
	outs []outcome
}

// memoVariants is the number of memo slots per rule and position: with
// or without an open wildcard, value used or not.
const memoVariants = 4

// memoUsed reports whether the outcomes of p's rule entered here are kept
// apart by value: the caller uses the value, and events are pushed (not
// silent). Silent outcomes have no events and are merged by where they
// end; a rule entered silently captures nothing at any depth, so every
// entry of it whose value is not used is silent too, and they can share
// the slot.
func (m *matcher) memoUsed(p *cpart) bool {
	return p.valueUsed && m.silent == 0
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
	val     nval // the value, once computed to compare two outcomes
	hasVal  bool
}

// stateKey is a matcher state: continuation, alternative, part, input
// position and the start of the open wildcard (-1: none), the success
// memo's key (succ.go).
type stateKey struct {
	serial, alt, part, pos, wstart int32
}

// stepMemo is step for states that many paths reach (after an optional
// part, after a rule): once the work passed succMemoAfter, a state
// already explored is not explored again (succ.go): what it found is
// recorded again. This is what keeps grammars with many optional parts
// and wildcards from taking exponential time. Most matches stay below
// succMemoAfter: their calls go straight to step.
func (m *matcher) stepMemo(c int32, a *calt, i int, pos int, w wild) {
	if m.work < succMemoAfter {
		m.step(c, a, i, pos, w)
		return
	}
	m.stepSuccMemo(c, a, i, pos, w)
}

// stateKeyOf returns the key of the state: part i of a at pos with w open,
// under continuation c.
func (m *matcher) stateKeyOf(c int32, a *calt, i int, pos int, w wild) stateKey {
	var serial int32
	if c != top {
		serial = m.conts[c].serial
	}
	return stateKey{serial, a.id, int32(i), int32(pos), int32(w.start)}
}

// hash mixes the fields of a state.
func (k stateKey) hash() uint {
	x := (uint64(uint32(k.serial)) | uint64(uint32(k.alt))<<32) * 0x9e3779b97f4a7c15
	x ^= uint64(uint32(k.part)) | uint64(uint32(k.pos))<<32
	x *= 0xc2b2ae3d27d4eb4f
	x ^= uint64(uint32(k.wstart))
	x ^= x >> 29
	x *= 0x94d049bb133111eb
	return uint(x ^ x>>32)
}

func (m *matcher) nextSerial() int32 {
	m.serial++
	return m.serial
}

// visitedOnce marks a memo slot whose rule was entered once, in place.
const visitedOnce = 0xFFFFFFFF

// firstVisit reports whether rule r is entered at pos (with or without an
// open wildcard) for the first time in this match, and marks it visited.
// It is false, and memoization takes over, when the dense table is not in
// use (very long inputs).
func (m *matcher) firstVisit(r *crule, pos int, open, used bool) bool {
	slot := m.memoSlot(r, pos, open, used)
	if slot == nil || uint32(*slot>>32) == m.gen {
		return false
	}
	*slot = uint64(m.gen)<<32 | visitedOnce
	return true
}

// memoSlot returns where the outcomes of rule r at pos (with or without an
// open wildcard) are recorded: a slot of the dense table, or nil when the
// table would be too big and the map is used.
func (m *matcher) memoSlot(r *crule, pos int, open, used bool) *uint64 {
	if m.memoTab == nil {
		return nil
	}
	i := (int(r.id)*(len(m.in)+1) + pos) * memoVariants
	if open {
		i++
	}
	if used {
		i += 2
	}
	return &m.memoTab[i]
}

// outcomes returns the index in m.entries of the distinct outcomes of p's
// rule at pos, computing them once per input. With a wildcard open, the
// outcomes also say where the rule closed it.
func (m *matcher) outcomes(k int32, p *cpart, pos int, w wild) int {
	open := w.start >= 0
	used := m.memoUsed(p)
	slot := m.memoSlot(p.rule, pos, open, used)
	key := memoKey{p.rule, pos, open, used}
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
	m.entries[idx].used = used
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
	m.tryAlts(p.rule, p.slot, col, pos, w2, ch, known, n)
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
	appendTo(&m.segs, seg)
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
		m.work += len(e.outs) // comparing is work too: bound it by the limit
		for i := range e.outs {
			p := &e.outs[i]
			if p.pending || p.passOuter || p.end != pos || p.closedOuter != o.closedOuter || p.oa != o.oa || p.ob != o.ob {
				continue
			}
			if !e.used {
				// The caller ignores the value: one way to end here is
				// as good as another.
				m.segs = m.segs[:off]
				return
			}
			// Two ways to end here: compare their values.
			if !p.hasVal {
				p.val, p.hasVal = m.build(m.segs[p.seg:p.seg+p.nseg]), true
			}
			if !o.hasVal {
				o.val, o.hasVal = m.build(seg), true
			}
			if p.val.st == o.val.st && p.val.h == o.val.h && m.eqNN(p.val.n, o.val.n) {
				m.segs = m.segs[:off]
				return
			}
		}
	}
	e.outs = append(e.outs, o)
}
