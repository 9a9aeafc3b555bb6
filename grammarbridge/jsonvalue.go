package grammarbridge

// This file writes a parse's value as the JSON text a caller gets, once
// per parse, while its hash is computed. Nearly every parse is a new
// result (code-editor: 58.6 results of 58.6 parses per input), so the
// value is written before it is compared, in a scratch buffer, and copied
// to the results' buffer when it is new. The parse's top-level value,
// when it is object and array literals (nearly always), is written in
// one pass over the parse's events (topValue): each wildcard's text, as
// JSON, goes from the text cache to its slot, and the ops copy the
// slots' texts between the keys. Any other value is built in the arena
// and written from there (nodeFrag).
//
// Values are JSON text rather than Go values (objects, slices and
// boxed strings) for what the collector costs: a Go value of
// { actionName, parameters: { ... } } is about 14 pointers, each shaded
// by the write barrier while the collector marks, which at one P is a
// third of the time. With them, half of code-editor's instructions were
// the runtime's; the buffers here hold no pointers.

import (
	"bytes"
	"encoding/json"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unsafe"
)

// frag is a JSON text written while values are built: bytes off:off+n of
// one of the matcher's buffers, chosen by the top two bits of off. The
// zero frag (n == 0) is undefined: no JSON text is empty.
type frag struct{ off, n uint32 }

// The buffers a frag is in (its off's top two bits, fragSrc).
const (
	fragScratch uint32 = 0 << 30 // jsonBufs.scratch: the values of the parse under way
	fragTexts   uint32 = 1 << 30 // jsonBufs.texts: the input's wildcard texts and numbers
	fragLits    uint32 = 2 << 30 // valueTables.litJSON: the grammar's literals
	fragOut     uint32 = 3 << 30 // jsonBufs.out past its end: a parse's value, kept there if new (topObj)
	fragSrc     uint32 = 3 << 30
)

// maxJSONBuf is the most bytes the scratch or text buffer may hold (a
// frag's offset has 30 bits). A match that writes more fails with
// ErrWorkLimit; the work limit stops any real one long before.
const maxJSONBuf = 1 << 30

// jsonBufs holds the buffers values are written in (matcher.js).
type jsonBufs struct {
	// scratch holds the value of the parse under way, its nested values
	// and objects first: record empties it.
	scratch []byte
	// texts holds the JSON of the input's wildcard texts (the text
	// cache's) and numbers, which the slots of several parses share
	// (topFrame.resume).
	texts []byte
	// out is the chunk the values of the results are copied to, kept
	// from one input to the next until it is full: what is in it was
	// returned (it is never written again) or is the input's. outs are
	// the chunks of the input's values, out last (result.chunk).
	out  []byte
	outs [][]byte
	// matches is the chunk the slices of matches Match returns are taken
	// from.
	matches []Match
	top     *topFrame // the parse's top-level frame (topValue)
	// plain is 0 until known, then 1 when no text of the input needs an
	// escape in JSON (no quote, backslash or control character), else 2.
	plain uint8
}

// outChunk is the size of a new chunk of results' values, unless the
// input's values need more.
const outChunk = 4096

// maxOutShift bounds the growth of an input's chunks (newOut): at most
// outChunk<<maxOutShift bytes, 32 KB (maxSmallAlloc, 8 bytes less), of
// which a kept value may keep the rest alive.
const maxOutShift = 3

// maxSmallAlloc is the most bytes Go allocates as a small object, from
// a per-processor cache: 8 bytes less than its largest size class,
// 32 KB, whose objects are allocated as large ones, each a span of its
// own taken from the heap (code-editor: 8 % of its time in
// mallocgcLarge with chunks of 32 KB).
const maxSmallAlloc = 32<<10 - 8

// matchChunk is how many matches a chunk of jsonBufs.matches holds; a
// bigger request gets an allocation of its own.
const matchChunk = 16

// fragText returns the bytes of f.
func (m *matcher) fragText(f frag) []byte {
	o := f.off &^ fragSrc
	return m.fragBuf(f)[o : o+f.n]
}

// fragBuf returns the buffer f is in.
func (m *matcher) fragBuf(f frag) []byte {
	switch f.off & fragSrc {
	case fragScratch:
		return m.js.scratch
	case fragTexts:
		return m.js.texts
	case fragLits:
		return m.g.vt.litJSON
	}
	return m.js.out
}

// startInput readies the chunks of results' values for an input: the
// one kept is its first.
func (b *jsonBufs) startInput() {
	clear(b.outs)
	b.outs = append(b.outs[:0], b.out[:cap(b.out)])
}

// keep copies value f to the chunk of results' values, and returns
// where it is: the chunk's index in outs, and the offset in it. A value
// topObj wrote in the chunk, past its end (fragOut), is kept where it
// is, or moved down to the end (keepBest may have taken back the room
// of the value kept before it).
func (m *matcher) keep(f frag) (chunk, off uint32) {
	b := &m.js
	if c, o, ok := b.keepInPlace(f); ok {
		return c, o
	}
	if f.off&fragSrc == fragOut {
		o, n := int(f.off&^fragSrc), len(b.out)
		copy(b.out[n:n+int(f.n)], b.out[o:o+int(f.n)])
		b.out = b.out[:n+int(f.n)]
		return uint32(len(b.outs) - 1), uint32(n)
	}
	src := m.fragText(f)
	if cap(b.out)-len(b.out) < len(src) {
		b.newOut(len(src))
	}
	o := len(b.out)
	appendTo(&b.out, src) // the room is there
	return uint32(len(b.outs) - 1), uint32(o)
}

// keepInPlace is keep for a value topObj wrote at the chunk's end (the
// common case), small enough to be inlined where results are added: it
// reports whether f was one.
func (b *jsonBufs) keepInPlace(f frag) (chunk, off uint32, ok bool) {
	n := uint32(len(b.out))
	if f.off != fragOut|n {
		return 0, 0, false
	}
	b.out = b.out[:n+f.n]
	return uint32(len(b.outs) - 1), n, true
}

// newOut starts a chunk of results' values with room for n bytes. An
// input's chunks after its first are twice as big as the one before,
// up to maxSmallAlloc: an input with many results (code-editor:
// up to 876, 210 KB) takes a few allocations, not one every 4 KB.
//
//go:noinline
func (b *jsonBufs) newOut(n int) {
	size := min(outChunk<<min(max(len(b.outs)-1, 0), maxOutShift), maxSmallAlloc)
	b.out = make([]byte, 0, max(size, n))
	b.outs = append(b.outs, b.out[:cap(b.out)])
}

// resultValue returns the value of result r as the JSON a Match holds,
// its capacity cut to its length (an append to it copies).
func (m *matcher) resultValue(r *result) []byte {
	return m.js.outs[r.chunk][r.off : r.off+r.n : r.off+r.n]
}

// sameValue reports whether value f equals result r's: the same text,
// or (when the hashes agree but the texts do not) the same value with
// an object's properties in another order (equalValue).
func (m *matcher) sameValue(f frag, r *result) bool {
	a, b := m.fragText(f), m.resultValue(r)
	return bytes.Equal(a, b) || equalJSON(a, b)
}

// equalJSON reports whether JSON texts a and b are the same value
// (equalValue: object properties in any order).
func equalJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return equalValue(x, y)
}

// takeMatches returns k matches from b's chunk.
func (b *jsonBufs) takeMatches(k int) []Match {
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

// mat returns arena value n as a Go value for the evaluator: *Object,
// []any, string, float64, bool, nil or Undefined.
func (m *matcher) mat(n int32) any {
	if n < 0 {
		return m.g.vt.lits[-n-1]
	}
	nd := &m.nodes[n]
	switch nd.kind {
	case nStr:
		return m.in[nd.a:nd.b]
	case nNum:
		return nd.num
	case nVal:
		return m.vals[nd.a]
	case nObj:
		kids := m.kids[nd.a : nd.a+nd.b]
		props := make([]Prop, len(kids))
		for i, kd := range kids {
			props[i] = Prop{m.g.vt.keys[kd.key], m.mat(kd.n)}
		}
		return &Object{Props: props}
	case nArr:
		kids := m.kids[nd.a : nd.a+nd.b]
		arr := make([]any, len(kids))
		for i, kd := range kids {
			arr[i] = m.mat(kd.n)
		}
		return arr
	}
	return Undefined
}

// topSlots is the most slots (variables, last value and temporary slots)
// of a frame whose value topValue writes: a fixed array indexed under a
// mask needs no bounds check.
const topSlots = 64

// topSlot is a variable (or temporary slot) of a parse's top-level frame
// as topValue writes it: its value's JSON, that value's hash and the
// stats of what built it. An undefined value is the zero frag.
type topSlot struct {
	f  frag
	h  uint64
	st stats
}

// topFrame is the top-level frame topValue writes: its slots, and where
// the walk of a parse a replay records after another resumes. It is not
// in the matcher, which is laid out as before (jsonBufs.top).
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
// as JSON, with its hash and stats, and returns the index of that frame's
// end. It is buildFrame and writing the JSON in one pass: a wildcard's
// text goes from its cache entry (written, hashed and measured once per
// match) straight to the frame's slot, and the ops read the slots
// without looking at the arena. A nested rule that is
// one wildcard is read in place, one whose value nothing reads is
// skipped, and the others' values come from nestedSlot.
//
// A parse a replay records after another begins the walk where the last
// one can be resumed (topFrame.resume, resumePoint).
//
// Its values are written in m.js.scratch, but for the value itself when
// topObj writes it: past the end of the chunk of results' values. The
// loop keeps few values live (the ops, the table of rules that are one
// variable and the trail's capacity are looked up where they are used):
// the registers they took were reloaded from the stack at every event.
func (m *matcher) topValue(trail []event, top *altVal) (frag, uint64, stats, int) {
	tf := m.js.top // made by resetArena
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
			if e.key != uint64(ev.a)<<32|uint64(ev.b)+1 || e.f.n == 0 {
				e = m.textEntrySlow(ev.a, ev.b)
			}
			ts[ev.slot&(topSlots-1)] = topSlot{e.f, e.h, mkStats(1, e.u16)}
			bound |= 1 << (ev.slot & (topSlots - 1))
		case evNum:
			f := ev.num()
			ts[ev.slot&(topSlots-1)] = topSlot{m.numFrag(f), hashNum(f), mkStats(1, 0)}
			bound |= slotBit(ev.slot)
		case evBegin:
			if m.oneWildFrame(trail, i) {
				// A rule that is one wildcard ("-> x"): no frame.
				if ev.slot >= 0 {
					w := &trail[i+1]
					e := &m.strCache[(uint64(w.a)*31+uint64(w.b))&(strCacheSize-1)]
					if e.key != uint64(w.a)<<32|uint64(w.b)+1 || e.f.n == 0 {
						e = m.textEntrySlow(w.a, w.b)
					}
					ts[ev.slot&(topSlots-1)] = topSlot{e.f, e.h, mkStats(1, e.u16)}
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
			ts[ev.slot&(topSlots-1)], i = m.nestedSlot(trail[:len(trail):len(trail)], i)
			bound |= slotBit(ev.slot)
		case evEnd:
			// The ops: nested literals into their temporary slots, the
			// last one the value.
			bound |= 1 << 63
			ops := top.ops
			last := len(ops) - 1
			for j := range ops {
				op := &ops[j]
				var f frag
				var h uint64
				var st stats
				switch op.top {
				case topMasked, topFixed:
					// The value itself is written where it is kept, when
					// it is new (keep).
					f, h, st = m.topObj(op, ts, bound, j == last || op.outer != nil)
				case topLong:
					f, h, st = m.topObjLong(op, ts, bound)
				default:
					f, h, st = m.topArr(op.props, ts, bound)
				}
				if j == last || op.outer != nil { // topObj wrote the last one too
					return f, h, st, i
				}
				ts[op.dst&(topSlots-1)] = topSlot{f, h, st}
			}
		}
	}
	return m.g.vt.litFrag[0], hashNil, 0, i // never: a trail's frames all end
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
// part: its value is in the scratch buffer, which record empties.
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
// base 0) and written from there.
func (m *matcher) nestedSlot(trail []event, i int) (topSlot, int) {
	alts := m.g.vt.alts
	if alts[trail[i].alt()].oneVar && i+2 < len(trail) && trail[i+1].kind == evNum && trail[i+2].kind == evEnd {
		num := trail[i+1].num()
		return topSlot{m.numFrag(num), hashNum(num), mkStats(1, 0)}, i + 2
	}
	if k, c := topConst(alts, trail, i); k > i {
		v := alts[c].v
		if v.n == undefNode {
			return topSlot{st: v.st}, k
		}
		return topSlot{m.g.vt.litFrag[-v.n-1], v.h, v.st}, k
	}
	v, k := m.buildFrame(trail, i, 1)
	s := topSlot{st: v.st}
	if v.n != undefNode {
		s.f, s.h = m.nodeFrag(v.n), v.h
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

// textEntrySlow returns the cache entry of the input's text a:b, written
// as JSON, with its hash and UTF-16 length, when it is not in the cache
// or not written yet (topValue tests that in place). It makes no arena
// node: the JSON does not need one (strVal makes it when the arena does).
func (m *matcher) textEntrySlow(a, b int32) *strEntry {
	e := m.strAt(a, b)
	if e.f.n == 0 {
		s := m.in[a:b]
		if e.node == 0 {
			e.h, e.u16 = hashString(s), int32(m.utf16Len(s))
		}
		if m.js.plain == 0 {
			m.js.plain = 1
			if needsEscape(m.in) {
				m.js.plain = 2
			}
		}
		t := m.js.texts
		o := len(t)
		if m.js.plain == 1 {
			t = append(t, '"')
			t = append(t, s...)
			t = append(t, '"')
		} else {
			t = appendJSONString(t, s)
		}
		setPadded(&m.js.texts, t)
		e.f = frag{uint32(o) | fragTexts, uint32(len(t) - o)}
	}
	return e
}

// appendTo appends x to *s. When *s has the room, only its length is
// stored: s = append(s, x...) stores the array's pointer too, even when
// the array stays, and while the collector marks that store goes
// through the write barrier.
func appendTo[T any](s *[]T, x []T) {
	n := len(*s)
	if n+len(x) <= cap(*s) {
		*s = (*s)[:n+len(x)]
		copy((*s)[n:], x)
		return
	}
	*s = append(*s, x...)
}

// setBuf sets *buf, the scratch or the text buffer, to b, which was
// appended to it. When b is in the buffer's array (an append that moved
// it grew it), only the length is stored: a store of the array's
// pointer, while the collector marks, goes through the write barrier,
// and the buffers are set at every value written.
func setBuf(buf *[]byte, b []byte) {
	if cap(b) == cap(*buf) {
		*buf = (*buf)[:len(b)]
	} else {
		*buf = b
	}
}

// needsEscape reports whether s has a byte that JSON writes escaped: a
// quote, a backslash or a control character. It tests eight bytes at a
// time (the last word may overlap the one before): a byte-at-a-time loop
// was 630 of image's 8,400 instructions an input.
func needsEscape(s string) bool {
	n := len(s)
	if n < 8 {
		for i := range n {
			if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
				return true
			}
		}
		return false
	}
	p := unsafe.Pointer(unsafe.StringData(s))
	for i := 0; ; i += 8 {
		i = min(i, n-8)
		if escapeWord(load8(p, i)) {
			return true
		}
		if i+8 == n {
			return false
		}
	}
}

// escapeWord reports whether one of the eight bytes of x is a quote, a
// backslash or below 0x20. Each test sets a byte's high bit when it
// holds, and may set some above it when it does (a borrow): the bytes
// from 0x80 on (UTF-8), whose high bit is set, are excluded by &^ x.
func escapeWord(x uint64) bool {
	const ones = 0x0101010101010101
	ctl := (x - 0x20*ones) &^ x
	q := x ^ '"'*ones
	q = (q - ones) &^ q
	bs := x ^ '\\'*ones
	bs = (bs - ones) &^ bs
	return (ctl|q|bs)&asciiHigh != 0
}

// numFrag writes number f as JSON in the text buffer.
func (m *matcher) numFrag(f float64) frag {
	t := m.js.texts
	o := len(t)
	t = appendNumber(t, f)
	setPadded(&m.js.texts, t)
	return frag{uint32(o) | fragTexts, uint32(len(t) - o)}
}

// appendNumber appends f as JSON.stringify writes it: as JavaScript
// prints it, NaN and infinities as null.
func appendNumber(b []byte, f float64) []byte {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.AppendInt(b, int64(f), 10) // -0 too is 0
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	return append(b, formatNumber(f)...)
}

// topObj writes an object literal's value from a top-level frame's slots
// ts (evalObj's), visiting only its properties that are literals or read a
// bound variable, and, for an op with an outer object (vop.outer), the
// outer object around it. Each property is written with a comma before
// it, and the first comma is then made the brace: no test for the first.
// An object of literals and temporary slots (topFixed) has every
// property written: its vars are none, so all are present.
//
// The texts are copied with copyText (padWriter), not append: memmove
// chooses its code by the length, and the lengths of a value's keys and
// texts vary from one to the next, so that those choices were the most
// mispredicted branches of a match (code-editor: 536 of 1,280 an input,
// as cachegrind's branch simulation counts them; 103 so).
//
// With toOut, the object is the parse's value, and is written past the
// end of the chunk of results' values (fragOut), where keep keeps it
// when it is new: not in the scratch buffer, to be copied (code-editor:
// 3,300 instructions an input fewer, 1.7 % of its time).
func (m *matcher) topObj(op *vop, ts *[topSlots]topSlot, bound uint64, toOut bool) (frag, uint64, stats) {
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
	buf := &m.js.scratch
	if toOut {
		buf = &m.js.out
	}
	w := padWriter{unsafe.Pointer(unsafe.SliceData(*buf)), len(*buf), cap(*buf)}
	if need := m.objNeed(op); w.c-w.n < need { // the room, made once
		if toOut {
			w = m.outRoom(op, ts, present)
		} else {
			w = m.objRoom(w, op, ts, present, need)
		}
	}
	start := w.n
	if op.outer != nil {
		w = w.put(unsafe.Pointer(unsafe.StringData(op.head)), len(op.head))
	}
	open := w.n
	var sum uint64
	var st stats
	for ; present != 0; present &= present - 1 {
		p := &props[bits.TrailingZeros64(present)]
		if p.kind == vkLit { // its text and hash term are known
			w = w.put(unsafe.Pointer(unsafe.StringData(p.whole)), len(p.whole))
			sum += p.lsum
			continue
		}
		s := &ts[p.arg&(topSlots-1)]
		st += s.st
		if s.f.n == 0 { // JSON.stringify drops undefined properties
			continue
		}
		w = w.put(unsafe.Pointer(unsafe.StringData(p.pre)), len(p.pre))
		w = w.putValue(m.fragPtr(s.f), int(s.f.n))
		sum += propHash(p.kmul, s.h)
	}
	// closeObject's work: the first comma becomes the brace.
	if w.n == open {
		w = w.put(unsafe.Pointer(unsafe.StringData(braces)), 2)
	} else {
		*(*byte)(unsafe.Add(w.p, open)) = '{'
		w = w.put(unsafe.Add(unsafe.Pointer(unsafe.StringData(braces)), 1), 1)
	}
	h := mix64(objectSeed + sum)
	if f := op.outer; f != nil {
		w = w.put(unsafe.Pointer(unsafe.StringData(op.tail)), len(op.tail))
		h = mix64(objectSeed + f.lsum + propHash(f.props[op.outerArg].kmul, h))
	}
	if toOut {
		// Past the chunk's end, which keep moves over it.
		return frag{uint32(start) | fragOut, uint32(w.n - start)}, h, st
	}
	if w.p == unsafe.Pointer(unsafe.SliceData(m.js.scratch)) {
		m.js.scratch = m.js.scratch[:w.n]
	} else {
		m.js.scratch = unsafe.Slice((*byte)(w.p), w.c)[:w.n]
	}
	return frag{uint32(start), uint32(w.n - start)}, h, st
}

// topObjLong is topObj for an object of more than 64 properties: it
// visits every property.
func (m *matcher) topObjLong(op *vop, ts *[topSlots]topSlot, bound uint64) (frag, uint64, stats) {
	b := m.js.scratch
	start := len(b)
	var sum uint64
	var st stats
	for i := range op.props {
		p := &op.props[i]
		if p.kind == vkLit {
			b = append(b, p.whole...)
			sum += p.lsum
			continue
		}
		if bound&p.bit == 0 { // undefined: JSON.stringify drops it
			continue
		}
		s := &ts[p.arg&(topSlots-1)]
		st += s.st
		if s.f.n == 0 {
			continue
		}
		b = append(b, p.pre...)
		b = append(b, m.fragText(s.f)...)
		sum += propHash(p.kmul, s.h)
	}
	setPadded(&m.js.scratch, closeObject(b, start))
	return frag{uint32(start), uint32(len(m.js.scratch) - start)}, mix64(objectSeed + sum), st
}

// closeObject ends the properties written in b from open on, each with
// a comma before it: the first comma becomes the opening brace (or the
// brace is written, when there are none), and the closing one follows.
func closeObject(b []byte, open int) []byte {
	if len(b) == open {
		return append(b, '{', '}')
	}
	b[open] = '{'
	return append(b, '}')
}

// topArr writes an array literal's value from a top-level frame's slots
// ts (evalArr's).
func (m *matcher) topArr(elems []vprop, ts *[topSlots]topSlot, bound uint64) (frag, uint64, stats) {
	b := m.js.scratch
	start := len(b)
	b = append(b, '[')
	h := uint64(arraySeed)
	var st stats
	for i := range elems {
		if i > 0 {
			b = append(b, ',')
		}
		p := &elems[i]
		vh := hashNil // undefined is written as null
		if p.kind == vkLit {
			b = append(b, m.fragText(m.g.vt.litFrag[p.arg])...)
			vh = m.g.vt.litHash[p.arg]
		} else if s := &ts[p.arg&(topSlots-1)]; bound&p.bit != 0 && s.f.n != 0 {
			st += s.st
			b = append(b, m.fragText(s.f)...)
			vh = s.h
		} else {
			if bound&p.bit != 0 {
				st += s.st
			}
			b = append(b, "null"...)
		}
		h = (h ^ vh) * hashPrime
	}
	b = append(b, ']')
	setPadded(&m.js.scratch, b)
	return frag{uint32(start), uint32(len(b) - start)}, mix64(h), st
}

// nodeFrag returns the JSON of arena value n (not undefined): written in
// the scratch buffer, or, for a literal or a text, where it is already.
func (m *matcher) nodeFrag(n int32) frag {
	if n < 0 {
		return m.g.vt.litFrag[-n-1]
	}
	if nd := &m.nodes[n]; nd.kind == nStr {
		return m.textEntrySlow(nd.a, nd.b).f
	}
	start := len(m.js.scratch)
	setPadded(&m.js.scratch, m.appendNode(m.js.scratch, n))
	return frag{uint32(start), uint32(len(m.js.scratch) - start)}
}

// appendNode appends the JSON of arena value n to b (a copy of the
// scratch buffer, which it reads nothing of).
func (m *matcher) appendNode(b []byte, n int32) []byte {
	if n < 0 {
		return append(b, m.fragText(m.g.vt.litFrag[-n-1])...)
	}
	nd := &m.nodes[n]
	switch nd.kind {
	case nStr:
		return append(b, m.fragText(m.textEntrySlow(nd.a, nd.b).f)...)
	case nNum:
		return appendNumber(b, nd.num)
	case nVal:
		return appendJSON(b, m.vals[nd.a], false)
	case nObj:
		start := len(b)
		for _, kd := range m.kids[nd.a : nd.a+nd.b] {
			if kd.n == undefNode { // JSON.stringify drops undefined properties
				continue
			}
			b = append(b, m.g.vt.keyJSON[kd.key]...)
			b = m.appendNode(b, kd.n)
		}
		return closeObject(b, start)
	case nArr:
		b = append(b, '[')
		for i, kd := range m.kids[nd.a : nd.a+nd.b] {
			if i > 0 {
				b = append(b, ',')
			}
			if kd.n == undefNode { // and writes undefined elements as null
				b = append(b, "null"...)
				continue
			}
			b = m.appendNode(b, kd.n)
		}
		return append(b, ']')
	}
	return append(b, "null"...) // undefined, which callers do not ask for
}

// textPad is how many bytes past its end every text topObj copies can
// be read, and past the end of what it writes the scratch buffer has
// room for: copyText moves 64 bytes whatever the length, copyValue 128.
// The texts are in the scratch and text buffers (setPadded), the
// literals' buffer (valueTables.lit) and strSlab's chunks.
const textPad = 128

// braces is "{}" followed by textPad bytes, for copyText.
const braces = "{}" + "                                                                " +
	"                                                                "

// copyText copies n bytes from src to dst without a call: the first 64
// whatever n, then 16 at a time. It reads up to textPad bytes past
// src+n and writes as many past dst+n, which the callers have.
func copyText(dst, src unsafe.Pointer, n int) {
	copy64(dst, src)
	for i := 64; i < n; i += 16 {
		*(*[16]byte)(unsafe.Add(dst, i)) = *(*[16]byte)(unsafe.Add(src, i))
	}
}

// copyValue is copyText for the values of variables, the first 128
// bytes whatever n: wildcard texts are often longer than 64 bytes
// (code-editor: 35 mispredicted exits of copyText's loop an input, 0.9 %
// of its time).
func copyValue(dst, src unsafe.Pointer, n int) {
	copy64(dst, src)
	copy64(unsafe.Add(dst, 64), unsafe.Add(src, 64))
	for i := 128; i < n; i += 16 {
		*(*[16]byte)(unsafe.Add(dst, i)) = *(*[16]byte)(unsafe.Add(src, i))
	}
}

// copy64 copies 64 bytes from src to dst, 16 at a time: Go copies a
// [64]byte with a call to memmove, a [16]byte with two instructions.
func copy64(dst, src unsafe.Pointer) {
	*(*[16]byte)(dst) = *(*[16]byte)(src)
	*(*[16]byte)(unsafe.Add(dst, 16)) = *(*[16]byte)(unsafe.Add(src, 16))
	*(*[16]byte)(unsafe.Add(dst, 32)) = *(*[16]byte)(unsafe.Add(src, 32))
	*(*[16]byte)(unsafe.Add(dst, 48)) = *(*[16]byte)(unsafe.Add(src, 48))
}

// padWriter writes texts at the end of a buffer of n bytes at p, of
// capacity c, with copyText: it is a value, so that its fields stay in
// registers.
type padWriter struct {
	p    unsafe.Pointer
	n, c int
}

// put appends the k bytes at src (readable to textPad past them). The
// room is there (objRoom): k and textPad more.
func (w padWriter) put(src unsafe.Pointer, k int) padWriter {
	copyText(unsafe.Add(w.p, w.n), src, k)
	w.n += k
	return w
}

// putValue is put for a variable's value (copyValue).
func (w padWriter) putValue(src unsafe.Pointer, k int) padWriter {
	copyValue(unsafe.Add(w.p, w.n), src, k)
	w.n += k
	return w
}

// objNeed returns the room topObj needs for op, at most: no value of a
// variable is longer than the scratch buffer, the longest text of the
// input (textMax) or the longest literal.
func (m *matcher) objNeed(op *vop) int {
	return int(op.room) + int(op.nvars)*max(len(m.js.scratch), m.textMax(), m.g.vt.litMax)
}

// textMax returns the most bytes a text of the text buffer may take: a
// number, or a wildcard's text as JSON, at most the input between
// quotes, with each byte escaped (\u00XX) unless no text of the input
// needs an escape (jsonBufs.plain), and at most the buffer.
func (m *matcher) textMax() int {
	n := len(m.in) + 2
	if m.js.plain != 1 {
		n = 6*len(m.in) + 2
	}
	return min(max(n, maxNumberJSON), len(m.js.texts))
}

// maxNumberJSON is more than the longest number appendNumber writes
// ("-1.2345678901234567e-308").
const maxNumberJSON = 32

// outRoom returns the writer of a parse's value in the chunk of results'
// values (topObj), past its end, with room for it: the room it takes is
// counted (objSize), and a new chunk started when the chunk lacks it.
//
//go:noinline
func (m *matcher) outRoom(op *vop, ts *[topSlots]topSlot, present uint64) padWriter {
	need := objSize(op, ts, present)
	b := &m.js
	if cap(b.out)-len(b.out) < need {
		b.newOut(need)
	}
	return padWriter{unsafe.Pointer(unsafe.SliceData(b.out)), len(b.out), cap(b.out)}
}

// objRoom returns w with room for need bytes, which topObj takes for op
// (present: the properties it writes). A need above maxObjRoom (many
// variables, long texts) gets the room the object takes, counted.
//
//go:noinline
func (m *matcher) objRoom(w padWriter, op *vop, ts *[topSlots]topSlot, present uint64, need int) padWriter {
	if need > maxObjRoom {
		need = objSize(op, ts, present)
	}
	if w.c-w.n < need {
		w.p, w.c = growPadded(w.p, w.n, need)
	}
	return w
}

// objSize returns the room topObj takes for op with the properties in
// present, counted: op.room (its literals, keys and textPad) and the
// variables' values.
func objSize(op *vop, ts *[topSlots]topSlot, present uint64) int {
	n := int(op.room)
	for x := present; x != 0; x &= x - 1 {
		if p := &op.props[bits.TrailingZeros64(x)]; p.kind != vkLit {
			n += int(ts[p.arg&(topSlots-1)].f.n)
		}
	}
	return n
}

// maxObjRoom is the most room topObj makes for an object without
// counting what it takes.
const maxObjRoom = 1 << 16

// growPadded returns a new array, of capacity c, with the n bytes at p
// and room for k more and textPad.
//
//go:noinline
func growPadded(p unsafe.Pointer, n, k int) (unsafe.Pointer, int) {
	b := make([]byte, max(2*(n+k+textPad), 512))
	copy(b, unsafe.Slice((*byte)(p), n))
	return unsafe.Pointer(unsafe.SliceData(b)), len(b)
}

// setPadded is setBuf for the scratch and text buffers, which keep
// textPad bytes of room past their end (copyText reads them).
func setPadded(buf *[]byte, b []byte) {
	if cap(b)-len(b) < textPad {
		b = slices.Grow(b, textPad)
	}
	setBuf(buf, b)
}

// fragPtr returns where the text of f begins (fragText).
func (m *matcher) fragPtr(f frag) unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(unsafe.SliceData(m.fragBuf(f))), f.off&^fragSrc)
}
