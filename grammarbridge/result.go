package grammarbridge

// This file builds values from the trail of a successful parse, ranks the
// results, and records what was expected where matching failed.

import (
	"cmp"
	"fmt"
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

// expectAlt records what alternative a (of rule in) expects first at pos:
// its parts up to the first that must match something, as the first-byte
// sets are computed. What follows an optional part, a rule that can match
// nothing or a phrase set that matches nothing (TypeAgent-compatible
// mode) may come first too. Looking at the first part alone,
// `(<Polite>)? order ...` on "please order tea" expected nothing at all,
// and the NoMatchError had no place (offset -1).
func (m *matcher) expectAlt(pos int, a *calt, in *crule) {
	seen := map[*crule]bool{in: true} // rules that begin with each other (left recursion) end
	m.expectParts(pos, a, seen)
}

// expectRule records what the alternatives of r expect first at pos.
func (m *matcher) expectRule(pos int, r *crule) {
	seen := map[*crule]bool{r: true}
	for _, a := range r.alts {
		m.expectParts(pos, a, seen)
	}
}

// expectParts is expectAlt, looking into no rule of seen again.
func (m *matcher) expectParts(pos int, a *calt, seen map[*crule]bool) {
	for i := range a.parts {
		p := &a.parts[i]
		null := p.optional
		switch p.kind {
		case partString:
			m.expect(pos, p.toks[0].src)
		case partNumber:
			m.expect(pos, "$("+p.name+":number)")
		case partWildcard:
			m.expect(pos, "$("+p.name+")")
		case partRules:
			if !seen[p.rule] {
				seen[p.rule] = true
				for _, b := range p.rule.alts {
					m.expectParts(pos, b, seen)
				}
			}
			null = null || p.rule.nullable
		case partPhrase:
			null = true
		}
		if !null {
			return
		}
	}
}

// result is one distinct value and its best rank.
type result struct {
	chunk, off, n uint32 // its JSON: n bytes from off in chunk m.js.outs[chunk] (resultValue)
	st            stats
	order         int
	hash          uint64  // of the value
	key           rankKey // its place in the ranking (resultKey)
}

// resultKey returns the ranking key (rankKey) of result i, of stats st,
// as it is found: its short rank above i, or slowRank when its counts are
// too large for that. Written as results are found, the keys need no
// pass over the results of their own when ranking.
func resultKey(st stats, i int) rankKey {
	if st&bigCounts != 0 {
		return slowRank
	}
	return st.shortKeyHigh() | rankKey(uint32(i))
}

// slowRank, as a result's key, sends the ranking to rankKeysSlow: its
// counts are large, or it was found again with a better rank (its order
// is then later than the results' after it). No result's key is
// slowRank otherwise (that would take 2^32 results).
const slowRank = ^rankKey(0)

// record builds the value of the parse on the trail and adds it to the
// results. The value is written as JSON at once (jsonvalue.go), straight
// from the trail's events when its top-level frame's value is object and
// array literals (topValue), in the scratch buffer, and a new value is
// copied to the results' chunk; an object literal, the most common value,
// is written in that chunk at once, past its end (fragOut), and kept there
// when it is new.
func (m *matcher) record() {
	m.keepTrail() // for the success memo (succ.go)
	m.succ++
	m.work += int(uint(m.tn) / 8) // building a value is work too (a shift: tn is not negative)
	if m.g.recordHook != nil {
		m.g.recordHook(m)
	}
	if len(m.js.texts) >= maxJSONBuf/2 {
		// Not reached by any input the work limit lets through; a
		// frag's offset has 30 bits.
		m.err = fmt.Errorf("grammar match: values of more than %d bytes: %w", maxJSONBuf/2, ErrWorkLimit)
		return
	}
	mark := len(m.nodes)
	kmark, vmark := len(m.kids), len(m.vals)
	trail := m.tbuf[:m.tn]
	m.js.scratch = m.js.scratch[:0]
	var f frag
	var h uint64
	var st stats
	var top *altVal
	if len(trail) > 0 && trail[0].kind == evBegin {
		top = &m.g.vt.alts[trail[0].alt()]
	}
	if top != nil && top.top {
		// The common case: one top-level frame, whose value is object
		// and array literals.
		var end int
		if f, h, st, end = m.topValue(trail, top); end+1 < len(trail) {
			m.js.scratch = m.js.scratch[:0]
			f, h, st = m.recordSlow(trail[end+1:])
		}
	} else {
		f, h, st = m.recordSlow(trail)
	}
	if m.bestOnly {
		if m.keepBest(f, h, st) {
			return
		}
	} else if i := m.insertResult(f, h, st); i < 0 {
		return
	} else {
		m.foundAgain(i, st)
	}
	// A duplicate, or (Best) a value that does not rank better than the
	// one kept: the arena's nodes of this parse are no longer needed.
	// Those of a result kept are: its wildcard texts' nodes are cached.
	m.dropNodes(mark)
	m.kids = m.kids[:kmark]
	clear(m.vals[vmark:])
	m.vals = m.vals[:vmark]
}

// keepBest keeps value f (hash h, stats st) as the only result when it
// ranks strictly better than the one kept, or none is, and reports
// whether it did. This gives Best what Match's first result is: Match
// ranks a value by the best stats any of its parses had, then by when
// the first parse with those stats was found, so its first result is
// the value of the first parse whose stats rank best. The values of the
// others are not kept, compared or ranked.
func (m *matcher) keepBest(f frag, h uint64, st stats) bool {
	if len(m.results) > 0 && !better(st, m.results[0].st) {
		return false
	}
	if len(m.results) > 0 {
		// The value kept before is not returned: its room is taken
		// again when it is the chunk's last.
		if r := &m.results[0]; int(r.chunk) == len(m.js.outs)-1 && int(r.off+r.n) == len(m.js.out) {
			m.js.out = m.js.out[:r.off]
		}
	}
	c, o := m.keep(f)
	m.results = append(m.results[:0], result{chunk: c, off: o, n: f.n, st: st, order: m.work, hash: h})
	return true
}

// foundAgain records that result i was found again, with stats st: it
// takes the better rank, and then the order of now.
func (m *matcher) foundAgain(i int, st stats) {
	if r := &m.results[i]; better(st, r.st) {
		r.st = st
		r.order = m.work
		r.key = slowRank
	}
}

// recordSlow writes the value of the parse on trail (record) through
// the arena, for the top-level frames topValue does not take (more
// variables than its slots, values the evaluator computes): the value of
// its last top-level frame, built in the arena, then written (undefined
// is written as null).
func (m *matcher) recordSlow(trail []event) (frag, uint64, stats) {
	out := m.build(trail)
	if out.n == undefNode {
		return m.g.vt.litFrag[0], hashNil, out.st
	}
	return m.nodeFrag(out.n), out.h, out.st
}

// insertResult adds value v (hash h, stats st) as a new result, found
// now, or returns the index of the result equal to it. The search and
// the insertion are one call, and the index's entry found empty is where
// the new result goes: nearly every parse is a new result (code-editor:
// 58.6 results of 58.6 parses an input). This is the common case, with
// room for the result, no hash alike and no index to build: it makes no
// call, and keeps its state in registers. The rest is insertSlow's.
func (m *matcher) insertResult(f frag, h uint64, st stats) int {
	rs := m.results
	k := len(rs)
	if k >= cap(rs) {
		return m.insertSlow(f, h, st)
	}
	if k < linearResults-1 {
		for i := range rs {
			if rs[i].hash == h {
				return m.insertSlow(f, h, st)
			}
		}
	} else {
		// The last result compared one by one, then the index built.
		t := m.keys
		if k < linearResults || indexSpread*(k+1) > len(t) {
			return m.insertSlow(f, h, st)
		}
		mask := uint64(len(t) - 1)
		tag := h >> 32 << 32
		j := h & mask
		for ; t[j] != 0; j = (j + 1) & mask {
			if uint64(t[j])&^(1<<32-1) == tag {
				return m.insertSlow(f, h, st)
			}
		}
		t[j] = rankKey(tag | uint64(k+1))
	}
	r := &rs[:k+1][k]
	var ok bool
	if r.chunk, r.off, ok = m.js.keepInPlace(f); !ok {
		r.chunk, r.off = m.keep(f)
	}
	r.n = f.n
	r.st, r.order, r.hash, r.key = st, m.work, h, resultKey(st, k)
	m.results = m.results[:k+1]
	return -1
}

// insertSlow is insertResult for the first results (compared one by
// one), a hash like another's, the results' slice full or the index as
// full as indexSpread allows.
func (m *matcher) insertSlow(f frag, h uint64, st stats) int {
	rs := m.results
	k := len(rs)
	var t []rankKey
	var j uint64
	tag := h >> 32 << 32
	if k < linearResults {
		for i := range rs {
			if rs[i].hash == h && m.sameValue(f, &rs[i]) {
				return i
			}
		}
	} else {
		t = m.keys
		mask := uint64(len(t) - 1)
		for j = h & mask; t[j] != 0; j = (j + 1) & mask {
			if e := uint64(t[j]); e&^(1<<32-1) == tag {
				if i := int(uint32(e)) - 1; rs[i].hash == h && m.sameValue(f, &rs[i]) {
					return i
				}
			}
		}
	}
	c, o := m.keep(f)
	m.results = append(rs, result{chunk: c, off: o, n: f.n, st: st, order: m.work, hash: h, key: resultKey(st, k)})
	if k+1 >= linearResults {
		if indexSpread*(k+1) > len(t) {
			m.indexResults()
		} else {
			t[j] = rankKey(tag | uint64(k+1))
		}
	}
	return -1
}

// The result index. Up to linearResults results are compared one by one;
// from then on an open-addressed table finds them by hash. It lives in
// m.keys, which ranked uses only once matching is over, and is rebuilt
// by every input that reaches linearResults results: no per-input reset.
// An entry is the high half of a result's hash, then its index plus one
// (0: empty); the low bits of the hash choose where probing starts.

// linearResults is the number of results below which insertResult scans
// them: comparing up to that many hashes costs less than indexing them.
const linearResults = 8

// indexSpread is how many entries of the result index there are, at
// least, for each result in it: it is built again when fuller. Nearly
// every result is new, and in an index this sparse a new one's probe
// nearly always ends at the first entry it tries: at up to half full,
// code-editor's probes mispredicted 26 times an input, and it took 1.6 %
// more time (alternated in one process).
const indexSpread = 8

// indexResults builds the result index for the results so far, at most
// half as full as indexSpread allows. The first (at linearResults
// results) has 128 entries: clearing them costs less than indexing the
// results again and probing a fuller index (email: -40, code-editor:
// -280 instructions an input against 32 entries).
func (m *matcher) indexResults() {
	size := 16 * linearResults
	for size < 2*indexSpread*len(m.results) {
		size *= 2
	}
	if cap(m.keys) < size {
		m.keys = make([]rankKey, size)
	} else {
		m.keys = m.keys[:size]
		clear(m.keys)
	}
	for i := range m.results {
		m.indexResult(i, m.results[i].hash)
	}
}

// indexResult adds result i, whose hash is h, to the index.
func (m *matcher) indexResult(i int, h uint64) {
	t := m.keys
	mask := uint64(len(t) - 1)
	j := h & mask
	for t[j] != 0 {
		j = (j + 1) & mask
	}
	t[j] = rankKey(h>>32<<32 | uint64(i+1))
}

// better reports whether a ranks strictly before b.
func better(a, b stats) bool {
	if (a.wildChars() == 0) != (b.wildChars() == 0) {
		return a.wildChars() == 0
	}
	if a.values() != b.values() {
		return a.values() > b.values()
	}
	return a.wildChars() < b.wildChars()
}

func (m *matcher) ranked() []Match {
	rs := m.results
	if len(rs) <= 1 {
		if len(rs) == 0 {
			return []Match{}
		}
		// One result (the common case): nothing to rank.
		out := m.js.takeMatches(1)
		m.setMatch(&out[0], &rs[0])
		return out
	}
	keys := m.rankKeys()
	out := m.js.takeMatches(len(rs))
	for i, k := range keys {
		m.setMatch(&out[i], &rs[uint32(k)])
	}
	if cap(m.keys) > maxKeysKept {
		m.keys = nil // an input's many results are no reason to keep them
	}
	return out
}

// setMatch sets o to result r (for Match, in a chunk takeMatches gave),
// field by field: a Match assigned whole is copied through the
// collector's bulk barrier, while it marks, for its one pointer.
func (m *matcher) setMatch(o *Match, r *result) {
	o.Value = m.resultValue(r)
	o.MatchedValues = int(r.st.values())
	o.WildcardChars = int(r.st.wildChars())
}

// maxKeysKept is the most entries of matcher.keys kept for the next
// input (an index of up to 4k results, indexSpread).
const maxKeysKept = 1 << 15

// rankKey is an entry of matcher.keys: while matching, of the result
// index; when ranking, a result's place: its rank above, its index in
// matcher.results in the low 32 bits.
type rankKey uint64

// rankKeys returns the results' indexes (the low 32 bits of each key) in
// the order of the ranking: by rank (stats.key), then by the order in
// which they were found.
func (m *matcher) rankKeys() []rankKey {
	rs := m.results
	if cap(m.keys) < len(rs) {
		m.keys = make([]rankKey, len(rs))
	}
	keys := m.keys[:len(rs)]
	m.keys = keys
	if len(rs) <= 1 {
		if len(rs) == 1 {
			keys[0] = 0
		}
		return keys
	}
	// Results are found in order unless a duplicate ranked better later
	// (and took a later order), and their counts are small: then a key
	// is a short rank above the index, written as the result was found
	// (resultKey), and one integer sort sorts them. The bits the keys do
	// not all share are gathered on the way, for the radix sort.
	rs = rs[:len(keys)]
	and, or := ^rankKey(0), rankKey(0)
	for i := range keys {
		k := rs[i].key
		if k == slowRank {
			return m.rankKeysSlow()
		}
		keys[i] = k
		and &= k
		or |= k
	}
	if len(keys) >= radixKeys {
		radixSortBits(keys, keys[len(keys):cap(keys)], and, or)
	} else {
		sortKeys(keys)
	}
	return keys
}

// bigCounts are the bits of stats that shortKey has no room for: values
// from 2^15, wildcard characters from 2^16.
const bigCounts = stats(1<<32-1<<15) | stats(1<<32-1<<16)<<32

// rankKeysSlow is rankKeys for results out of order or with large counts.
func (m *matcher) rankKeysSlow() []rankKey {
	rs := m.results
	keys := m.keys[:0]
	for i := range rs {
		keys = append(keys, rankKey(i))
	}
	slices.SortFunc(keys, func(a, b rankKey) int {
		ra, rb := &rs[a], &rs[b]
		if c := cmp.Compare(ra.st.key(), rb.st.key()); c != 0 {
			return c
		}
		return cmp.Compare(ra.order, rb.order)
	})
	m.keys = keys
	return keys
}

// sortKeys sorts keys, whose low 32 bits (their index) are in order.
func sortKeys(keys []rankKey) {
	if len(keys) >= radixKeys {
		radixSort(keys)
		return
	}
	// A few dozen results (the common case): an insertion sort, cheaper
	// than slices.Sort's set-up and calls up to about 48 keys (email:
	// 155 -> 95 instructions an input), and than the radix sort's two
	// walks of 256 counts (email: +36 and +76 instructions an input from
	// 33 and 17 keys).
	for i := 1; i < len(keys); i++ {
		k := keys[i]
		j := i
		for ; j > 0 && keys[j-1] > k; j-- {
			keys[j] = keys[j-1]
		}
		keys[j] = k
	}
}

// radixKeys is the number of keys from which sortKeys sorts by radix:
// from 49 keys up it costs less than slices.Sort, which sorted 49 to 127
// keys before (code-editor: -256 instructions an input).
const radixKeys = 49

// radixSort sorts keys, whose low 32 bits are in order, by their high 32
// bits: a stable counting sort by each byte of those that is not the
// same in every key (most often one or two: few counts of values, short
// wildcard texts).
func radixSort(keys []rankKey) {
	and, or := ^rankKey(0), rankKey(0)
	for _, k := range keys {
		and &= k
		or |= k
	}
	// The index's entries after the keys (at least as many) are free.
	radixSortBits(keys, keys[len(keys):cap(keys)], and, or)
}

// radixSortBits is radixSort for keys whose bits and all share and or
// has any of, with scratch as room it may use (it makes its own when that
// is too little).
func radixSortBits(keys, scratch []rankKey, and, or rankKey) {
	src, dst := keys, scratch
	if len(dst) < len(keys) {
		dst = make([]rankKey, len(keys))
	}
	dst = dst[:len(keys)]
	diff := and ^ or
	for shift := 32; shift < 64; shift += 8 {
		if diff>>shift&0xff == 0 {
			continue
		}
		var count [256]int32
		for _, k := range src {
			count[k>>shift&0xff]++
		}
		// A byte of the keys lies between those of and and or: the
		// counts outside are 0 (most often a few of them are not: few
		// counts of values, short wildcard texts).
		lo, hi := int(and>>shift&0xff), int(or>>shift&0xff)
		var sum int32
		for i := lo; i <= hi; i++ {
			c := count[i]
			count[i] = sum
			sum += c
		}
		for _, k := range src {
			b := k >> shift & 0xff
			dst[count[b]] = k
			count[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

// key returns an integer that orders stats as better does: values
// without wildcard text first, then more matched values, then fewer
// wildcard characters (counts beyond 2^31-1 tie).
func (s stats) key() uint64 {
	const most = 1<<31 - 1
	var k uint64
	if s.wildChars() != 0 {
		k = 1 << 62
	}
	return k | uint64(most-min(max(s.values(), 0), most))<<31 | uint64(min(max(s.wildChars(), 0), most))
}

// shortKey is key in 32 bits, for values below 2^15 and wildcard
// characters below 2^16: 1 when there are wildcard characters, then
// 2^15-1 less the values, then the wildcard characters.
func (s stats) shortKey() uint64 {
	return uint64(s.shortKeyHigh()) >> 32
}

// shortKeyHigh is shortKey in the high half of a rankKey, made from the
// bits of s without a test: the wildcard characters are s's high half
// already; the values, in its low bits, are reversed by a xor (below
// 2^15); adding 2^31-1 to the wildcard characters (below 2^16) carries
// into bit 31 of the high half when they are not 0.
func (s stats) shortKeyHigh() rankKey {
	u := uint64(s)
	return rankKey((u+(1<<31-1)<<32)&(1<<63) | (u<<48 ^ (1<<15-1)<<48) | u&((1<<16-1)<<32))
}

// build replays a trail (of a whole parse, or of one rule) and returns
// its value, in the arena: the value of its last frame at the top.
func (m *matcher) build(trail []event) nval {
	out := undefNval
	for i := 0; i < len(trail); i++ {
		if trail[i].kind == evBegin {
			out, i = m.buildFrame(trail, i, 0)
		}
	}
	return out
}

// buildFrame rebuilds the alternative that begins at trail[i], with its
// variables, then its last value (the value of the last rule or group
// matched in it), in m.slotBuf from base on. It returns its value and
// the index of its end. One call per frame, rather than one loop with a
// stack of frames, keeps the state of each in registers: most trails are
// an alternative with a few wildcards, or with a rule or two inside.
func (m *matcher) buildFrame(trail []event, i, base int) (nval, int) {
	a := &m.g.vt.alts[trail[i].alt()]
	n := int(a.nslots)
	i++
	if n == 0 && i < len(trail) && trail[i].kind == evEnd {
		// An alternative with nothing inside (a keyword, most often).
		if a.how == avConst {
			return a.v, i
		}
		return m.altValue(a, nil, undefNval), i
	}
	// Room for its variables, its last value (undefined) and the
	// temporary slots of its value. Its variables are not cleared (most
	// of an object's properties are most often unbound): bound has the
	// bit (slotBit) of each one written, and a variable not in it is
	// undefined. One with more variables, or whose value the evaluator
	// computes, is cleared instead, with every bit set.
	if k := base + n + 1 + int(a.ntemp); k > len(m.slotBuf) {
		m.slotBuf = append(m.slotBuf[:cap(m.slotBuf)], make([]nval, k+16)...)
	}
	m.slotBuf[base+n] = nval{}
	var bound uint64
	if a.clear {
		clear(m.slotBuf[base : base+n])
		bound = ^uint64(0)
	}
	for ; i < len(trail); i++ {
		ev := &trail[i]
		switch ev.kind {
		case evWild:
			// strVal, its cache hit in place.
			var v nval
			if ts := strSlot(ev.a, ev.b); m.strCache[ts].key == uint64(ev.a)<<32|uint64(ev.b)+1 && m.strCache[ts].node != 0 {
				e := &m.strCache[ts]
				v = nval{n: e.node, ts: ts + 1, st: mkStats(1, e.u16), h: e.h}
			} else {
				v = m.strVal(ev.a, ev.b)
			}
			m.slotBuf[base+int(ev.slot)] = v
			bound |= slotBit(ev.slot)
		case evNum:
			m.slotBuf[base+int(ev.slot)] = nval{n: m.newNode(node{kind: nNum, num: ev.num()}), st: mkStats(1, 0), h: hashValue(ev.num())}
			bound |= slotBit(ev.slot)
		case evBegin:
			var v nval
			if c := &m.g.vt.alts[ev.alt()]; c.how == avVar && c.nslots == 1 && i+2 < len(trail) &&
				trail[i+1].kind == evWild && trail[i+2].kind == evEnd {
				// A rule that is one wildcard ("-> x"): no frame; strVal,
				// its cache hit in place.
				w := &trail[i+1]
				if ts := strSlot(w.a, w.b); m.strCache[ts].key == uint64(w.a)<<32|uint64(w.b)+1 && m.strCache[ts].node != 0 {
					e := &m.strCache[ts]
					v = nval{n: e.node, ts: ts + 1, st: mkStats(1, e.u16), h: e.h}
				} else {
					v = m.strVal(w.a, w.b)
				}
				i += 2
			} else {
				v, i = m.buildFrame(trail, i, base+n+1)
			}
			fs := m.slotBuf[base : base+n+1]
			fs[n] = v
			if ev.slot >= 0 {
				fs[ev.slot] = v
				bound |= slotBit(ev.slot)
			}
		case evEnd:
			return m.endFrame(a, base, n, bound), i
		}
	}
	return undefNval, i // never: a trail's frames all end
}

// endFrame computes the value of alternative a, whose n variables (those
// in bound) and last value are in m.slotBuf from base on.
func (m *matcher) endFrame(a *altVal, base, n int, bound uint64) nval {
	switch a.how {
	case avVar:
		if bound&slotBit(a.slot) == 0 {
			return undefNval
		}
		return m.slotBuf[base+int(a.slot)] // "-> x": no call
	case avChild:
		return m.slotBuf[base+n]
	case avConst:
		return a.v
	case avExpr:
		// Its ops use temporary slots after its last value.
		return m.evalOps(a.ops, m.slotBuf[base:base+n+1+int(a.ntemp)], bound)
	}
	return m.altValue(a, m.slotBuf[base:base+n], m.slotBuf[base+n])
}

// altValue computes the value of alternative a, completed with
// variables fs; last is the value of the last rule or group matched in it.
func (m *matcher) altValue(a *altVal, fs []nval, last nval) nval {
	switch a.how {
	case avConst:
		return a.v
	case avVar:
		return fs[a.slot]
	case avChild:
		return last
	case avExpr:
		fs = append(fs[:len(fs):len(fs)], last)
		fs = append(fs, make([]nval, a.ntemp)...)
		return m.evalOps(a.ops, fs, ^uint64(0))
	}
	// A value the arena does not support: evaluate it on plain values.
	pv := make([]slotVal, len(fs))
	for i, s := range fs {
		pv[i] = slotVal{v: m.mat(s.n), st: s.st, h: s.h}
	}
	e := evaluator{slots: pv, vars: a.alt.vars}
	v, h := e.evalHashed(a.alt.value)
	return nval{n: m.valNode(v), st: e.st, h: h}
}
