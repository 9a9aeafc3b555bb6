package grammarbridge

// This file builds values from the trail of a successful parse, ranks the
// results, and records what was expected where matching failed.

import (
	"cmp"
	"slices"
	"unicode/utf8"
)

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

// record builds the value of the parse on the trail and adds it to the
// results.
func (m *matcher) record() {
	m.succ++
	m.work += m.tn / 8 // building a value is work too
	out := m.build(m.tbuf[:m.tn])
	v, st := out.v, out.st
	if v == Undefined {
		v = nil
	}
	r := result{value: v, st: st, order: m.work, next: -1, hash: out.h}
	if v == nil {
		r.hash = hashValue(nil)
	}
	if len(m.results) < 8 {
		// Few results: compare with each; no map.
		for i := range m.results {
			if m.results[i].hash == r.hash && equalValue(m.results[i].value, v) {
				if better(st, m.results[i].st) {
					m.results[i].st = st
					m.results[i].order = m.work
				}
				return
			}
		}
		m.results = append(m.results, r)
		return
	}
	if m.index == nil {
		m.index = map[uint64]int{}
	}
	if len(m.index) == 0 {
		for i := range m.results {
			if j, ok := m.index[m.results[i].hash]; ok {
				m.results[i].next = j
			}
			m.index[m.results[i].hash] = i
		}
	}
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
		// order is unique, so an unstable sort gives the stable order.
		slices.SortFunc(rs, func(a, b result) int {
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
			f := frame{alt: alt, parentSlot: ev.slot, last: undefinedSlot}
			if n := alt.nslots; n > 0 {
				if len(slots)+n > cap(slots) {
					slots = make([]slotVal, 0, 2*cap(slots)+n) // frames below keep the old array
				}
				f.slots = slots[len(slots) : len(slots)+n]
				slots = slots[:len(slots)+n]
				for j := range f.slots {
					f.slots[j] = undefinedSlot
				}
			}
			stack = append(stack, f)
		case evWild:
			s := m.in[ev.a:ev.b]
			stack[len(stack)-1].slots[ev.slot] = slotVal{v: s, st: stats{1, utf16Len(s)}, h: hashString(s)}
		case evNum:
			stack[len(stack)-1].slots[ev.slot] = slotVal{v: ev.num, st: stats{1, 0}, h: hashValue(ev.num)}
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
		v, h := e.evalHashed(a.value)
		return slotVal{v: v, st: e.st, h: h}
	case implicitSlot:
		return f.slots[0]
	case implicitText:
		// TypeAgent records a rule's default text as a matched value.
		return slotVal{v: a.text, st: stats{1, 0}, h: a.textHash}
	case implicitChild:
		return f.last
	}
	return undefinedSlot
}

// undefinedSlot is the value of a variable that was not bound.
var undefinedSlot = slotVal{v: Undefined, h: hashValue(Undefined)}
