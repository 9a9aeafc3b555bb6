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

// result is one distinct value and its best rank.
type result struct {
	n     int32  // the value in the arena
	c     counts // what it holds
	st    stats
	order int
	hash  uint64 // of the value
	next  int    // previous result with the same hash, or -1
}

// record builds the value of the parse on the trail and adds it to the
// results. The value is built in the arena: a value already found is
// dropped from it again, a new one stays there until ranked makes plain
// values of all of them.
func (m *matcher) record() {
	m.succ++
	m.work += m.tn / 8 // building a value is work too
	if m.g.recordHook != nil {
		m.g.recordHook(m)
	}
	mark := len(m.nodes)
	kmark, vmark := len(m.kids), len(m.vals)
	out := m.build(m.tbuf[:m.tn])
	n, c, st, h := out.n, out.c, out.st, out.h
	if n == undefNode {
		n, c, h = nilNode, 0, hashNil
	}
	if i := m.findResult(n, h); i >= 0 {
		if better(st, m.results[i].st) {
			m.results[i].st = st
			m.results[i].order = m.work
		}
		// The arena's nodes of this parse are no longer needed.
		m.nodes, m.kids = m.nodes[:mark], m.kids[:kmark]
		clear(m.vals[vmark:])
		m.vals = m.vals[:vmark]
		return
	}
	r := result{n: n, c: c, st: st, order: m.work, next: -1, hash: h}
	if m.index != nil {
		if i, ok := m.index[h]; ok {
			r.next = i // chain the collision
		}
		m.index[h] = len(m.results)
	}
	m.results = append(m.results, r)
}

// findResult returns the index of the result equal to arena value n
// (whose hash is h), or -1. Up to linearResults results are compared one
// by one; from then on an index by hash finds them.
func (m *matcher) findResult(n int32, h uint64) int {
	if len(m.results) < linearResults {
		for i := range m.results {
			if m.results[i].hash == h && m.eqNN(n, m.results[i].n) {
				return i
			}
		}
		return -1
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
	i, ok := m.index[h]
	for ok {
		if m.eqNN(n, m.results[i].n) {
			return i
		}
		i = m.results[i].next
		ok = i >= 0
	}
	return -1
}

// linearResults is the number of results below which findResult scans
// them: comparing 32 hashes costs less than a map's hashing, and the maps
// of the few inputs with more results than that cost their filling and
// clearing on every input.
const linearResults = 32

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
	// The ranking as two integers, sorted without moving the results;
	// order is unique, so an unstable sort gives the stable order.
	keys := m.keys[:0]
	for i := range rs {
		keys = append(keys, rankKey{rs[i].st.key(), uint64(rs[i].order), int32(i)})
	}
	sortKeys(keys)
	m.keys = keys
	// Every result's value becomes a plain value here, from one slice of
	// objects, one of properties and one of array elements.
	var mt materializer
	for i := range rs {
		mt.add(m, nval{n: rs[i].n, c: rs[i].c})
	}
	mt.alloc()
	out := make([]Match, len(rs))
	for i, k := range keys {
		r := &rs[k.i]
		out[i] = Match{Value: mt.value(m, r.n), MatchedValues: int(r.st.values), WildcardChars: int(r.st.wildChars)}
	}
	return out
}

// sortKeys sorts keys by rank, then order.
func sortKeys(keys []rankKey) {
	if len(keys) > 12 {
		slices.SortFunc(keys, func(a, b rankKey) int {
			if c := cmp.Compare(a.rank, b.rank); c != 0 {
				return c
			}
			return cmp.Compare(a.order, b.order)
		})
	} else {
		// A few results (the common case): an insertion sort, without a
		// call per comparison.
		for i := 1; i < len(keys); i++ {
			k := keys[i]
			j := i
			for ; j > 0 && (keys[j-1].rank > k.rank || keys[j-1].rank == k.rank && keys[j-1].order > k.order); j-- {
				keys[j] = keys[j-1]
			}
			keys[j] = k
		}
	}
}

// rankKey is a result's place in the ranking: rank (stats.key), then the
// order in which it was found, and its index in matcher.results.
type rankKey struct {
	rank, order uint64
	i           int32
}

// key returns an integer that orders stats as better does: values
// without wildcard text first, then more matched values, then fewer
// wildcard characters (counts beyond 2^31-1 tie).
func (s stats) key() uint64 {
	const most = 1<<31 - 1
	var k uint64
	if s.wildChars != 0 {
		k = 1 << 62
	}
	return k | uint64(most-min(max(s.values, 0), most))<<31 | uint64(min(max(s.wildChars, 0), most))
}

// frame is an alternative being rebuilt from the trail. It holds no
// pointers, so the build stack is cheap to write.
type frame struct {
	alt        int32 // the alternative's id
	parentSlot int32 // where the value goes in the parent frame (-1: nowhere)
	slots      int32 // its variables: m.slotBuf[slots:slots+nslots]
	nslots     int32 // then the value of the last rule or group matched in it
}

// build replays a trail (of a whole parse, or of one rule) and returns
// its value, in the arena.
func (m *matcher) build(trail []event) nval {
	// A root frame receives the value of the frames at the top: its last
	// value, slots[0], is the result (kept there, not in a variable, which
	// would hold five more registers through the loop).
	stack := append(m.frames[:0], frame{parentSlot: -1})
	slots := append(m.slotBuf[:0], undefNval)
	for i := 0; i < len(trail); i++ {
		ev := &trail[i]
		var v nval // the value of a frame that ends here
		parentSlot := ev.slot
		switch ev.kind {
		case evBegin:
			a := m.g.alts[ev.alt]
			n := a.nslots
			if n == 0 && i+1 < len(trail) && trail[i+1].kind == evEnd {
				// An alternative with nothing inside (a keyword, most
				// often): its value needs no frame.
				if x := a.vx; x != nil && x.kind == vkLit {
					v = nval{n: litNode(x.lit), h: m.g.vt.litHash[x.lit]} // "-> 'text'": no call
				} else {
					v = m.frameValue(a, nil, undefNval)
				}
				i++
				break
			}
			base := len(slots)
			stack = append(stack, frame{alt: ev.alt, parentSlot: ev.slot, slots: int32(base), nslots: int32(n)})
			// Its variables and its last value, all undefined.
			if base+n+1 > cap(slots) {
				slots = append(slots[:cap(slots)], make([]nval, base+n+1-cap(slots))...)
			}
			slots = slots[:base+n+1]
			for j := base; j < len(slots); j++ {
				slots[j] = undefNval
			}
			continue
		case evWild:
			slots[stack[len(stack)-1].slots+ev.slot] = m.strVal(ev.a, ev.b)
			continue
		case evNum:
			slots[stack[len(stack)-1].slots+ev.slot] = nval{n: m.newNode(node{kind: nNum, num: ev.num}), st: stats{1, 0}, h: hashValue(ev.num)}
			continue
		case evEnd:
			f := &stack[len(stack)-1]
			end := f.slots + f.nslots
			if x := m.g.alts[f.alt].vx; x != nil && x.kind == vkVar {
				v = slots[f.slots+x.slot] // "-> x": no call
			} else if x != nil && x.kind == vkLit {
				v = nval{n: litNode(x.lit), h: m.g.vt.litHash[x.lit]}
			} else {
				v = m.frameValue(m.g.alts[f.alt], slots[f.slots:end], slots[end])
			}
			slots = slots[:f.slots]
			parentSlot = f.parentSlot
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 1 {
			slots[0] = v
			continue
		}
		parent := &stack[len(stack)-1]
		slots[parent.slots+parent.nslots] = v // its last value
		if parentSlot >= 0 {
			slots[parent.slots+parentSlot] = v
		}
	}
	out := slots[0]
	m.frames, m.slotBuf = stack[:0], slots[:0]
	return out
}

// frameValue computes the value of alternative a, completed with
// variables fs; last is the value of the last rule or group matched in it.
func (m *matcher) frameValue(a *calt, fs []nval, last nval) nval {
	switch a.implicit {
	case implicitExplicit:
		if a.vx != nil {
			var st stats
			v := m.evalNode(a.vx, fs, &st)
			v.st = st
			return v
		}
		// A value the arena does not support: evaluate it on plain values.
		pv := make([]slotVal, len(fs))
		for i, s := range fs {
			pv[i] = slotVal{v: m.mat(s.n), st: s.st, h: s.h}
		}
		e := evaluator{slots: pv, vars: a.vars}
		v, h := e.evalHashed(a.value)
		return nval{n: m.valNode(v), st: e.st, h: h}
	case implicitSlot:
		return fs[0]
	case implicitText:
		// TypeAgent records a rule's default text as a matched value.
		return nval{n: litNode(a.textLit), st: stats{1, 0}, h: a.textHash}
	case implicitChild:
		return last
	}
	return undefNval
}
