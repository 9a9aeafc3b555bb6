package grammarbridge

import "slices"

// This file holds prefix sharing: alternatives that are tried one after
// the other and begin with the same parts (<Polite> ('create' | 'make')
// ('a')? ('new')? ... in several alternatives of a rule) have those parts
// matched once, and every way they matched is continued in each
// alternative, in the order the plain search would take them.
//
// The plain search tries alternative A, and for each way its first d parts
// match (in search order) the rest of A; then alternative B likewise. With
// sharing, the ways the common parts match are collected once (their trail
// segments, where they end, any wildcard left open), then A's rest is
// tried from each of them in order, then B's: the same parses, reaching
// record in the same order, so results and ranking ties are unchanged. The
// alternatives sharing a prefix form a tree (a run of alternatives sharing
// d parts may contain shorter runs sharing more), built per dispatch list
// at compile time.

// shareNode is a node of the prefix tree of a list of alternatives.
type shareNode struct {
	// alt, for a leaf, is the alternative to continue from its part
	// depth-of-the-parent-node on.
	alt *calt
	// For an inner node: every alternative below has the same parts
	// [0,depth); synth is an alternative of just those parts, stepped
	// to collect the ways they match.
	depth int
	synth *calt
	kids  []shareNode
	// first is the set of folded first bytes the alternatives below can
	// go on with after the parent node's parts, unless firstAny: the
	// matcher skips the node where the input goes on otherwise.
	first    byteSet
	firstAny bool
	// lit0 is alt's part (for an inner node: synth's part) at the parent
	// node's depth when it is a literal (literalAt), else nil.
	lit0 *cpart
	// wild0: that part is a wildcard, not optional. A way of the parent
	// node's parts that left a wildcard open does not go on into it (a
	// wildcard directly after another never matches, as step finds).
	wild0 bool
	// sel, for an inner node with up to 64 kids, gives for each folded
	// byte (128: the end of the input) the set of kids (bit k: kids[k])
	// that can go on with it.
	sel *[129]uint64

	// A literal node (litTo > 0) is a run of alternatives whose first
	// parts are literals with the same tokens [0,litTo): those tokens are
	// matched once. Its kids are leaves (litFrom: their literal goes on
	// from token litTo) or literal nodes sharing more tokens (litFrom is
	// the parent's litTo). lit is the first part of one of them; alts
	// are all of them, in order (to try one by one on non-ASCII input).
	litFrom, litTo int
	lit            *cpart
	alts           []*calt

	// walk, for an inner node: the shared parts after the parent node's
	// put nothing on the trail (literals, keywords whose value is not
	// used, simple rule parts), so with no wildcard open the ways they
	// match are listed by the walk of simple.go (matcher.walkShared).
	// Or they do but for a last part that is a wildcard (walkWild): the
	// walk goes over walkAlt (synth without it), and each way it lists
	// opens the wildcard.
	walk     bool
	walkAlt  *calt
	walkWild *cpart
}

// shareOut is one way the shared parts of a prefix-tree node matched.
// The ways one node's parts matched are chained by next, in order: the
// ways of an enclosing node may be collected while a nested node's are
// (its parts continue through the nested rule), so they interleave in
// matcher.shareOuts.
type shareOut struct {
	end    int32
	seg    int32 // the parts' trail: matcher.shareSegs[seg:seg+nseg]
	nseg   int32
	wstart int32 // start of a wildcard they left open, or -1
	wev    int32 // its evWild's index in the segment
	next   int32 // the next way in the same collection, or -1
	ch     int16 // the folded input byte at end after separators: -1 end of input, -2 unknown (or a wildcard open)
}

// shareCol is a collection of ways, being filled: the first and last
// index in matcher.shareOuts, or -1.
type shareCol struct {
	head, tail int32
}

// shareBuilder builds the prefix trees of a grammar's rules.
type shareBuilder struct {
	g      *Grammar
	synths map[shareKey]*calt
	// stack gathers a tree's nodes, which are copied out at their final
	// number (tree calls itself for the kids in between).
	stack []shareNode
}

type shareKey struct {
	alt   *calt
	depth int
}

// buildShare fills r.tree and r.firstTrees.
func (b *shareBuilder) buildShare(r *crule) {
	r.tree = b.tree(r.alts, 0)
	if r.firstLists != nil {
		r.firstTrees = make([][]shareNode, len(r.firstLists))
		for i, l := range r.firstLists {
			r.firstTrees[i] = b.tree(l, 0)
		}
	}
	if isKeywords(r) {
		// A group of keywords is matched in place (matcher.keywords),
		// with its trees when they are leaves and literal nodes only.
		lit, part := false, false
		for i := -1; i < len(r.firstTrees); i++ {
			t := r.tree
			if i >= 0 {
				t = r.firstTrees[i]
			}
			for _, nd := range t {
				lit = lit || nd.litTo > 0
				part = part || nd.synth != nil
			}
		}
		r.kwTrees = lit && !part
	}
}

// tree returns the prefix tree of alts, which all share parts
// [0,depth), or nil when no two consecutive alternatives share part depth.
func (b *shareBuilder) tree(alts []*calt, depth int) []shareNode {
	if !anyShared(alts, depth) {
		return nil // most lists: nothing to build and throw away
	}
	base := len(b.stack)
	shared := false
	for i := 0; i < len(alts); {
		j := i + 1
		for j < len(alts) && samePart(alts[i], alts[j], depth) {
			j++
		}
		if j-i == 1 {
			if depth == 0 {
				if k := litRun(alts[i:], 0); k > 1 {
					// Literals that begin with the same tokens.
					b.stack = append(b.stack, makeLitNode(alts[i:i+k], 0))
					shared = true
					i += k
					continue
				}
			}
			nd := shareNode{alt: alts[i], lit0: alts[i].literalAt(depth), wild0: alts[i].wildcardAt(depth)}
			nd.first, nd.firstAny = suffixFirst(alts[i], depth)
			b.stack = append(b.stack, nd)
			i = j
			continue
		}
		shared = true
		d := depth + 1
		for d < len(alts[i].parts) {
			all := true
			for _, a := range alts[i+1 : j] {
				if !samePart(alts[i], a, d) {
					all = false
					break
				}
			}
			if !all {
				break
			}
			d++
		}
		kids := b.tree(alts[i:j], d)
		if kids == nil {
			kids = make([]shareNode, j-i)
			for k, a := range alts[i:j] {
				kids[k] = shareNode{alt: a, lit0: a.literalAt(d), wild0: a.wildcardAt(d)}
				kids[k].first, kids[k].firstAny = suffixFirst(a, d)
			}
		}
		nd := shareNode{depth: d, synth: b.synth(alts[i], d), kids: kids, lit0: alts[i].literalAt(depth), wild0: alts[i].wildcardAt(depth), walk: trailFree(alts[i].parts[depth:d])}
		if last := &alts[i].parts[d-1]; !nd.walk && d-1 > depth && last.kind == partWildcard && !last.optional && trailFree(alts[i].parts[depth:d-1]) {
			nd.walk, nd.walkAlt, nd.walkWild = true, b.synth(alts[i], d-1), last
		}
		if len(kids) <= 64 {
			nd.sel = new([129]uint64)
			for k := range kids {
				for c := range 129 {
					if kids[k].firstAny || c < 128 && kids[k].first.has(byte(c)) {
						nd.sel[c] |= 1 << k
					}
				}
			}
		}
		for _, a := range alts[i:j] {
			f, any := suffixFirst(a, depth)
			nd.first.union(&f)
			nd.firstAny = nd.firstAny || any
		}
		b.stack = append(b.stack, nd)
		i = j
	}
	var nodes []shareNode
	if shared {
		nodes = slices.Clone(b.stack[base:])
	}
	clear(b.stack[base:])
	b.stack = b.stack[:base]
	return nodes
}

// anyShared reports whether tree(alts, depth) builds a tree: whether two
// consecutive alternatives share part depth or, at depth 0, the first
// tokens of their first literals.
func anyShared(alts []*calt, depth int) bool {
	for i := 0; i+1 < len(alts); i++ {
		if samePart(alts[i], alts[i+1], depth) || depth == 0 && litShared(alts[i], alts[i+1]) > 0 {
			return true
		}
	}
	return false
}

// litShared returns how many leading tokens the first parts of a and b
// have in common, when both are literals the matcher can test token by
// token on the lower-cased input (asciiToks, a first token that does not
// start with a separator or has lead) with the same spacing.
func litShared(a, b *calt) int {
	if len(a.parts) == 0 || len(b.parts) == 0 || a.spacing != b.spacing {
		return 0
	}
	p, q := &a.parts[0], &b.parts[0]
	if p.kind != partString || q.kind != partString || !p.asciiToks || !q.asciiToks || p.toks[0].sepFirst && p.toks[0].lead == 0 {
		return 0
	}
	n := 0
	for n < len(p.toks) && n < len(q.toks) && p.toks[n].lower == q.toks[n].lower && (n == 0 || p.seps[n-1] == q.seps[n-1]) {
		n++
	}
	return n
}

// litRun returns how many alternatives from alts[0] on have their first
// literals share more than from tokens with alts[0] (0 or 1: none).
func litRun(alts []*calt, from int) int {
	k := 1
	for k < len(alts) && litShared(alts[0], alts[k]) > from {
		k++
	}
	return k
}

// makeLitNode makes the literal node of alts, whose first literals share
// more than from tokens.
func makeLitNode(alts []*calt, from int) shareNode {
	to := len(alts[0].parts[0].toks)
	for _, a := range alts[1:] {
		to = min(to, litShared(alts[0], a))
	}
	nd := shareNode{litFrom: from, litTo: to, lit: &alts[0].parts[0], alts: alts, firstAny: true}
	for i := 0; i < len(alts); {
		if k := litRun(alts[i:], to); k > 1 {
			nd.kids = append(nd.kids, makeLitNode(alts[i:i+k], to))
			i += k
			continue
		}
		nd.kids = append(nd.kids, shareNode{alt: alts[i], litFrom: to, firstAny: true})
		i++
	}
	return nd
}

// synth returns an alternative made of a's first depth parts.
func (b *shareBuilder) synth(a *calt, depth int) *calt {
	k := shareKey{a, depth}
	if s, ok := b.synths[k]; ok {
		return s
	}
	s := &calt{id: int32(len(b.g.alts)), parts: a.parts[:depth:depth], spacing: a.spacing, nslots: a.nslots, firstAny: true}
	setMinFrom(s, make([]int32, len(s.parts)+1))
	b.g.alts = append(b.g.alts, s)
	if b.synths == nil {
		b.synths = map[shareKey]*calt{}
	}
	b.synths[k] = s
	return s
}

// samePart reports whether a and b both have a part i and match it the
// same way, leaving the same trail: same spacing, same kind, slot and
// flags, same tokens, and the same rule or an identical group.
func samePart(a, b *calt, i int) bool {
	if i >= len(a.parts) || i >= len(b.parts) || a.spacing != b.spacing {
		return false
	}
	return samePartOf(&a.parts[i], &b.parts[i], 0)
}

func samePartOf(p, q *cpart, depth int) bool {
	if p.kind != q.kind || p.slot != q.slot || p.valueUsed != q.valueUsed || p.keywords != q.keywords ||
		p.optional != q.optional || p.repeat != q.repeat || p.text != q.text || len(p.toks) != len(q.toks) {
		return false
	}
	for i := range p.toks {
		if p.toks[i].src != q.toks[i].src {
			return false
		}
	}
	for i := range p.seps {
		if p.seps[i] != q.seps[i] {
			return false
		}
	}
	return sameRule(p.rule, q.rule, depth)
}

// sameRule reports whether r and s are the same rule, or groups whose
// alternatives match alike and give the same values.
func sameRule(r, s *crule, depth int) bool {
	if r == s {
		return true
	}
	if r == nil || s == nil || depth > 8 || r.name != "(group)" || s.name != "(group)" || len(r.alts) != len(s.alts) {
		return false
	}
	for i, a := range r.alts {
		c := s.alts[i]
		if a.spacing != c.spacing || a.implicit != c.implicit || a.nslots != c.nslots || a.value != nil || c.value != nil ||
			a.text != c.text || len(a.parts) != len(c.parts) {
			return false
		}
		for j := range a.parts {
			if !samePartOf(&a.parts[j], &c.parts[j], depth+1) {
				return false
			}
		}
	}
	return true
}

// treeFor returns the prefix tree to use for the alternatives tryAlts
// tries (alts, the list altsFor gave), or nil to try them one by one.
func (r *crule) treeFor(ch int, known bool) []shareNode {
	if !known {
		return r.tree
	}
	if r.firstIdx == nil {
		if r.firstAny && allFirstAny(r.alts) {
			return r.tree
		}
		return nil // tryAlts filters r.alts by first byte
	}
	if ch < 0 {
		ch = 128
	}
	return r.firstTrees[r.firstIdx[ch]]
}

// tryTree explores the alternatives of a prefix tree whose parts
// [0,depth) matched in the ways chained from m.shareOuts[head], under
// continuation c, leaving the trail at n after each. head < 0 stands for
// one way that ends at pos with nothing on the trail (at depth 0, or after
// a shared literal).
func (m *matcher) tryTree(nodes []shareNode, depth int, head int32, pos, slot int, c int32, n int, sel *[129]uint64) {
	mask := ^uint64(0)
	// The input's first word at pos (see firstWord), found when a node
	// needs it: xs is 0 before, then 1 with x set, or 2 on non-ASCII
	// input.
	var x uint64
	xs := int8(0)
	if sel != nil && head >= 0 {
		mask = m.waysMask(sel, head)
	}
	for i := range nodes {
		if i < 64 && mask&(1<<i) == 0 {
			continue
		}
		nd := &nodes[i]
		if nd.litTo > 0 {
			m.tryLiteral(nd, pos, slot, c, n)
			if m.err != nil {
				return
			}
			continue
		}
		if a := nd.alt; a != nil {
			if head < 0 {
				i, e := depth, pos
				if p := nd.lit0; p != nil {
					if xs == 0 {
						x, xs = m.firstWordState(pos)
					}
					if xs == 1 && x&p.fmask != p.fword {
						continue
					}
					var ok bool
					if e, ok = m.stringAt(p, a.spacing, pos); !ok {
						continue
					}
					i++
				}
				m.beginStep(a, slot, c, i, e, n)
				if m.err != nil {
					return
				}
				continue
			}
			for o := head; o >= 0; o = m.shareOuts[o].next {
				out := m.shareOuts[o]
				i, e := depth, int(out.end)
				if !nd.goesOn(out.ch) || nd.wild0 && out.wstart >= 0 {
					continue
				}
				if p := nd.lit0; p != nil {
					if out.wstart >= 0 {
						// After the open wildcard: find the literal
						// before the trail is set up.
						t := m.nextCandidate(p, int(out.wstart))
						m.work++ // the step it saves
						if t < 0 {
							continue
						}
						w := m.resume(a, &out, slot, n)
						m.literalAfter(c, a, i, p, w, t)
						m.tn = n
						if m.err != nil {
							return
						}
						continue
					}
					var ok bool
					if e, ok = m.stringAt(p, a.spacing, e); !ok {
						continue
					}
					i++
				}
				w := m.resume(a, &out, slot, n)
				m.step(c, a, i, e, w)
				m.tn = n
				if m.err != nil {
					return
				}
			}
			continue
		}
		// Collect the ways parts [depth, nd.depth) match after each way
		// the parts before them did. A first shared part that is a
		// literal is tested before anything is set up.
		lit := nd.lit0
		i0, e0 := depth, pos
		if head < 0 && lit != nil {
			if xs == 0 {
				x, xs = m.firstWordState(pos)
			}
			if xs == 1 && x&lit.fmask != lit.fword {
				continue
			}
			var ok bool
			if e0, ok = m.stringAt(lit, nd.synth.spacing, pos); !ok {
				continue
			}
			i0++
			if i0 == nd.depth {
				// The literal was the only shared part: it matched in one
				// way, which leaves nothing on the trail, as at depth 0.
				m.work++ // the step collecting it would have taken
				m.tryTree(nd.kids, nd.depth, -1, e0, slot, c, n, nil)
				if m.err != nil {
					return
				}
				continue
			}
		}
		if head < 0 && nd.walk {
			// No trail to collect: list where the parts end.
			if h2 := m.walkShared(nd, i0, e0); h2 >= 0 && m.err == nil {
				m.tryTree(nd.kids, nd.depth, h2, 0, slot, c, n, nd.sel)
			}
			if m.err != nil {
				return
			}
			continue
		}
		d := int32(0)
		if c != top {
			d = m.conts[c].depth
		}
		ci := len(m.shareCols)
		m.shareCols = append(m.shareCols, shareCol{-1, -1})
		if head < 0 {
			m.collectFrom(nd.synth, i0, e0, noWild, ci, d, slot, n)
		} else {
			for o := head; o >= 0; o = m.shareOuts[o].next {
				out := m.shareOuts[o]
				if !nd.goesOn(out.ch) || nd.wild0 && out.wstart >= 0 {
					continue
				}
				i, e := depth, int(out.end)
				if lit != nil && out.wstart < 0 {
					var ok bool
					if e, ok = m.stringAt(lit, nd.synth.spacing, e); !ok {
						continue
					}
					i++
				}
				w := m.resume(nd.synth, &out, slot, n)
				m.collectFrom(nd.synth, i, e, w, ci, d, slot, n)
				if m.err != nil {
					break
				}
			}
		}
		h2 := m.shareCols[ci].head
		m.shareCols = m.shareCols[:ci]
		if m.err != nil {
			return
		}
		if h2 >= 0 {
			m.tryTree(nd.kids, nd.depth, h2, 0, slot, c, n, nd.sel)
			if m.err != nil {
				return
			}
		}
	}
}

// waysMask returns the kids (bits of the first 64; sel: a node's kids by
// the next byte) that can go on after one of the ways chained from
// m.shareOuts[head]: tryTree tries only those. Each way's kids were tested
// one by one before (goesOn), which costs a turn of the loop over the ways
// per kid that none can go on with (code-display: 14 % of its
// instructions, email 1 %; image's 'make' ('me')? ways mostly go on into
// the same kids).
func (m *matcher) waysMask(sel *[129]uint64, head int32) uint64 {
	mask := uint64(0)
	for o := head; o >= 0; o = m.shareOuts[o].next {
		if ch := m.shareOuts[o].ch; ch == -1 {
			mask |= sel[128]
		} else if ch >= 0 {
			mask |= sel[ch]
		} else {
			return ^uint64(0) // not known: any kid
		}
	}
	return mask
}

// collectFrom steps synth from part depth at pos with w open, collecting
// the ways it ends in collection ci; the trail holds its begin event (at
// n) and the segment before. d is the depth of the enclosing rules.
func (m *matcher) collectFrom(synth *calt, depth, pos int, w wild, ci int, d int32, slot, n int) {
	if m.tn == n && m.silent == 0 {
		m.push(beginEvent(synth.id, int32(slot)))
	}
	col := m.pushCont(cont{parent: top, collect: -1 - int32(ci), segStart: int32(m.segBase(n)), depth: d, serial: m.nextSerial(), outer: -1})
	m.step(col, synth, depth, pos, w)
	m.ctop--
	m.tn = n
}

// firstWord returns the eight bytes of the lower-cased input at the first
// place at or after pos that is not a separator, and true, on ASCII input:
// a literal p can match at pos only if x&p.fmask == p.fword, a test much
// cheaper than stringAt for the literals that fail (most of those tried).
func (m *matcher) firstWord(pos int) (x uint64, ok bool) {
	if m.asciiState != 1 {
		return 0, false
	}
	low := m.lower
	for pos < len(low) && asciiSep[low[pos]] {
		pos++
	}
	// At the end of the input the bytes mean nothing: every literal fails
	// there anyway.
	return m.word8(pos), true
}

// firstWordState is firstWord with its result as tryTree keeps it: the
// word and 1, or 2 on non-ASCII input.
func (m *matcher) firstWordState(pos int) (uint64, int8) {
	if x, ok := m.firstWord(pos); ok {
		return x, 1
	}
	return 0, 2
}

// goesOn reports whether the alternatives under nd may go on where the
// input's next byte is ch (a shareOut's).
func (nd *shareNode) goesOn(ch int16) bool {
	if nd.firstAny || ch == -2 {
		return true
	}
	return ch >= 0 && nd.first.has(byte(ch))
}

// literalAt returns a's part i when it is a literal, else nil. Callers
// match it before stepping into a (when no wildcard is open), so that an
// alternative that fails at once costs no step.
func (a *calt) literalAt(i int) *cpart {
	if i < len(a.parts) && a.parts[i].kind == partString {
		return &a.parts[i]
	}
	return nil
}

// wildcardAt reports whether part i of a is a wildcard that is not
// optional.
func (a *calt) wildcardAt(i int) bool {
	return i < len(a.parts) && a.parts[i].kind == partWildcard && !a.parts[i].optional
}

// litStart returns the one place at or after pos (skipping separators)
// where the first token t of a literal node can match on the lower-cased
// input, and false when its first byte that is not a separator is not
// there (see stringAt).
func (m *matcher) litStart(t *ctoken, pos int) (int, bool) {
	low := m.lower
	s := pos
	for s < len(low) && asciiSep[low[s]] {
		s++
	}
	if s == len(low) || low[s] != t.lower[t.lead] {
		return 0, false
	}
	q := s - t.lead
	return q, q >= pos
}

// tryLiteral explores the alternatives under the literal node nd (at
// depth 0, no wildcard open): the shared tokens are matched once from pos.
func (m *matcher) tryLiteral(nd *shareNode, pos, slot int, c int32, n int) {
	p := nd.lit
	if m.asciiState != 1 {
		// Not lower-cased: one alternative at a time.
		for _, a := range nd.alts {
			i, e := 0, pos
			if q := a.lit0; q != nil {
				var ok bool
				if e, ok = m.stringAt(q, a.spacing, pos); !ok {
					continue
				}
				i++
			}
			m.beginStep(a, slot, c, i, e, n)
			if m.err != nil {
				return
			}
		}
		return
	}
	q, ok := m.litStart(&p.toks[0], pos)
	if !ok {
		return
	}
	e, ok := m.tokensRange(p, 0, nd.litTo, q)
	if ok {
		m.tryLitKids(nd, e, slot, c, n)
	}
}

// tryLitKids goes on with the kids of literal node nd, whose tokens end
// at e.
func (m *matcher) tryLitKids(nd *shareNode, e, slot int, c int32, n int) {
	for i := range nd.kids {
		kd := &nd.kids[i]
		if kd.litTo > 0 {
			if e2, ok := m.tokensRange(kd.lit, kd.litFrom, kd.litTo, e); ok {
				m.tryLitKids(kd, e2, slot, c, n)
			}
		} else {
			a := kd.alt
			p := &a.parts[0]
			m.work++
			end, ok := m.tokensRange(p, kd.litFrom, len(p.toks), e)
			if !ok || !m.boundary(end, a.spacing) {
				continue
			}
			m.beginStep(a, slot, c, 1, end, n)
		}
		if m.err != nil {
			return
		}
	}
}

// keywordTree is matcher.keywords with no wildcard open, on ASCII input,
// along the prefix tree of the group's alternatives (leaves and literal
// nodes): keywords that begin with the same tokens match them once.
func (m *matcher) keywordTree(nodes []shareNode, c int32, a *calt, i int, p *cpart, pos, n int) {
	for k := range nodes {
		nd := &nodes[k]
		if nd.litTo > 0 {
			q, ok := m.litStart(&nd.lit.toks[0], pos)
			if !ok {
				continue
			}
			if e, ok := m.tokensRange(nd.lit, 0, nd.litTo, q); ok {
				m.keywordLitKids(nd, e, c, a, i, p, n)
			}
		} else {
			sub := nd.alt
			m.work++
			if e, ok := m.stringAt(&sub.parts[0], sub.spacing, pos); ok {
				m.keywordMatched(sub, e, c, a, i, p, n)
			}
		}
		if m.err != nil {
			return
		}
	}
}

// keywordLitKids goes on with the kids of the literal node nd of a group
// of keywords, whose tokens end at e.
func (m *matcher) keywordLitKids(nd *shareNode, e int, c int32, a *calt, i int, p *cpart, n int) {
	for k := range nd.kids {
		kd := &nd.kids[k]
		if kd.litTo > 0 {
			if e2, ok := m.tokensRange(kd.lit, kd.litFrom, kd.litTo, e); ok {
				m.keywordLitKids(kd, e2, c, a, i, p, n)
			}
		} else {
			sub := kd.alt
			sp := &sub.parts[0]
			m.work++
			if end, ok := m.tokensRange(sp, kd.litFrom, len(sp.toks), e); ok && m.boundary(end, sub.spacing) {
				m.keywordMatched(sub, end, c, a, i, p, n)
			}
		}
		if m.err != nil {
			return
		}
	}
}

// keywordMatched goes on after keyword sub of p (part i of a) matched up
// to e: the same events as entering the group (none when its value is not
// used), then part i+1.
func (m *matcher) keywordMatched(sub *calt, e int, c int32, a *calt, i int, p *cpart, n int) {
	if p.valueUsed && m.silent == 0 {
		m.push(beginEvent(sub.id, int32(p.slot)))
		m.push(event{kind: evEnd})
	}
	if m.work < succMemoAfter { // stepMemo written out (it is not inlined)
		m.step(c, a, i+1, e, noWild)
	} else {
		m.stepSuccMemo(c, a, i+1, e, noWild)
	}
	m.tn = n
}

// beginStep puts a's begin event on the trail and steps into it from
// part i at pos, leaving the trail at n.
func (m *matcher) beginStep(a *calt, slot int, c int32, i, pos, n int) {
	if m.silent == 0 {
		m.push(beginEvent(a.id, int32(slot)))
	}
	m.step(c, a, i, pos, noWild)
	m.tn = n
}

// resume puts a's begin event and the trail of the shared parts o on the
// trail at n, and returns the wildcard they left open.
func (m *matcher) resume(a *calt, o *shareOut, slot, n int) wild {
	m.tn = n
	if m.silent == 0 {
		m.push(beginEvent(a.id, int32(slot)))
	}
	if o.nseg == 1 {
		// Most often the one event of a wildcard the shared parts
		// opened (walkShared): pushed, without a copy's call.
		m.push(m.shareSegs[o.seg])
	} else if o.nseg > 0 {
		m.pushSeg(m.shareSegs[o.seg : o.seg+o.nseg])
	}
	if o.wstart < 0 {
		return noWild
	}
	return wild{start: int(o.wstart), ev: m.segBase(n) + int(o.wev)}
}

// segBase is where the segment of shared parts begins on the trail when
// the alternative's begin event is at n: after it, or at n when silent.
func (m *matcher) segBase(n int) int {
	if m.silent > 0 {
		return n
	}
	return n + 1
}

// collectShare stores one way the shared parts stepped under continuation
// c (a collecting one: cont.collect < 0) matched: they end at pos, with w
// open.
func (m *matcher) collectShare(c int32, pos int, w wild) {
	k := &m.conts[c]
	m.succ++
	seg := m.tbuf[k.segStart:m.tn]
	m.work += 1 + len(seg)/8 // copying is work too: the limit bounds the memory
	o := shareOut{end: int32(pos), seg: int32(len(m.shareSegs)), nseg: int32(len(seg)), wstart: -1, next: -1, ch: -2}
	if w.start < 0 {
		if ch, known := m.firstByte(pos, noWild); known {
			o.ch = int16(ch)
		}
	} else {
		// Sharing starts with no wildcard open: this one was opened by
		// the shared parts, and its event is in the segment.
		o.wstart, o.wev = int32(w.start), int32(w.ev)-k.segStart
	}
	m.shareSegs = append(m.shareSegs, seg...)
	i := int32(len(m.shareOuts))
	m.shareOuts = append(m.shareOuts, o)
	col := &m.shareCols[-1-k.collect]
	if col.tail >= 0 {
		m.shareOuts[col.tail].next = i
	} else {
		col.head = i
	}
	col.tail = i
}
