package grammarbridge

// This file holds the matcher's value arena: values built as nodes in
// per-match slices that hold no Go pointers (no heap allocation, no GC
// write barrier), with their hash and stats. A rule's value inside a
// parse, and the outcomes a memoized rule compares, are built there; a
// parse's top-level value is written as JSON straight from its frame
// (jsonvalue.go), and an arena value inside it is written from there.

import (
	"math"
	"slices"
)

// vkind is the kind of a compiled value expression.
type vkind uint8

const (
	vkUndef vkind = iota // the undefined literal
	vkLit                // another literal: Grammar.lits[lit]
	vkVar                // a variable: the slot's value
	vkObj                // an object literal without spreads or repeated keys
	vkArr                // an array literal without spreads
)

// vexpr is a value expression compiled for the arena: only literals,
// variables, and object and array literals. An alternative whose value
// uses anything else keeps the evaluator (calt.vx is nil).
type vexpr struct {
	kind  vkind
	lit   int32    // vkLit
	slot  int32    // vkVar
	props []vprop  // vkObj
	kids  []*vexpr // vkArr
}

// vprop is a property of an object literal (or an element of an array
// literal), with what evalObj needs of it in one place: a variable's slot
// or a literal's id, read without a call.
type vprop struct {
	kind vkind  // of its value
	key  int32  // key id (Grammar.vt.keys)
	arg  int32  // vkVar: the slot; vkLit: the literal
	bit  uint64 // vkVar: the slot's bit in a frame's bound set (slotBit)
	kmul uint64 // the key's hash times 31, as the object hash uses it
	lsum uint64 // vkLit: the property's whole term of the hash
	x    *vexpr // its value, when neither
	// In an object's vop: pre is the property's key as JSON with a comma
	// before it and a colon after (`,"key":`), and whole, for a literal,
	// the whole property (`,"key":"text"`): topObj writes them.
	pre, whole string
}

// valueTables holds the constants the compiled value expressions refer to
// by index, so that arena nodes need no pointers.
type valueTables struct {
	alts     []altVal // by alternative id
	oneVar   []bool   // by alternative id: altVal.oneVar, for topValue's test of every rule it enters
	lits     []any    // boxed once; lits[0] is nil
	litHash  []uint64
	litJSON  []byte // the literals as JSON, one after another
	litFrag  []frag // by literal: its JSON in litJSON
	litMax   int    // the longest literal's JSON (topObj's room)
	keys     []string
	keyHash  []uint64
	keyJSON  []string         // by key: `,"key":`, as pre (from strs: readable textPad past its end)
	keyIndex map[string]int32 // while compiling
	slab     []vexpr          // while compiling
	nibs     [][4][16]uint16  // while compiling: vop.byNib's slab
	// While compiling: slabs of the ops' parts, and of their texts
	// (head, tail, whole) with a buffer they are made in.
	propSlab slab[vprop]
	opSlab   slab[vop]
	wordSlab slab[uint64]
	strs     strSlab
	text     []byte
}

func (t *valueTables) lit(v any) int32 {
	t.lits = append(t.lits, v)
	t.litHash = append(t.litHash, hashValue(v))
	o := len(t.litJSON)
	t.litJSON = slices.Grow(appendJSON(t.litJSON, v, false), textPad) // readable past the end (copyText)
	t.litFrag = append(t.litFrag, frag{uint32(o) | fragLits, uint32(len(t.litJSON) - o)})
	t.litMax = max(t.litMax, len(t.litJSON)-o)
	return int32(len(t.lits) - 1)
}

func (t *valueTables) key(k string) int32 {
	if i, ok := t.keyIndex[k]; ok {
		return i
	}
	if t.keyIndex == nil {
		t.keyIndex = map[string]int32{}
	}
	t.keys = append(t.keys, k)
	t.keyHash = append(t.keyHash, hashString(k))
	t.keyJSON = append(t.keyJSON, t.strs.str(append(appendJSONString([]byte{','}, k), ':')))
	t.keyIndex[k] = int32(len(t.keys) - 1)
	return int32(len(t.keys) - 1)
}

// altVal is what build needs of an alternative, in one table by id: how
// its value is made and, when that needs no call, the value itself.
type altVal struct {
	how    altHow
	nslots int32
	slot   int32 // avVar
	ntemp  int32 // avExpr: temporary slots its ops use, after the last value
	clear  bool  // its frame's variables are cleared, not tracked (buildFrame)
	top    bool  // as a parse's top-level frame, its value is written by topValue
	oneVar bool  // its value is its only variable ("-> x")
	v      nval  // avConst
	ops    []vop // avExpr: the last one builds the value
	alt    *calt // avEval
}

// vop builds one object or array literal from slots and literals only,
// into slot dst: an object or array literal inside another is built by an
// op before it, into a temporary slot after the frame's last value. A
// value is a straight list of ops, each a loop without calls.
type vop struct {
	kind  vkind // vkObj or vkArr
	dst   int32
	props []vprop // kind vkVar (arg: slot) or vkLit; an array's have no key
	// At most how many properties an object has, given its frame's bound
	// set: fixed plus those of vars in it (topObj takes no more room).
	vars  uint64
	fixed int32
	// An object of up to 64 properties: the bit set of those always
	// written (literals, temporary slots), and by variable slot (below
	// 63) the bit set of those that read it. topObj visits only the
	// properties of bound variables: most of a big object's are unbound.
	always uint64
	bySlot []uint64
	lits   uint64 // the bit set of its literal properties (topObj)
	// byNib, when the object has at most 16 properties and its
	// variables are all in slots below 16: byNib[k][x] is the bit set
	// of the properties that read a slot 4k+j for a bit j of x. topObj
	// takes a bound set's properties in four lookups instead of one for
	// every bound variable (code-editor: -1.2 % instructions), for 128
	// bytes an object (discord.agr: +2 % of its compiled size).
	byNib  *[4][16]uint16
	masked bool
	top    topHow // how topValue writes it
	lsum   uint64 // an object's literal properties' terms of its hash, summed
	// A topMasked op whose value is the only other property of the
	// last op, an object of literals ({ actionName: "send",
	// parameters: {...} }): that object, which topObj writes too, and
	// the place of this op's value in it.
	outer    *vop
	outerArg int32
	// head and tail are the outer object's JSON before and after this
	// op's value: `{"actionName":"send","parameters":` and `}`.
	head, tail string
	// room is what topObj writes of an object besides its variables'
	// values, at most: every key and literal property, the braces,
	// head and tail, and textPad; nvars is how many properties hold a
	// variable's value (topObj's room for them: objRoom).
	room, nvars int32
}

// topHow is how topValue writes an op's value.
type topHow uint8

const (
	topArray  topHow = iota // an array (topArr)
	topMasked               // an object of up to 64 properties that reads variables (topObj)
	topFixed                // one that reads none (topObj, all present; fuseOuter's outer object)
	topLong                 // an object of more than 64 properties (topObjLong)
)

// altHow is how an alternative's value is made from its frame.
type altHow uint8

const (
	avConst altHow = iota // v: a literal, its default text, or undefined
	avVar                 // the variable in slot
	avChild               // the value of the last rule or group matched in it
	avExpr                // its ops (evalOps)
	avEval                // the evaluator (altValue)
)

// compileValues prepares every alternative's value for the arena.
func (g *Grammar) compileValues() {
	t := &g.vt
	t.lit(nil) // nilLit
	t.alts = make([]altVal, len(g.alts))
	for i, a := range g.alts {
		av := altVal{how: avConst, nslots: int32(a.nslots)}
		switch a.implicit {
		case implicitText:
			a.textLit = t.lit(a.text)
			// TypeAgent records a rule's default text as a matched value.
			av.v = nval{n: litNode(a.textLit), st: mkStats(1, 0), h: a.textHash}
		case implicitSlot:
			av.how = avVar
		case implicitChild:
			av.how = avChild
		case implicitExplicit:
			a.vx = t.compile(a.value, a.vars)
			switch x := a.vx; {
			case x == nil:
				av.how, av.alt = avEval, a
			case x.kind == vkVar:
				av.how, av.slot = avVar, x.slot
			case x.kind == vkLit:
				av.v = nval{n: litNode(x.lit), h: t.litHash[x.lit]}
			case x.kind != vkUndef:
				next := av.nslots + 1
				av.how = avExpr
				av.ops = t.opSlab.make(opCount(x))[:0]
				t.flatten(x, &av.ops, &next)
				av.ntemp = next - av.nslots - 1
				t.fuseOuter(av.ops)
			}
		}
		av.clear = av.nslots >= 63 || av.how == avEval
		av.top = av.how == avExpr && !av.clear && av.nslots+1+av.ntemp <= topSlots
		av.oneVar = av.how == avVar && av.nslots == 1
		t.alts[i] = av
	}
	t.oneVar = make([]bool, len(t.alts))
	for i := range t.alts {
		t.oneVar[i] = t.alts[i].oneVar
	}
	t.keyIndex, t.slab, t.nibs = nil, nil, nil
	t.propSlab, t.opSlab, t.wordSlab, t.strs, t.text = slab[vprop]{}, slab[vop]{}, slab[uint64]{}, strSlab{}, nil
}

// opCount returns how many ops flatten makes for object or array
// literal x: one for it and one for each literal nested in it.
func opCount(x *vexpr) int {
	n := 1
	if x.kind == vkObj {
		for _, p := range x.props {
			if p.kind == vkObj || p.kind == vkArr {
				n += opCount(p.x)
			}
		}
		return n
	}
	for _, k := range x.kids {
		if k.kind != vkUndef && k.kind != vkLit && k.kind != vkVar {
			n += opCount(k)
		}
	}
	return n
}

// flatten appends the ops that build object or array literal x to ops,
// its nested literals first, each into slot *next (then incremented), and
// returns the slot of x.
func (t *valueTables) flatten(x *vexpr, ops *[]vop, next *int32) int32 {
	op := vop{kind: x.kind}
	if x.kind == vkObj {
		op.props = t.propSlab.make(len(x.props))[:0]
		for _, p := range x.props {
			switch p.kind {
			case vkUndef: // JSON.stringify drops undefined properties
				continue
			case vkObj, vkArr:
				p = vprop{kind: vkVar, key: p.key, arg: t.flatten(p.x, ops, next), bit: slotBit(1 << 30), kmul: p.kmul}
			}
			op.props = append(op.props, p)
		}
	} else {
		op.props = t.propSlab.make(len(x.kids))[:0]
		for _, k := range x.kids {
			p := vprop{kind: k.kind, bit: slotBit(k.slot)}
			switch k.kind {
			case vkUndef: // and writes undefined elements as null
				p = vprop{kind: vkLit, arg: 0}
			case vkLit:
				p.arg = k.lit
			case vkVar:
				p.arg = k.slot
			default:
				p = vprop{kind: vkVar, arg: t.flatten(k, ops, next), bit: slotBit(1 << 30)}
			}
			op.props = append(op.props, p)
		}
	}
	for i := range op.props {
		p := &op.props[i]
		if x.kind == vkObj {
			p.pre = t.keyJSON[p.key]
			if p.kind == vkLit {
				t.text = append(append(t.text[:0], p.pre...), t.fragText(t.litFrag[p.arg])...)
				p.whole = t.strs.str(t.text)
			}
		}
		if p.kind == vkLit {
			op.lsum += p.lsum
			op.room += int32(len(p.whole))
		} else {
			op.room += int32(len(p.pre))
			op.nvars++
		}
		// A literal, a temporary slot, a slot from 63 on (which share the
		// last bit) or a variable read again counts as fixed.
		if p.kind == vkVar && p.bit != 1<<63 && op.vars&p.bit == 0 {
			op.vars |= p.bit
		} else {
			op.fixed++
		}
	}
	if x.kind == vkObj && len(op.props) <= 64 {
		op.masked = true
		slots := 0
		for _, p := range op.props {
			if p.kind == vkVar && p.bit != 1<<63 {
				slots = max(slots, int(p.arg)+1)
			}
		}
		if slots > 0 {
			op.bySlot = t.wordSlab.make(slots)
		}
		for i, p := range op.props {
			if p.kind == vkVar && p.bit != 1<<63 {
				op.bySlot[p.arg] |= 1 << i
			} else {
				op.always |= 1 << i
			}
			if p.kind == vkLit {
				op.lits |= 1 << i
			}
		}
	}
	if op.masked && len(op.props) <= 16 && op.vars>>16 == 0 && len(op.bySlot) <= 16 {
		op.byNib = t.newNib()
		for slot, props := range op.bySlot {
			k, j := slot/4, slot%4
			for x := range 16 {
				if x&(1<<j) != 0 {
					op.byNib[k][x] |= uint16(props)
				}
			}
		}
	}
	op.room += 2 + textPad
	switch {
	case x.kind != vkObj:
		op.top = topArray
	case !op.masked:
		op.top = topLong
	case op.vars == 0:
		op.top = topFixed
	default:
		op.top = topMasked
	}
	op.dst = *next
	*next++
	*ops = append(*ops, op)
	return op.dst
}

// fuseOuter sets vop.outer when the last of ops is an object of
// literals and of the value of the op before it, which reads
// variables: { actionName: "send", parameters: { to: t, ... } }, the
// form of nearly every top-level value. topObj writes both objects in
// one call.
func (t *valueTables) fuseOuter(ops []vop) {
	if len(ops) < 2 {
		return
	}
	last, in := &ops[len(ops)-1], &ops[len(ops)-2]
	if last.top != topFixed || in.top != topMasked {
		return
	}
	arg := int32(-1)
	for i, p := range last.props {
		switch {
		case p.kind == vkLit:
		case p.kind == vkVar && p.arg == in.dst && arg < 0:
			arg = int32(i)
		default:
			return
		}
	}
	if arg >= 0 {
		in.outer, in.outerArg = last, arg
		// The outer object's properties but the value as topObj writes
		// them, with a comma before each, and the first comma the brace.
		b := t.text[:0]
		for _, p := range last.props[:arg] {
			b = append(b, p.whole...)
		}
		b = append(b, last.props[arg].pre...)
		b[0] = '{'
		in.head = t.strs.str(b)
		b = b[:0]
		for _, p := range last.props[arg+1:] {
			b = append(b, p.whole...)
		}
		in.tail = t.strs.str(append(b, '}'))
		in.room += int32(len(in.head) + len(in.tail))
		t.text = b
	}
}

// fragText returns the JSON of a literal's frag.
func (t *valueTables) fragText(f frag) []byte {
	o := f.off &^ fragSrc
	return t.litJSON[o : o+f.n]
}

// newNib allocates a table of vop.byNib from a slab.
func (t *valueTables) newNib() *[4][16]uint16 {
	if len(t.nibs) == cap(t.nibs) {
		t.nibs = make([][4][16]uint16, 0, 32)
	}
	t.nibs = t.nibs[:len(t.nibs)+1]
	return &t.nibs[len(t.nibs)-1]
}

// newVexpr allocates a vexpr from a slab.
func (t *valueTables) newVexpr(v vexpr) *vexpr {
	if len(t.slab) == cap(t.slab) {
		t.slab = make([]vexpr, 0, 64)
	}
	t.slab = append(t.slab, v)
	return &t.slab[len(t.slab)-1]
}

// compile compiles x, or returns nil when it uses more than the arena
// supports.
func (t *valueTables) compile(x ValueExpr, vars varSet) *vexpr {
	switch x := x.(type) {
	case *LitValue:
		if x.Value == Undefined {
			return t.newVexpr(vexpr{kind: vkUndef})
		}
		return t.newVexpr(vexpr{kind: vkLit, lit: t.lit(x.Value)})
	case *VarValue:
		s, ok := vars.slot(x.Name)
		if !ok {
			return nil
		}
		return t.newVexpr(vexpr{kind: vkVar, slot: int32(s)})
	case *ObjectValue:
		v := vexpr{kind: vkObj, props: t.propSlab.make(len(x.Props))[:0]}
		for _, p := range x.Props {
			if p.Spread {
				return nil
			}
			key := t.key(p.Key)
			if slices.ContainsFunc(v.props, func(q vprop) bool { return q.key == key }) {
				return nil // a key written twice
			}
			k := t.compile(p.Value, vars)
			if k == nil {
				return nil
			}
			vp := vprop{kind: k.kind, key: key, kmul: t.keyHash[key] * 31}
			switch k.kind {
			case vkVar:
				vp.arg, vp.bit = k.slot, slotBit(k.slot)
			case vkLit:
				vp.arg = k.lit
				vp.lsum = propHash(vp.kmul, t.litHash[k.lit])
			case vkUndef:
			default:
				vp.x = k
			}
			v.props = append(v.props, vp)
		}
		return t.newVexpr(v)
	case *ArrayValue:
		v := vexpr{kind: vkArr, kids: make([]*vexpr, 0, len(x.Elems))}
		for i, el := range x.Elems {
			if x.Spread[i] {
				return nil
			}
			k := t.compile(el, vars)
			if k == nil {
				return nil
			}
			v.kids = append(v.kids, k)
		}
		return t.newVexpr(v)
	}
	return nil
}

// nkind is the kind of an arena node.
type nkind uint8

const (
	nUndef nkind = iota // Undefined
	nLit                // Grammar.vt.lits[a]
	nVal                // matcher.vals[a], a value the evaluator built
	nStr                // the input's text a:b
	nNum                // num
	nObj                // properties matcher.kids[a:a+b]
	nArr                // elements matcher.kids[a:a+b]
)

// node is a value in the arena.
type node struct {
	kind nkind
	a, b int32
	num  float64
}

// kid is a property (key id and node) or an element (node) of a node.
type kid struct {
	key, n int32
}

// The first node of every match's arena is Undefined (and no other node
// is); nil is literal 0.
const (
	undefNode int32 = 0
	nilNode   int32 = -1 // litNode(0)
)

// nval is a value in the arena with the stats of what built it and its
// hash (equal to hashValue of the plain value it stands for). A text's
// also has its entry in matcher.strCache (ts, plus one), where its JSON
// is kept: topValue reads it without a look at the node.
type nval struct {
	n  int32
	ts int32
	st stats
	h  uint64
}

var hashNil = hashValue(nil)

// undefNval is the value of a variable that was not bound: the zero
// nval (Undefined hashes to 0), so that a frame's slots are cleared
// rather than copied.
var undefNval = nval{}

// resetArena empties the arena for a new match.
func (m *matcher) resetArena() {
	m.nodes = append(m.nodes[:0], node{kind: nUndef})
	m.kids = m.kids[:0]
	clear(m.vals)
	m.vals = m.vals[:0]
	if m.strCache == nil {
		m.strCache = new([strCacheSize]strEntry)
		m.js.top = new(topFrame)
	}
	m.clearStrCache()
	m.js.top.resume = 0
	m.js.scratch, m.js.texts, m.js.plain = m.js.scratch[:0], m.js.texts[:0], 0
}

// litNode is the node of literal i (Grammar.vt.lits[i]): literals are not
// stored in the arena but numbered below zero.
func litNode(i int32) int32 { return -i - 1 }

// nodeAt returns node n.
func (m *matcher) nodeAt(n int32) node {
	if n < 0 {
		return node{kind: nLit, a: -n - 1}
	}
	return m.nodes[n]
}

func (m *matcher) newNode(nd node) int32 {
	m.nodes = append(m.nodes, nd)
	return int32(len(m.nodes) - 1)
}

// growKids returns m.kids with k more entries (of no meaning until they
// are written).
func (m *matcher) growKids(k int) []kid {
	n := len(m.kids) + k
	if n > cap(m.kids) {
		return append(m.kids, make([]kid, k)...)
	}
	return m.kids[:n]
}

// valNode puts a value the evaluator built in the arena.
func (m *matcher) valNode(v any) int32 {
	if v == Undefined {
		return undefNode
	}
	m.vals = append(m.vals, v)
	return m.newNode(node{kind: nVal, a: int32(len(m.vals) - 1)})
}

// slotBit returns the bit of slot i in a frame's bound set: slots from 63
// on (and temporary slots) share the last bit, which is always set.
func slotBit(i int32) uint64 { return 1 << min(i, 63) }

// evalOps builds a value from its ops over a frame's slots fs (its
// variables, its last value, and room for the ops' temporary slots). The
// slots of variables not in bound (see buildFrame) were never written:
// they are undefined. The stats of the value are those of the variables
// it reads.
func (m *matcher) evalOps(ops []vop, fs []nval, bound uint64) nval {
	bound |= 1 << 63
	last := len(ops) - 1
	for i := range ops[:last] {
		op := &ops[i]
		if op.kind == vkObj {
			fs[op.dst] = m.evalObj(op.props, fs, bound)
		} else {
			fs[op.dst] = m.evalArr(op.props, fs, bound)
		}
	}
	if ops[last].kind == vkObj {
		return m.evalObj(ops[last].props, fs, bound)
	}
	return m.evalArr(ops[last].props, fs, bound)
}

// evalObj builds an object literal's value.
func (m *matcher) evalObj(props []vprop, fs []nval, bound uint64) nval {
	start := len(m.kids)
	m.kids = m.growKids(len(props))
	ks := m.kids[start:]
	ks = ks[:len(props)]
	sum, n := uint64(0), 0
	var st stats
	for i := range props {
		p := &props[i]
		if p.kind == vkLit { // its hash term is known
			ks[n] = kid{key: p.key, n: litNode(p.arg)}
			sum += p.lsum
			n++
			continue
		}
		if bound&p.bit == 0 { // undefined: JSON.stringify drops it
			continue
		}
		v := &fs[p.arg]
		st = st.add(v.st)
		if v.n == undefNode { // JSON.stringify drops undefined properties
			continue
		}
		ks[n] = kid{key: p.key, n: v.n}
		sum += propHash(p.kmul, v.h)
		n++
	}
	if n < len(props) {
		m.kids = m.kids[:start+n] // drop the undefined properties' entries
	}
	return nval{n: m.newNode(node{kind: nObj, a: int32(start), b: int32(n)}), st: st, h: mix64(objectSeed + sum)}
}

// evalArr builds an array literal's value.
func (m *matcher) evalArr(elems []vprop, fs []nval, bound uint64) nval {
	start := len(m.kids)
	m.kids = m.growKids(len(elems))
	ks := m.kids[start:]
	ks = ks[:len(elems)]
	h := uint64(arraySeed)
	var st stats
	for i := range elems {
		p := &elems[i]
		var v nval
		if p.kind == vkLit {
			v = nval{n: litNode(p.arg), h: m.g.vt.litHash[p.arg]}
		} else if bound&p.bit == 0 {
			v = nval{n: nilNode, h: hashNil} // undefined is written as null
		} else {
			v = fs[p.arg]
			st = st.add(v.st)
			if v.n == undefNode { // and writes undefined elements as null
				v.n, v.h = nilNode, hashNil
			}
		}
		ks[i] = kid{n: v.n}
		h = (h ^ v.h) * hashPrime
	}
	return nval{n: m.newNode(node{kind: nArr, a: int32(start), b: int32(len(elems))}), st: st, h: mix64(h)}
}

// eqNV reports whether arena value n equals plain value v (equalValue).
func (m *matcher) eqNV(n int32, v any) bool {
	nd := m.nodeAt(n)
	switch nd.kind {
	case nUndef:
		return v == Undefined
	case nLit:
		return equalValue(m.g.vt.lits[nd.a], v)
	case nVal:
		return equalValue(m.vals[nd.a], v)
	case nStr:
		s, ok := v.(string)
		return ok && s == m.in[nd.a:nd.b]
	case nNum:
		f, ok := v.(float64)
		return ok && (nd.num == f || math.IsNaN(nd.num) && math.IsNaN(f))
	case nObj:
		o, ok := v.(*Object)
		if !ok || o.Len() != int(nd.b) {
			return false
		}
		for _, k := range m.kids[nd.a : nd.a+nd.b] {
			x, ok := o.Get(m.g.vt.keys[k.key])
			if !ok || !m.eqNV(k.n, x) {
				return false
			}
		}
		return true
	case nArr:
		av, ok := v.([]any)
		if !ok || len(av) != int(nd.b) {
			return false
		}
		for i, k := range m.kids[nd.a : nd.a+nd.b] {
			if !m.eqNV(k.n, av[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// eqNN reports whether two arena values are equal (equalValue).
func (m *matcher) eqNN(a, b int32) bool {
	if a == b { // a shared text, or a literal
		return true
	}
	na, nb := m.nodeAt(a), m.nodeAt(b)
	if na.kind == nb.kind {
		switch na.kind {
		case nStr:
			return m.in[na.a:na.b] == m.in[nb.a:nb.b]
		case nNum:
			return na.num == nb.num || math.IsNaN(na.num) && math.IsNaN(nb.num)
		case nObj:
			if na.b != nb.b {
				return false
			}
			kb := m.kids[nb.a : nb.a+nb.b]
		props:
			for _, k := range m.kids[na.a : na.a+na.b] {
				for _, k2 := range kb {
					if k2.key == k.key {
						if !m.eqNN(k.n, k2.n) {
							return false
						}
						continue props
					}
				}
				return false
			}
			return true
		case nArr:
			if na.b != nb.b {
				return false
			}
			for i := int32(0); i < na.b; i++ {
				if !m.eqNN(m.kids[na.a+i].n, m.kids[nb.a+i].n) {
					return false
				}
			}
			return true
		}
	}
	return m.eqNV(a, m.mat(b))
}

// strCacheSize is the number of entries of the matcher's cache of
// wildcard texts (a power of two, at most 256: strUsed holds uint8). Every
// text a value is built from takes an entry (its node, its JSON), and one
// that another text took meanwhile is written again: with 64 entries
// code-editor wrote 1042 texts for 509 distinct ones, email 124 for
// 114; with 256, 747 and 114 (counted when they were boxed Go strings).
const strCacheSize = 256

// strEntry caches, for the input's text a:b (key a<<32|b, plus 1; 0 is
// empty), its arena node once made (node != 0) and its JSON once written
// (f.n != 0); its hash and UTF-16 length are computed with the first of
// the two made (valid when either is).
type strEntry struct {
	key  uint64
	h    uint64
	u16  int32
	node int32
	f    frag
}

// strAt returns the cache entry of the input's text a:b, emptied when it
// held another text. The same wildcard text is in many parses and results
// (or several times in one): it is hashed, measured and written once.
func (m *matcher) strAt(a, b int32) *strEntry {
	key := uint64(a)<<32 | uint64(b) + 1
	i := (uint64(a)*31 + uint64(b)) & (strCacheSize - 1)
	e := &m.strCache[i]
	if e.key != key {
		if e.key == 0 {
			m.strUsed = append(m.strUsed, uint8(i))
		}
		e.reset(key)
	}
	return e
}

// reset empties e for the text of key (0: for none).
func (e *strEntry) reset(key uint64) { *e = strEntry{key: key} }

// strVal returns the arena value of the input's text a:b, with its hash
// and stats. Its node is made once and cached: the same wildcard text is
// in many parses.
func (m *matcher) strVal(a, b int32) nval {
	e := m.strAt(a, b)
	if e.node == 0 {
		if e.f.n == 0 {
			s := m.in[a:b]
			e.h, e.u16 = hashString(s), int32(m.utf16Len(s))
		}
		e.node = m.newNode(node{kind: nStr, a: a, b: b})
	}
	return nval{n: e.node, ts: strSlot(a, b) + 1, st: mkStats(1, e.u16), h: e.h}
}

// strSlot returns the entry of the input's text a:b in matcher.strCache.
func strSlot(a, b int32) int32 { return int32((uint64(a)*31 + uint64(b)) & (strCacheSize - 1)) }

// dropNodes removes the arena's nodes from mark on, and the cached texts'
// nodes among them.
func (m *matcher) dropNodes(mark int) {
	if len(m.nodes) == mark {
		// None made (most parses: topValue makes none): the cache's
		// entries, up to 256, need no look (Best drops nearly every
		// parse's value).
		return
	}
	m.nodes = m.nodes[:mark]
	for _, i := range m.strUsed {
		if e := &m.strCache[i]; int(e.node) >= mark {
			e.node = 0
		}
	}
}

// utf16Len is utf16Len(s) for a text of the input, which needs no look
// at its bytes when the input is ASCII.
func (m *matcher) utf16Len(s string) int {
	if m.isASCII() {
		return len(s)
	}
	return utf16Len(s)
}

// clearStrCache empties the entries of the text cache in use.
func (m *matcher) clearStrCache() {
	for _, i := range m.strUsed {
		m.strCache[i].reset(0)
	}
	m.strUsed = m.strUsed[:0]
}
