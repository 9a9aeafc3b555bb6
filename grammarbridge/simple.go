package grammarbridge

import le "encoding/binary"

// This file holds simple rule parts: a silent rule part (see cpart) whose
// rule is made of literals and groups of keywords only (<SingleImagePhrase>
// = ('an' | 'a' | 'single') <ImageWord> ('of' | 'showing')?, or the group
// ('create' | 'generate' | 'make' ('me')?)) is matched without entering
// the rule: no continuation, memo slot, first-visit test, begin and end
// events or return through finishAlt and afterRule. The places where the
// rule can end are listed first, by a walk over its parts that needs no
// trail (a silent rule puts nothing on it) and no continuation (literals
// and keywords match in one way each), then the caller goes on from each.
//
// The plain search goes on from each way the rule matches, in search
// order; the walk lists the ends in that order, each end once. Two ways
// that end at the same place leave the caller in the same state (nothing
// on the trail, the same wildcard bounds), so the parses of the second
// are those of the first again: their values are duplicates, found later,
// which the results drop. So results, counts and their order are
// unchanged (TestEngineSimple, TestNaiveEquivalence).
//
// With a wildcard open, a rule whose alternatives all begin with a
// literal or a group of keywords is walked the same way from every place
// its first literals are found after the wildcard's start, except inside an
// earlier match of the same literal (skipInside; each place is a split of
// the wildcard): an end is then the place the wildcard ends and the place
// the rule does. Such a walk is often made again, at the same place or a
// later one, by other paths: the ends of a rule's first walk are kept for
// the input and read by the later ones (simpleKeep), unless it skipped a
// place.
//
// The shared parts of a prefix-tree node (share.go) that leave no trail
// (literals, keywords whose value is not used, simple parts), possibly
// followed by one wildcard, are walked the same way: each end is a way
// they matched, collected without stepping them (walkShared).
//
// Other rule parts entered with a wildcard open, whose alternatives all
// begin with a literal, a group of keywords or a number (<CCOptional> =
// ('cc' | 'copy') $(cc:string)), are entered only when one of those
// occurs after the wildcard's start (the rule entry costs more than the
// test, on a first visit; with more than maxLeads of them, one is
// usually found).

// maxSimpleDepth bounds how deep simple rules nest in one another (the
// walk's stack of enclosing alternatives, matcher.sStack).
const maxSimpleDepth = 8

// Values of cpart.simple.
const (
	simpleNo   uint8 = iota
	simpleShut       // simple when no wildcard is open
	simpleOpen       // also with a wildcard open
	// simpleLead: not simple, but every alternative of the rule begins
	// with a literal, a group of keywords or a number, none optional:
	// with a wildcard open, the rule is entered only if one of them
	// occurs after the wildcard's start (matcher.leadFound).
	simpleLead
)

// simpleFrame is an enclosing alternative of the walk and the part of it
// that entered the nested rule.
type simpleFrame struct {
	a *calt
	i int
}

// simpleEnd is one place a simple rule part ends: e, and, with a wildcard
// open, the place t where the wildcard ends and its trimmed bounds a:b
// (t < 0: none was open).
type simpleEnd struct {
	t, a, b, e int32
}

// markSimple sets cpart.simple on the parts of rules (the rules the
// start rule reaches, no longer changing).
func markSimple(rules []*crule) {
	depth := map[*crule]int{} // simple rules' nesting depth; -1 not simple, 0 being decided
	for _, r := range rules {
		for _, a := range r.alts {
			for i := range a.parts {
				p := &a.parts[i]
				if p.kind != partRules || p.repeat || p.keywords {
					continue
				}
				if !p.silent || simpleDepth(p.rule, depth) < 0 {
					if leadsFindable(p.rule) {
						p.simple = simpleLead
						setLeads(p.rule)
					}
					continue
				}
				p.simple = simpleShut
				if simpleOpens(p.rule) {
					p.simple = simpleOpen
					setLeads(p.rule)
				}
			}
		}
	}
}

// setLeads fills r.leads (its alternatives all begin with a literal, a
// group of keywords or a number).
func setLeads(r *crule) {
	if r.leads != nil {
		return
	}
	for _, a := range r.alts {
		p := &a.parts[0]
		if p.kind != partRules {
			r.leads = append(r.leads, ruleLead{a, p, a.spacing})
			continue
		}
		for _, kw := range p.rule.alts {
			r.leads = append(r.leads, ruleLead{a, &kw.parts[0], kw.spacing})
		}
	}
}

// simpleDepth returns how deep simple rules nest in r, counting r, or -1
// when r is not simple: every alternative is a sequence of literals,
// groups of keywords and simple rules, none repeated, nested at most
// maxSimpleDepth deep and never in themselves.
func simpleDepth(r *crule, depth map[*crule]int) int {
	if d, ok := depth[r]; ok {
		if d == 0 {
			return -1 // r reaches itself
		}
		return d
	}
	depth[r] = 0
	d := 1
	ok := len(r.alts) > 0
	for _, a := range r.alts {
		if len(a.parts) == 0 {
			ok = false
		}
		for i := range a.parts {
			p := &a.parts[i]
			switch {
			case p.kind == partString:
			case p.kind == partRules && !p.repeat && p.keywords:
			case p.kind == partRules && !p.repeat:
				if k := simpleDepth(p.rule, depth); k > 0 {
					d = max(d, k+1)
				} else {
					ok = false
				}
			default:
				ok = false
			}
		}
	}
	if !ok || d > maxSimpleDepth {
		d = -1
	}
	depth[r] = d
	return d
}

// simpleOpens reports whether every alternative of r begins with a
// literal or a group of keywords that is not optional: what a walk with a
// wildcard open searches for.
func simpleOpens(r *crule) bool {
	for _, a := range r.alts {
		p := &a.parts[0]
		if p.kind != partString && !(p.kind == partRules && p.keywords && !p.optional) {
			return false
		}
	}
	return true
}

// leadsFindable reports whether every alternative of r begins with a
// literal, a group of keywords or a number, none optional: what the
// search looks for first after an open wildcard.
func leadsFindable(r *crule) bool {
	for _, a := range r.alts {
		if len(a.parts) == 0 {
			return false
		}
		switch p := &a.parts[0]; {
		case p.optional:
			return false
		case p.kind == partString, p.kind == partNumber, p.kind == partRules && p.keywords:
		default:
			return false
		}
	}
	return len(r.alts) > 0 && leadCount(r) <= maxLeads
}

// maxLeads bounds the first parts leadFound looks for: the more there
// are, the likelier one is found, and the test is then work added.
const maxLeads = 4

// leadCount returns how many first parts leadFound looks for in r.
func leadCount(r *crule) int {
	n := 0
	for _, a := range r.alts {
		if p := &a.parts[0]; p.kind == partRules {
			n += len(p.rule.alts)
		} else {
			n++
		}
	}
	return n
}

// leadFound reports whether the first part of some alternative of r (a
// literal, a keyword, a number: leadsFindable) may begin at or after
// from. When none can, r cannot match with a wildcard open from there
// (the search would find none of them), and is not entered. The places
// found are listed for the search that follows (occur.go).
func (m *matcher) leadFound(r *crule, from int) bool {
	for i := range r.leads {
		if p := r.leads[i].p; p.kind == partNumber {
			if m.nextNumberStart(from) >= 0 {
				return true
			}
		} else if m.nextCandidate(p, from) >= 0 {
			return true
		}
	}
	return false
}

// noLead reports whether p's rule (simpleLead), entered at pos with a
// wildcard open from wstart, cannot match there: not one of its
// alternatives' first parts occurs after wstart, and the rule was not
// entered there before (its outcomes are then at hand, or will be
// memoized). Not for Explain and the plain search.
//
// The same test is often made again from the same wildcard start, by
// the other ways the parts before it matched (image: a third of the
// tests, email: half): a rule found not to begin is marked so for the
// input (matcher.sTab).
func (m *matcher) noLead(p *cpart, pos, wstart int) bool {
	if m.track || m.g.opts.naive {
		return false
	}
	if slot := m.memoSlot(p.rule, pos, true, m.memoUsed(p)); slot != nil && uint32(*slot>>32) == m.gen {
		return false
	}
	s := m.noLeadSlot(p.rule, wstart)
	if s != nil && *s == m.sGen {
		return true
	}
	if m.leadFound(p.rule, wstart) {
		return false
	}
	if s != nil {
		*s = m.sGen
	}
	return true
}

// noLeadSlot returns the slot of rule r at pos in matcher.sTab, or nil
// when the table would be too big.
func (m *matcher) noLeadSlot(r *crule, pos int) *uint32 {
	n := len(m.in) + 1
	i := int(r.id)*n + pos
	if i >= len(m.sTab) {
		// Slots of earlier inputs hold older generations, also those
		// beyond the length.
		size := m.g.nrules * n
		if size > maxMemoTab {
			return nil
		}
		if size > cap(m.sTab) {
			m.sTab = make([]uint32, size, size+size/2)
		}
		m.sTab = m.sTab[:size]
	}
	return &m.sTab[i]
}

// simple matches the simple rule part p (part i of a) at pos with w open,
// then goes on with part i+1 from each place it ends, in search order,
// and after the part when it is optional, as step would. It reports
// false, having done nothing, when step is to enter the rule: with a
// wildcard open and p not simpleOpen, or for Explain.
func (m *matcher) simple(c int32, a *calt, i int, p *cpart, pos int, w wild) bool {
	if w.start >= 0 && p.simple != simpleOpen || m.track {
		return false
	}
	base := len(m.sEnds)
	m.sBase, m.sT = base, -1
	kept := false
	if w.start >= 0 {
		// With a wildcard open, the same rule is often walked again, from
		// the same start by other paths (code-editor: 5 walks of 6) or
		// from a later one (image: the ways the parts before the
		// wildcard ended). The ends of a walk depend on the wildcard's
		// start only by the places its first literals are looked for
		// from and by whether the wildcard holds more than separators up
		// to them: the ends of the rule's first walk of the input, from
		// w0, are kept, and a walk from w0 or after takes those found at
		// or after its own start, whose wildcard then holds something
		// (a wildcard that holds only separators from w0 holds only
		// separators from a later start: none is missed).
		//
		// That holds while no first literal's search skips a place inside
		// a match of it (skipInside), which would depend on the start: a
		// walk that skips one is not kept, and a walk from an earlier
		// start that skips one may cover a kept end, so it is made again
		// in full.
		k := m.simpleKeep(p.rule)
		if k != nil && k.gen == m.sGen && int(k.w0) <= w.start {
			m.simpleReuse(c, a, i, k, w)
			if p.optional && m.err == nil {
				m.stepMemo(c, a, i+1, pos, w)
			}
			return true
		}
		m.skipped = false // a walk does not reach another simple (simpleParts steps nothing)
		if k != nil && k.gen == m.sGen && k.leads && m.asciiState == 1 {
			if m.simpleAfterKept(p.rule, w, k); m.skipped && m.err == nil {
				m.sRewalks++
				m.sEnds, m.skipped = m.sEnds[:base], false
				m.simpleAfter(p.rule, w)
			}
		} else {
			m.simpleAfter(p.rule, w)
		}
		if end := len(m.sEnds); k != nil && !m.skipped && end <= maxSimpleKept && m.err == nil {
			// Kept where they are: sEnds[base:end] is not given back.
			k.gen, k.w0, k.from, k.n = m.sGen, int32(w.start), int32(base), int32(end-base)
			if k.leads = len(p.rule.leads) <= maxKeptLeads; k.leads {
				k.at = m.sLeads
			}
			kept = true
		}
	} else {
		m.simpleRule(0, p.rule, pos, simpleFrame{})
	}
	end := len(m.sEnds)
	for j := base; j < end && m.err == nil; j++ {
		se := m.sEnds[j] // the list may grow below: copy
		if se.t >= 0 {
			ev := &m.tbuf[w.ev]
			ev.a, ev.b = se.a, se.b
		}
		if m.work < succMemoAfter && (se.t < 0 || !closeMemo(a, i)) { // stepMemo written out (it is not inlined)
			m.step(c, a, i+1, int(se.e), noWild)
		} else {
			m.stepSuccMemo(c, a, i+1, int(se.e), noWild)
		}
	}
	if !kept && len(m.sEnds) == end {
		// Given back, unless a walk below kept its ends after these
		// (then they stay until the next input: see maxSimpleKept).
		m.sEnds = m.sEnds[:base]
	}
	if p.optional && m.err == nil {
		m.stepMemo(c, a, i+1, pos, w)
	}
	return true
}

// simpleReuse goes on with part i+1 of a from the kept ends k of the
// simple rule part i, walked before from a start at or before w's, as
// simple would from those of a walk of its own: those found at or after
// w's start where the wildcard then holds something.
func (m *matcher) simpleReuse(c int32, a *calt, i int, k *simpleKeep, w wild) {
	// Reading the ends is work, as the walk was: the limit bounds how
	// often they are read.
	m.work += int(k.n)
	memo := closeMemo(a, i)
	for j := k.from; j < k.from+k.n && m.err == nil; j++ {
		t := int(m.sEnds[j].t) // the list may grow below: read it again
		if t < w.start || !m.setWild(w, t) {
			continue
		}
		if e := int(m.sEnds[j].e); m.work < succMemoAfter && !memo {
			m.step(c, a, i+1, e, noWild)
		} else {
			m.stepSuccMemo(c, a, i+1, e, noWild)
		}
	}
}

// simpleKeep is where the ends of a simple rule's first walk of the input
// with a wildcard open are kept: matcher.sEnds[from:from+n], which are not
// given back for the rest of the input, walked from w0 (valid when gen is
// matcher.sGen).
type simpleKeep struct {
	gen     uint32
	w0      int32
	from, n int32
	// leads: the ends that follow the rule's lead i are
	// sEnds[from+at[i]:from+at[i+1]] (when it has at most maxKeptLeads
	// leads).
	leads bool
	at    [maxKeptLeads + 1]int32
}

// maxKeptLeads is the most leads of a rule whose kept ends are split by
// lead, for a later walk from an earlier start (simpleAfterKept).
const maxKeptLeads = 8

// maxSimpleKept bounds the ends kept for one input: no walk keeps its
// ends once matcher.sEnds is that long. (The ends of a walk that are not
// kept are given back unless a later walk kept its own above them: once
// for each rule and input at most, so what stays is bounded too.)
const maxSimpleKept = 1 << 16

// simpleKeep returns the keep of simple rule r for this input.
func (m *matcher) simpleKeep(r *crule) *simpleKeep {
	if int(r.id) >= len(m.sRules) {
		if m.g.nrules > maxMemoTab || int(r.id) >= m.g.nrules {
			return nil
		}
		m.sRules = make([]simpleKeep, m.g.nrules)
	}
	return &m.sRules[r.id]
}

// simpleAfter lists the ends of simple rule r with wildcard w open: from
// each place after the wildcard's start where an alternative's first
// literal (or keyword) is found, as tryAlts and keywordsAfter would try
// them, places inside its earlier match skipped (r.leads: one loop, no
// call for each).
func (m *matcher) simpleAfter(r *crule, w wild) {
	for i := range r.leads {
		if i < len(m.sLeads) {
			m.sLeads[i] = int32(len(m.sEnds) - m.sBase)
		}
		ld := &r.leads[i]
		p := ld.p
		for t := m.nextCandidate(p, w.start); t >= 0; {
			m.work++
			e, ok := m.tokensAtCandidate(p, ld.sp, t)
			if ok && m.setWild(w, t) {
				ev := &m.tbuf[w.ev]
				m.sT, m.sA, m.sB = int32(t), ev.a, ev.b
				m.simpleParts(0, ld.a, 1, e)
				if m.err != nil {
					return
				}
			}
			if t = m.nextCandidate(p, t+1); t >= 0 && t < e {
				t = m.skipInside(p, e)
			}
		}
	}
	if n := len(r.leads); n < len(m.sLeads) {
		m.sLeads[n] = int32(len(m.sEnds) - m.sBase)
	}
}

// simpleAfterKept is simpleAfter for a rule walked before in this input
// from a later start w0 (k, on ASCII input). Its places after s0, the
// first byte after w0 that is not a separator, are not searched again:
// from w0 the wildcard held s0 at each, as it does from an earlier start,
// so each lead's kept ends after s0 are this walk's, in the same order,
// with the wildcard's text taken again from w's start. Only the places up
// to s0 (where the wildcard from w0 held only separators) are searched.
// (Image: the ways a rule before the wildcard ends are found latest
// first, 'make' 'me' then 'make': one walk of <WithCaption> in five.)
func (m *matcher) simpleAfterKept(r *crule, w wild, k *simpleKeep) {
	m.sKeptWalks++
	low, s0 := m.lower, int(k.w0)
	for s0 < len(low) && asciiSep[low[s0]] {
		s0++
	}
	for i := range r.leads {
		m.sLeads[i] = int32(len(m.sEnds) - m.sBase) // len(r.leads) <= maxKeptLeads
		ld := &r.leads[i]
		p := ld.p
		// simpleAfter's search, bounded by s0: written out, as there,
		// so that neither walk makes a call for each lead.
		for t := m.nextCandidate(p, w.start); t >= 0 && t <= s0; {
			m.work++
			e, ok := m.tokensAtCandidate(p, ld.sp, t)
			if ok && m.setWild(w, t) {
				ev := &m.tbuf[w.ev]
				m.sT, m.sA, m.sB = int32(t), ev.a, ev.b
				m.simpleParts(0, ld.a, 1, e)
				if m.err != nil {
					return
				}
			}
			if t = m.nextCandidate(p, t+1); t >= 0 && t < e {
				t = m.skipInside(p, e)
			}
		}
		// Reading the ends is work, as the walk was (simpleReuse).
		lo, hi := int(k.from+k.at[i]), int(k.from+k.at[i+1])
		m.work += hi - lo
		for j := lo; j < hi; j++ {
			se := m.sEnds[j]        // the list grows below: copy
			m.setWild(w, int(se.t)) // the text holds s0: not empty
			ev := &m.tbuf[w.ev]
			m.sEnds = append(m.sEnds, simpleEnd{t: se.t, a: ev.a, b: ev.b, e: se.e})
		}
	}
	m.sLeads[len(r.leads)] = int32(len(m.sEnds) - m.sBase)
}

// simpleRule walks the alternatives of r that may start at pos (with
// the next byte, as tryAlts chooses them) at depth d: d > 0 inside the
// part f of an enclosing alternative, which the walk goes on with.
func (m *matcher) simpleRule(d int, r *crule, pos int, f simpleFrame) {
	q, ch, known := m.firstPlace(pos)
	if known && !r.firstAny && (ch < 0 || !r.first.has(byte(ch))) {
		return
	}
	ascii := m.asciiState == 1
	for _, sub := range r.altsFor(ch, known) {
		if known && !sub.firstAny && (ch < 0 || !sub.first.has(byte(ch))) {
			continue
		}
		if p := sub.lit0; p != nil && ascii && m.word8(q)&p.fmask != p.fword {
			// The first literal's first-word test (as tryAlts and
			// keywords make it) fails: no walk of the alternative.
			m.work++ // the walk's
			continue
		}
		if d > 0 {
			m.sStack[d-1] = f // deeper walks may have changed it
		}
		m.simpleParts(d, sub, 0, pos)
	}
}

// simpleParts walks parts [i:] of alternative a from pos, in search
// order; at a's end it goes on in the enclosing alternative
// (m.sStack[d-1]), or, at depth 0, lists the end.
func (m *matcher) simpleParts(d int, a *calt, i, pos int) {
	m.work++
	if m.work > m.limit && m.stopWork() {
		return
	}
	for ; i < len(a.parts); i++ {
		p := &a.parts[i]
		if p.kind == partString {
			e, ok := m.stringAt(p, a.spacing, pos)
			if !ok {
				return
			}
			pos = e
			continue
		}
		if p.keywords {
			m.simpleKeywords(d, a, i, p, pos)
		} else {
			m.simpleRule(d+1, p.rule, pos, simpleFrame{a, i})
		}
		if !p.optional || m.err != nil {
			return
		}
	}
	if d > 0 {
		f := m.sStack[d-1]
		m.simpleParts(d-1, f.a, f.i+1, pos)
		return
	}
	// Each end once: the ends listed so far for this rule part (the
	// walks listing them do not nest).
	for j := m.sBase; j < len(m.sEnds); j++ {
		if se := &m.sEnds[j]; se.e == int32(pos) && se.t == m.sT {
			return
		}
	}
	m.sEnds = append(m.sEnds, simpleEnd{t: m.sT, a: m.sA, b: m.sB, e: int32(pos)})
}

// simpleKeywords walks on from part i+1 of a after each keyword of the
// group p that matches at pos, as matcher.keywords tries them.
func (m *matcher) simpleKeywords(d int, a *calt, i int, p *cpart, pos int) {
	q, ch, known := m.firstPlace(pos)
	alts := p.rule.altsFor(ch, known)
	test := known && p.rule.firstIdx == nil
	var x uint64
	xok := false
	if len(alts) > 1 && m.asciiState == 1 {
		x, xok = le.LittleEndian.Uint64(m.lowerPad[q:]), true
	}
	for _, sub := range alts {
		sp := &sub.parts[0]
		if test && !sub.firstAny && (ch < 0 || !sub.first.has(byte(ch))) {
			continue
		}
		if xok && x&sp.fmask != sp.fword {
			continue
		}
		if e, ok := m.stringAt(sp, sub.spacing, pos); ok {
			m.simpleParts(d, a, i+1, e)
			if m.err != nil {
				return
			}
		}
	}
}

// trailFree reports whether parts, matched with no wildcard open, put
// nothing on the trail and match in ways the walk of simpleParts lists:
// literals, groups of keywords whose value is not used, simple rule
// parts.
func trailFree(parts []cpart) bool {
	for i := range parts {
		p := &parts[i]
		switch {
		case p.kind == partString:
		case p.kind == partRules && !p.repeat && (p.keywords && !p.valueUsed || p.simple == simpleShut || p.simple == simpleOpen):
		default:
			return false
		}
	}
	return true
}

// walkShared lists the ways the shared parts of the prefix-tree node nd
// (nd.walk) match from part i at pos with no wildcard open, as a
// collection of ways in matcher.shareOuts (see collectShare), each end
// once, in search order. It returns the first way, or -1. When the last
// shared part is a wildcard (nd.walkWild), the parts before it are
// walked and each way opens it where they end, as step would (when the
// rest of the input can hold it and what follows: calt.minFrom).
func (m *matcher) walkShared(nd *shareNode, i, pos int) int32 {
	synth, wp := nd.synth, nd.walkWild
	if wp != nil {
		synth = nd.walkAlt
	}
	base := len(m.sEnds)
	m.sBase, m.sT = base, -1
	m.simpleParts(0, synth, i, pos)
	head, prev := int32(-1), int32(-1)
	for _, se := range m.sEnds[base:] {
		o := shareOut{end: se.e, seg: int32(len(m.shareSegs)), wstart: -1, next: -1, ch: -2}
		if wp == nil {
			if ch, known := m.firstByte(int(se.e), noWild); known {
				o.ch = int16(ch)
			}
		} else {
			if int(se.e)+int(nd.synth.minFrom[len(synth.parts)]) > m.inEnd {
				continue
			}
			m.work++ // the step that opens it
			o.nseg, o.wstart = 1, se.e
			m.shareSegs = append(m.shareSegs, event{kind: evWild, slot: int32(wp.slot)})
		}
		m.succ++ // as collectShare counts them
		k := int32(len(m.shareOuts))
		m.shareOuts = append(m.shareOuts, o)
		if prev >= 0 {
			m.shareOuts[prev].next = k
		} else {
			head = k
		}
		prev = k
	}
	m.sEnds = m.sEnds[:base]
	return head
}
