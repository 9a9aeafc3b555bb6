package grammarbridge

// This file writes a parse's value as the plain Go value a caller gets,
// once per parse, while its hash is computed. Nearly every parse is a new
// result (code-editor: 58.6 results of 58.6 parses per input), so the
// value is written before it is compared: a duplicate gives back what it
// took. The parse's top-level value, when it is object and array
// literals (nearly always), is written in one pass over the parse's
// events (topValue): each wildcard's text goes from the text cache
// straight to its slot, and the ops read the slots, without arena nodes.
// Any other value is built in the arena and copied (plainNode).

import (
	"math/bits"
	"unsafe"
)

// plainBufs holds the chunks plain values are taken from
// (matcher.plain).
type plainBufs struct {
	chunks
	top *topFrame // the parse's top-level frame (topValue)
	gen uint32    // chunks of objects, properties and elements made
	// boxGen counts the chunks of texts, numbers and array headers made
	// (boxText, boxNum, boxElems): not in gen, whose chunks' room release
	// gives back.
	boxGen uint32
}

// made returns a number that changes whenever a chunk is made.
func (b *plainBufs) made() uint32 { return b.gen + b.boxGen }

// chunkMark is where the room of the value under way begins in the
// chunks (mark), so that a duplicate gives it back (release). It is the
// lengths and the number of chunks made, not the chunks themselves: a
// copy of those is 12 words for every parse.
type chunkMark struct {
	objs, props, elems int32
	gen                uint32
}

// mark returns where the room of the next value begins.
func (b *plainBufs) mark() chunkMark {
	return chunkMark{int32(len(b.objs)), int32(len(b.props)), int32(len(b.elems)), b.gen}
}

// release gives back the room taken since k, when no chunk was made
// since (then the little room taken stays taken).
func (b *plainBufs) release(k chunkMark) {
	if b.gen == k.gen {
		b.objs, b.props, b.elems = b.objs[:k.objs], b.props[:k.props], b.elems[:k.elems]
	}
}

// chunks are the matcher's chunks: a value takes from the room after
// each one's length.
type chunks struct {
	objs    []Object
	props   []Prop
	elems   []any
	matches []Match   // the slices ranked returns
	strs    []string  // the headers of boxed texts (boxText)
	nums    []float64 // boxed numbers (boxNum)
	arrs    [][]any   // the headers of boxed arrays (boxElems)
}

// Objects, properties, array elements and the slices of matches Match
// returns are taken from chunks of these sizes (a bigger request gets one
// of its own). A chunk is kept from one input to the next until it is
// full: one allocation serves many inputs with few results, and a match's
// objects are not counted beforehand. A value returned holds its chunk,
// so earlier values (and the inputs their texts are part of) stay
// reachable while it is kept.
//
// A value that topValue writes takes all its room from one pair of
// chunks of objects and properties, made together (newChunk): its
// objects and properties, nested and outer ones too (topObj's test, and
// altVal.roomProps for values of several ops). The collector keeps a
// chunk whole, so a value split between chunks made at different times
// kept the older one reachable from the newer, and, through the values of
// earlier inputs in it, the ones before (TestValueChunksNoChains). With
// chunks of objects and of properties turned over each on its own, 84 KB
// of property chunks, 25 KB of object chunks and 15 KB of boxed texts
// were still live after a collection that followed 300 rounds of image's
// inputs; now one pair and 1 KB of texts are. That is also what made
// bigger chunks cost more in the third session (127 objects and 255
// properties: the heap marked live at a collection was 3 to 10 MB on
// player, weather and email, at most 1 MB with the smaller ones), a cause
// not found then: TestChunksBounded counts the objects that values reach,
// not the chunks the collector keeps.
//
// Made together, the two chunks are used up at different times, and the
// room left in the other is not used. The properties' chunk is therefore
// sized by how many properties an object took in the pair before
// (propSizes): weather's values take two per object, code-editor's three.
// One chunk of both, of a fixed 1:3, made weather take 747 bytes an input
// against 535.
//
// An allocation of more than 512 bytes that holds pointers has an 8-byte
// header in front: each size here leaves room for the header in the size
// class named.
const (
	chunkObjs  = 42 // 1024-byte class
	elemChunk  = 31 // 512 (no header)
	matchChunk = 16 // 512 (no header)
	strChunk   = 32 // 512 (no header)
	numChunk   = 64 // 512 (no pointers)
	arrChunk   = 21 // 512 (no header)
)

// propSizes are the sizes of chunks of properties, each the most a size
// class holds, from 1024 to 4096 bytes.
var propSizes = [...]int{31, 35, 39, 43, 47, 55, 63, 71, 83, 95, 99, 107, 127}

// maxChunkProps is the most properties a chunk holds; a value that
// needs more takes an allocation of its own.
const maxChunkProps = 127

// newChunkHook, when set (tests), is given every pair of chunks made.
var newChunkHook func([]Object, []Prop)

// takeObj returns a new Object from b's chunk.
func (b *plainBufs) takeObj() *Object {
	if len(b.objs) == cap(b.objs) {
		b.newObjs()
	}
	b.objs = b.objs[:len(b.objs)+1]
	return &b.objs[len(b.objs)-1]
}

// takeProps returns k properties from b's chunk.
func (b *plainBufs) takeProps(k int) []Prop {
	if cap(b.props)-len(b.props) < k {
		b.newProps(k)
	}
	s := len(b.props)
	b.props = b.props[:s+k]
	return b.props[s : s+k : s+k]
}

// usedProps returns the first n of the properties ps that takeProps gave,
// giving the others back when none were taken since (a value inside
// another is taken after it).
func (b *plainBufs) usedProps(ps []Prop, n int) []Prop {
	if k := len(ps); n < k && len(b.props) >= k && &b.props[len(b.props)-1] == &ps[k-1] {
		b.props = b.props[:len(b.props)-(k-n)]
	}
	return ps[:n:n]
}

// takeElems returns k array elements from b's chunk.
func (b *plainBufs) takeElems(k int) []any {
	if cap(b.elems)-len(b.elems) < k {
		b.elems = make([]any, 0, max(k, elemChunk))
		b.gen++
	}
	s := len(b.elems)
	b.elems = b.elems[:s+k]
	return b.elems[s : s+k : s+k]
}

// takeMatches returns k matches from b's chunk.
func (b *plainBufs) takeMatches(k int) []Match {
	if cap(b.matches)-len(b.matches) < k {
		if k > matchChunk/2 {
			return make([]Match, k) // a chunk of its own
		}
		b.matches = make([]Match, 0, matchChunk)
	}
	s := len(b.matches)
	b.matches = b.matches[:s+k]
	return b.matches[s : s+k : s+k]
}

// plainText returns the input's text a:b, boxed once per match (the same
// text is in many results).
func (m *matcher) plainText(a, b int32) any {
	e := &m.strCache[(uint64(a)*31+uint64(b))&(strCacheSize-1)]
	if e.key != uint64(a)<<32|uint64(b)+1 || e.v == nil {
		e = m.textEntrySlow(a, b)
	}
	return e.v
}

// plainNode returns arena value n as a plain value, its objects,
// properties and elements taken from the chunks of b.
func (m *matcher) plainNode(b *plainBufs, n int32) any {
	if n < 0 {
		return m.g.vt.lits[-n-1]
	}
	nd := &m.nodes[n]
	switch nd.kind {
	case nStr:
		return m.plainText(nd.a, nd.b)
	case nNum:
		return b.boxNum(nd.num)
	case nVal:
		return m.vals[nd.a]
	case nObj:
		kids := m.kids[nd.a : nd.a+nd.b]
		props := b.takeProps(len(kids))
		for i, kd := range kids {
			props[i] = Prop{m.g.vt.keys[kd.key], m.plainNode(b, kd.n)}
		}
		obj := b.takeObj()
		obj.Props = props
		return obj
	case nArr:
		kids := m.kids[nd.a : nd.a+nd.b]
		arr := b.takeElems(len(kids))
		for i, kd := range kids {
			arr[i] = m.plainNode(b, kd.n)
		}
		return b.boxElems(arr)
	}
	return Undefined
}

// topSlots is the most slots (variables, last value and temporary slots)
// of a frame whose value topValue writes: a fixed array indexed under a
// mask needs no bounds check.
const topSlots = 64

// topSlot is a variable (or temporary slot) of a parse's top-level frame
// as topValue writes it: its plain value, that value's hash and the stats
// of what built it. An undefined value is nil with hash 0 (nil's hash is
// hashNil).
type topSlot struct {
	v  any
	h  uint64
	st stats
}

// topFrame is the top-level frame topValue writes: its slots, and where
// the walk of a parse a replay records after another resumes. It is not
// in the matcher, which is laid out as before (plainBufs.top).
type topFrame struct {
	slots [topSlots]topSlot
	// resume, when set (not 0), is where topValue begins its walk, with
	// the bound set resumeBound: replay sets it (resumePoint).
	resume      int
	resumeBound uint64
}

// topValue writes the value of the parse on trail, whose one top-level
// frame (at trail[0]) has a value computed by ops (avExpr, without the
// evaluator: top is the frame's altVal, which record looked up already),
// as a plain value, with its hash and stats, and returns the index of that
// frame's end. It is buildFrame and writing the plain value in one pass:
// a wildcard's text goes from its cache entry (boxed, hashed and measured
// once per match) straight to the frame's slot as the plain value, and the
// ops read the slots without looking at the arena. A nested rule that is
// one wildcard is read in place, one whose value nothing reads is
// skipped, and the others' values come from nestedSlot.
//
// A parse a replay records after another begins the walk where the last
// one can be resumed (topFrame.resume, resumePoint).
//
// Its values are written in m.plain's chunks. The loop keeps few values
// live (the chunks, the ops, the table of rules that are one variable and
// the trail's capacity are looked up where they are used): the registers
// they took were reloaded from the stack at every event.
func (m *matcher) topValue(trail []event, top *altVal) (any, uint64, stats, int) {
	tf := m.plain.top // made by resetArena
	ts := &tf.slots
	var bound uint64
	i := 1
	if tf.resume > 0 { // a parse replayed after another (resumePoint)
		i, bound = tf.resume, tf.resumeBound
	}
	for ; i < len(trail); i++ {
		ev := &trail[i]
		switch ev.kind {
		case evWild:
			// The text's cache entry, tested in place (textEntrySlow
			// when it is not there yet).
			e := &m.strCache[(uint64(ev.a)*31+uint64(ev.b))&(strCacheSize-1)]
			if e.key != uint64(ev.a)<<32|uint64(ev.b)+1 || e.v == nil {
				e = m.textEntrySlow(ev.a, ev.b)
			}
			ts[ev.slot&(topSlots-1)] = topSlot{e.v, e.h, mkStats(1, e.u16)}
			bound |= 1 << (ev.slot & (topSlots - 1))
		case evNum:
			f := ev.num()
			ts[ev.slot&(topSlots-1)] = topSlot{m.plain.boxNum(f), hashNum(f), mkStats(1, 0)}
			bound |= slotBit(ev.slot)
		case evBegin:
			if m.oneWildFrame(trail, i) {
				// A rule that is one wildcard ("-> x"): no frame.
				if ev.slot >= 0 {
					w := &trail[i+1]
					e := &m.strCache[(uint64(w.a)*31+uint64(w.b))&(strCacheSize-1)]
					if e.key != uint64(w.a)<<32|uint64(w.b)+1 || e.v == nil {
						e = m.textEntrySlow(w.a, w.b)
					}
					ts[ev.slot&(topSlots-1)] = topSlot{e.v, e.h, mkStats(1, e.u16)}
					bound |= 1 << (ev.slot & (topSlots - 1))
				}
				i += 2
				continue
			}
			if ev.slot < 0 {
				// A rule whose value nothing reads (the value is built from
				// variables): skip its frame.
				i = frameEnd(trail[:len(trail):len(trail)], i)
				continue
			}
			// Another rule (nestedSlot).
			ts[ev.slot&(topSlots-1)], i = m.nestedSlot(&m.plain, trail[:len(trail):len(trail)], i)
			bound |= slotBit(ev.slot)
		case evEnd:
			// The ops: nested literals into their temporary slots, the
			// last one the value.
			bound |= 1 << 63
			b, ops := &m.plain, top.ops
			if n := int(top.roomProps); n > 0 && (cap(b.props)-len(b.props) < n || cap(b.objs)-len(b.objs) < int(top.roomObjs)) {
				b.newChunk(n) // the ops' room in one pair of chunks (see chunkObjs)
			}
			last := len(ops) - 1
			for j := range ops {
				op := &ops[j]
				var v any
				var h uint64
				var st stats
				switch op.top {
				case topMasked:
					v, h, st = b.topObj(op, ts, bound)
				case topFixed:
					v, h, st = b.topObjFixed(op, ts)
				case topLong:
					v, h, st = b.topObjLong(op, ts, bound)
				default:
					v, h, st = m.topArr(b, op.props, ts, bound)
				}
				if j == last || op.outer != nil { // topObj wrote the last one too
					return v, h, st, i
				}
				ts[op.dst&(topSlots-1)] = topSlot{v, h, st}
			}
		}
	}
	return nil, hashNil, 0, i // never: a trail's frames all end
}

// oneWildFrame reports whether the frame that begins at trail[i] is a
// rule that is one wildcard ("-> x"): its begin, the wildcard and its
// end, which topValue reads in place, without a frame.
func (m *matcher) oneWildFrame(trail []event, i int) bool {
	return i+2 < len(trail) && trail[i+2].kind == evEnd && trail[i+1].kind == evWild && m.g.vt.oneVar[trail[i].alt()]
}

// resumePoint returns where topValue can resume its walk of the next
// parses a replay records (replay), and the bound set there, once it
// walked the first: the last top-level event of trail, the first parse's,
// that begins at or before same, the first index of the trail the next
// parses may not share. It returns 0 when there is none after the top
// frame's beginning.
//
// Every parse a replay records shares the trail before the state (but
// for the open wildcard's event, which each rewrites): code-editor
// replays 83 % of its parses. The slots topValue wrote for the events
// before that point keep the first walk's values: a variable is captured
// at most once in an alternative (compile.go), so no later event wrote
// them again, and the ops read only the slots in the bound set. A nested
// rule topValue builds through the arena (nestedSlot) ends the shared
// part: its value may be in room a duplicate gave back.
func (m *matcher) resumePoint(trail []event, same int) (int, uint64) {
	if len(trail) == 0 || trail[0].kind != evBegin || !m.g.vt.alts[trail[0].alt()].top {
		return 0, 0 // record did not call topValue
	}
	same = min(same, len(trail))
	var bound uint64
	i := 1
	for i < same {
		ev := &trail[i]
		next := i + 1
		switch ev.kind {
		case evWild, evNum:
			bound |= slotBit(ev.slot)
		case evBegin:
			if m.oneWildFrame(trail, i) {
				next = i + 3
				if ev.slot >= 0 && next <= same {
					bound |= slotBit(ev.slot)
				}
			} else if ev.slot < 0 {
				next = frameEnd(trail, i) + 1
			} else {
				next = same + 1 // a nested rule's value (nestedSlot)
			}
		default:
			next = same + 1 // the top frame's end
		}
		if next > same {
			break
		}
		i = next
	}
	if i <= 1 {
		return 0, 0
	}
	return i, bound
}

// nestedSlot returns the value of the rule whose frame begins at
// trail[i] inside a top-level frame (topValue), and the index of its
// end, when it is not one wildcard (topValue takes those in place). A
// rule that is one number, or a constant (a keyword, "-> 1"), or one
// variable bound to such a constant needs no frame; another is built
// in the arena (from slot 1 of slotBuf: buildFrame defers a frame at
// base 0) and copied.
func (m *matcher) nestedSlot(b *plainBufs, trail []event, i int) (topSlot, int) {
	alts := m.g.vt.alts
	if alts[trail[i].alt()].oneVar && i+2 < len(trail) && trail[i+1].kind == evNum && trail[i+2].kind == evEnd {
		num := trail[i+1].num()
		return topSlot{b.boxNum(num), hashNum(num), mkStats(1, 0)}, i + 2
	}
	if k, c := topConst(alts, trail, i); k > i {
		v := alts[c].v
		if v.n == undefNode {
			return topSlot{st: v.st}, k
		}
		return topSlot{m.g.vt.lits[-v.n-1], v.h, v.st}, k
	}
	v, k := m.buildFrame(trail, i, 1)
	s := topSlot{st: v.st}
	if v.n != undefNode {
		s.v, s.h = m.plainNode(b, v.n), v.h
	}
	return s, k
}

// frameEnd returns the index of the end of the frame that begins at
// trail[i].
func frameEnd(trail []event, i int) int {
	depth := 0
	for ; i < len(trail); i++ {
		switch trail[i].kind {
		case evBegin:
			depth++
		case evEnd:
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return i // never: a trail's frames all end
}

// topConst returns, when the frame at trail[i] is an alternative with
// nothing inside whose value is a constant (a keyword, "-> 1"), or one
// whose value is its only variable, bound to such a frame, the index of
// its end and the constant's alternative; otherwise i. Those values need
// no frame (enumerations: <UnitsSpec> = in $(u:<Units>) -> u).
func topConst(alts []altVal, trail []event, i int) (int, int32) {
	if i+1 >= len(trail) {
		return i, 0
	}
	if c := trail[i].alt(); alts[c].how == avConst && trail[i+1].kind == evEnd {
		return i + 1, c
	}
	if alts[trail[i].alt()].oneVar && i+3 < len(trail) && trail[i+1].kind == evBegin && trail[i+1].slot >= 0 &&
		trail[i+2].kind == evEnd && trail[i+3].kind == evEnd && alts[trail[i+1].alt()].how == avConst {
		return i + 3, trail[i+1].alt()
	}
	return i, 0
}

// textEntrySlow returns the cache entry of the input's text a:b, boxed,
// with its hash and UTF-16 length, when it is not in the cache or not
// boxed (topValue tests that in place). It makes no arena node: the plain
// value does not need one (strVal makes it when the arena does).
func (m *matcher) textEntrySlow(a, b int32) *strEntry {
	e := m.strAt(a, b)
	if e.v == nil {
		s := m.in[a:b]
		if e.node == 0 {
			e.h, e.u16 = hashString(s), int32(m.utf16Len(s))
		}
		e.v = m.plain.boxText(s)
	}
	return e
}

// boxText returns s as an any whose string header is in b's chunk of
// texts rather than in an allocation of its own (what converting s to an
// any makes): a match's wildcard texts cost one allocation per strChunk.
// The header is never written again, as the compiler's own boxes are not,
// and its room is never given back (release does not): the text cache
// hands the box to every later parse of the match.
func (b *plainBufs) boxText(s string) any {
	if len(b.strs) == cap(b.strs) {
		b.strs = make([]string, 0, strChunk)
		b.boxGen++
	}
	b.strs = append(b.strs, s)
	return *(*any)(unsafe.Pointer(&eface{stringType, unsafe.Pointer(&b.strs[len(b.strs)-1])}))
}

// boxNum returns f as an any whose value is in b's chunk of numbers
// rather than in an allocation of its own, as boxText does for texts.
func (b *plainBufs) boxNum(f float64) any {
	if len(b.nums) == cap(b.nums) {
		b.nums = make([]float64, 0, numChunk)
		b.boxGen++
	}
	b.nums = append(b.nums, f)
	return *(*any)(unsafe.Pointer(&eface{float64Type, unsafe.Pointer(&b.nums[len(b.nums)-1])}))
}

// boxElems returns arr as an any whose slice header is in b's chunk of
// headers rather than in an allocation of its own (what converting arr to
// an any makes), as boxText does for texts: more than half of player's
// and list's allocations were these headers. Nothing reads a box given
// for a value that turned out a duplicate (its elements' room is given
// back and may be taken again): the value is dropped with it.
func (b *plainBufs) boxElems(arr []any) any {
	if len(b.arrs) == cap(b.arrs) {
		b.arrs = make([][]any, 0, arrChunk)
		b.boxGen++
	}
	b.arrs = append(b.arrs, arr)
	return *(*any)(unsafe.Pointer(&eface{elemsType, unsafe.Pointer(&b.arrs[len(b.arrs)-1])}))
}

// eface is the layout of an any: its type and a pointer to its value.
type eface struct {
	typ, data unsafe.Pointer
}

// The type words of an any that holds a float64, a string and an array.
var (
	float64Type = typeWord(0.0)
	stringType  = typeWord("")
	elemsType   = typeWord([]any(nil))
)

// typeWord returns x's type word.
func typeWord(x any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&x)).typ }

// topObj writes an object literal's value from a top-level frame's slots
// ts (evalObj's), visiting only its properties that are literals or read a
// bound variable. Nothing else takes room while it writes, so the room it
// does not use is given back by its length; the loop makes no call
// (chunks are made by newProps and newObjs), which keeps its state in
// registers. It is a method of the chunks, not of the matcher, which it
// does not need: one value less live in the loop.
func (b *plainBufs) topObj(op *vop, ts *[topSlots]topSlot, bound uint64) (any, uint64, stats) {
	var present uint64
	if bound&op.vars == op.vars {
		// Every variable bound (most often: { originalRequest: r,
		// caption: c, numImages: n }): every property, without the
		// bit sets; only a variable bound to undefined is dropped.
		present = ^uint64(0) >> (64 - len(op.props))
	} else if t := op.byNib; t != nil {
		x := bound & op.vars
		present = op.always | uint64(t[0][x&15]|t[1][x>>4&15]|t[2][x>>8&15]|t[3][x>>12&15])
	} else {
		present = op.always
		for x := bound & op.vars; x != 0; x &= x - 1 {
			present |= op.bySlot[bits.TrailingZeros64(x)]
		}
	}
	props := op.props
	start := len(b.props)
	// The value's room in one pair of chunks (see chunkObjs): the
	// object's, and its outer object's (the room of other values of
	// several ops was made before the first: altVal.roomProps).
	nobjs, nout := 1, 0
	if op.outer != nil {
		nobjs, nout = 2, len(op.outer.props)
	}
	if room := cap(b.props) - start - nout; room < len(props) && room < bits.OnesCount64(present) || cap(b.objs)-len(b.objs) < nobjs {
		b.newProps(bits.OnesCount64(present) + nout)
		start = 0
	}
	ps := b.props[:cap(b.props)]
	j := start
	var sum uint64
	var st stats
	if present&op.lits == 0 {
		// No literal among them (most often: the variables of
		// { actionName: "send", parameters: { to: t, ... } }'s inner
		// object): the loop below without its literal test, written
		// twice on purpose (code-editor 89.4k -> 88.5k instructions an
		// input).
		for ; present != 0; present &= present - 1 {
			p := &props[bits.TrailingZeros64(present)]
			s := &ts[p.arg&(topSlots-1)]
			st += s.st
			if s.h == 0 && s.v == nil { // JSON.stringify drops undefined properties
				continue
			}
			ps[j] = Prop{p.name, s.v}
			sum += propHash(p.kmul, s.h)
			j++
		}
	}
	for ; present != 0; present &= present - 1 {
		p := &props[bits.TrailingZeros64(present)]
		if p.kind == vkLit { // its hash term is known
			ps[j] = Prop{p.name, p.lit}
			sum += p.lsum
			j++
			continue
		}
		s := &ts[p.arg&(topSlots-1)]
		st += s.st
		if s.h == 0 && s.v == nil { // JSON.stringify drops undefined properties
			continue
		}
		ps[j] = Prop{p.name, s.v}
		sum += propHash(p.kmul, s.h)
		j++
	}
	b.props = ps[:j]
	out := ps[start:j:j]
	if op.outer != nil {
		return b.topObjOuter(op, out, mix64(objectSeed+sum), st)
	}
	if len(b.objs) == cap(b.objs) {
		b.newObjs()
	}
	b.objs = b.objs[:len(b.objs)+1]
	obj := &b.objs[len(b.objs)-1]
	obj.Props = out
	return obj, mix64(objectSeed + sum), st
}

// topObjOuter ends topObj for an op with an outer object (vop.outer):
// the object of properties in (hash h, stats st), then the outer one,
// whose other properties are literals, without a slot between them.
// It and topObjFixed take their properties as takeProps does, written
// out: through takeProps, code-editor took 1 % more instructions an
// input (92.1k against 91.2k; the chunk's length is loaded again).
func (b *plainBufs) topObjOuter(op *vop, in []Prop, h uint64, st stats) (any, uint64, stats) {
	if cap(b.objs)-len(b.objs) < 2 {
		b.newObjs()
	}
	n := len(b.objs)
	b.objs = b.objs[:n+2]
	objs := b.objs[n : n+2 : n+2]
	objs[0].Props = in
	f := op.outer
	props := f.props
	start := len(b.props)
	if cap(b.props)-start < len(props) {
		b.newProps(len(props))
		start = 0
	}
	end := start + len(props)
	b.props = b.props[:end]
	out := b.props[start:end:end]
	props = props[:len(out)]
	// The hash first: h is not live in the loop, whose write barriers
	// spill what is.
	k := int(op.outerArg)
	h = mix64(objectSeed + f.lsum + propHash(props[k].kmul, h))
	if len(out) == 2 {
		// { actionName: "send", parameters: {...} }: written at once,
		// the inner object in place of the literal.
		o := k ^ 1
		out[o] = Prop{props[o].name, props[o].lit}
		out[k] = Prop{props[k].name, &objs[0]}
	} else {
		for i := range out {
			out[i] = Prop{props[i].name, props[i].lit}
		}
		out[k].Value = &objs[0]
	}
	objs[1].Props = out
	return &objs[1], h, st
}

// topObjFixed is topObj for an object that reads no variable (its
// properties are literals and nested literals, which are never
// undefined: { actionName: "play", parameters: {...} }): every property
// is written, in order, without a bit set. A frame topValue writes has
// fewer than 63 variables, so an object that reads one has it in vars.
func (b *plainBufs) topObjFixed(op *vop, ts *[topSlots]topSlot) (any, uint64, stats) {
	props := op.props
	start := len(b.props)
	if cap(b.props)-start < len(props) || len(b.objs) == cap(b.objs) { // one pair of chunks (see chunkObjs)
		b.newProps(len(props))
		start = 0
	}
	end := start + len(props)
	b.props = b.props[:end]
	out := b.props[start:end:end]
	props = props[:len(out)]
	sum := op.lsum // the literals' terms
	var st stats
	for i := range out {
		p := &props[i]
		if p.kind == vkLit {
			out[i] = Prop{p.name, p.lit}
			continue
		}
		s := &ts[p.arg&(topSlots-1)]
		st += s.st
		out[i] = Prop{p.name, s.v}
		sum += propHash(p.kmul, s.h)
	}
	if len(b.objs) == cap(b.objs) {
		b.newObjs()
	}
	b.objs = b.objs[:len(b.objs)+1]
	obj := &b.objs[len(b.objs)-1]
	obj.Props = out
	return obj, mix64(objectSeed + sum), st
}

// newProps starts a pair of chunks with room for k properties; more than
// maxChunkProps get an allocation of their own, and the objects' chunk
// is kept.
//
//go:noinline
func (b *plainBufs) newProps(k int) {
	if k > maxChunkProps {
		b.props = make([]Prop, 0, k)
		b.gen++
		return
	}
	b.newChunk(k)
}

// newObjs starts a pair of chunks.
//
//go:noinline
func (b *plainBufs) newObjs() { b.newChunk(0) }

// newChunk starts a chunk of objects and one of at least k properties
// (k <= maxChunkProps), sized by the properties an object took in the
// pair before, and a quarter more when those ran out first; the room left
// in the pair before is not used.
func (b *plainBufs) newChunk(k int) {
	want := 63 // the first pair: three properties an object
	if o := len(b.objs); o > 0 {
		want = len(b.props) * chunkObjs / o
		if cap(b.objs)-o >= 4 { // the properties ran out first
			want += want / 4
		}
	}
	n := maxChunkProps
	for _, size := range propSizes {
		if size >= max(want, k) {
			n = size
			break
		}
	}
	b.objs, b.props = make([]Object, 0, chunkObjs), make([]Prop, 0, n)
	if newChunkHook != nil {
		newChunkHook(b.objs[:chunkObjs], b.props[:n])
	}
	b.gen++
}

// topObjLong is topObj for an object of more than 64 properties: it
// visits every property.
func (b *plainBufs) topObjLong(op *vop, ts *[topSlots]topSlot, bound uint64) (any, uint64, stats) {
	props := op.props
	out := b.takeProps(int(op.fixed) + bits.OnesCount64(bound&op.vars))
	sum, n := uint64(0), 0
	var st stats
	for i := range props {
		p := &props[i]
		if p.kind == vkLit { // its hash term is known
			out[n] = Prop{p.name, p.lit}
			sum += p.lsum
			n++
			continue
		}
		if bound&p.bit == 0 { // undefined: JSON.stringify drops it
			continue
		}
		s := &ts[p.arg&(topSlots-1)]
		st += s.st
		if s.h == 0 && s.v == nil {
			continue
		}
		out[n] = Prop{p.name, s.v}
		sum += propHash(p.kmul, s.h)
		n++
	}
	obj := b.takeObj()
	obj.Props = b.usedProps(out, n)
	return obj, mix64(objectSeed + sum), st
}

// topArr writes an array literal's value from a top-level frame's slots
// ts (evalArr's).
func (m *matcher) topArr(b *plainBufs, elems []vprop, ts *[topSlots]topSlot, bound uint64) (any, uint64, stats) {
	arr := b.takeElems(len(elems))
	h := uint64(arraySeed)
	var st stats
	for i := range elems {
		p := &elems[i]
		var ev any
		vh := hashNil // undefined is written as null
		if p.kind == vkLit {
			ev, vh = m.g.vt.lits[p.arg], m.g.vt.litHash[p.arg]
		} else if bound&p.bit != 0 {
			s := &ts[p.arg&(topSlots-1)]
			st += s.st
			if s.h != 0 || s.v != nil {
				ev, vh = s.v, s.h
			}
		}
		arr[i] = ev
		h = (h ^ vh) * hashPrime
	}
	return b.boxElems(arr), mix64(h), st
}
