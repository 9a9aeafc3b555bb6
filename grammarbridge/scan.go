package grammarbridge

// This file holds the character-level primitives: literal tokens, numbers,
// separators and word boundaries, as TypeAgent's regular expressions
// match them.

import (
	"bytes"
	le "encoding/binary"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// firstByte returns the folded first byte of the input at pos after
// separators (-1 at the end of the input), and whether it is known: it is
// not when a wildcard is open (the next part may be anywhere) or the input
// there is not ASCII. It reads m.lower, which lowerInput fills for any
// input (bytes that are not ASCII copied).
func (m *matcher) firstByte(pos int, w wild) (int, bool) {
	if w.start >= 0 {
		return 0, false
	}
	low := m.lower
	for q := pos; uint(q) < uint(len(low)); q++ {
		if c := low[q]; !asciiSep[c] {
			if c >= utf8.RuneSelf {
				return 0, false
			}
			return int(c), true
		}
	}
	return -1, true
}

// setWild ends the pending wildcard w at end; its text, trimmed of
// separators, must not be empty.
func (m *matcher) setWild(w wild, end int) bool {
	if m.asciiState != 1 {
		return m.setWildRunes(w, end)
	}
	// 0 <= w.start <= end <= len(m.lower): the bytes are read without
	// bounds checks (and with no call on this path, nothing is spilled).
	p := unsafe.Pointer(unsafe.SliceData(m.lower))
	a, b := w.start, end
	for a < b && asciiSep[*(*byte)(unsafe.Add(p, a))] {
		a++
	}
	for b > a && asciiSep[*(*byte)(unsafe.Add(p, b-1))] {
		b--
	}
	if a == b {
		return false
	}
	ev := &m.tbuf[w.ev]
	ev.a, ev.b = int32(a), int32(b)
	return true
}

// setWildRunes is setWild on input that is not ASCII.
func (m *matcher) setWildRunes(w wild, end int) bool {
	a, b := trimSeps(m.in, w.start, end)
	if a == b {
		return false
	}
	ev := &m.tbuf[w.ev]
	ev.a, ev.b = int32(a), int32(b)
	return true
}

// nextCandidate returns the first position >= from where p's first token
// may start, or -1. For an ASCII token in ASCII input it reads the token's
// list of places (occur.go), or searches the lower-cased input when the
// token has no search id; otherwise every rune start is a candidate.
func (m *matcher) nextCandidate(p *cpart, from int) int {
	tok := &p.toks[0]
	// The token's places in this input, listed by its first search
	// (occur.go). A list of this input's generation was made on ASCII
	// input, and list 0 is never made.
	o := &m.occ
	id := int(tok.search)
	if uint(id) < uint(len(o.slots)) && o.slots[id].gen == o.gen {
		s := &o.slots[id]
		lo, hi := s.lo, s.hi
		if hi-lo > occLinear {
			lo = o.search(lo, hi, from)
		}
		for i := lo; i < hi; i++ {
			if t := int(o.pos[i]); t >= from {
				return t
			}
		}
		return -1
	}
	if id > 0 && m.asciiState == 1 {
		if !m.occReady(id) {
			m.occGrow(id)
		}
		return m.occBuild(tok, from)
	}
	return m.nextCandidateScan(tok, from)
}

// nextCandidateScan is nextCandidate for a token with no list: apart, so
// that reading or making a list (image: 3.1 reads and 4.7 lists an input,
// email 9.7 and 4.1; every token has a list in the reference grammars)
// needs none of its stack frame (image -34 instructions an input, email
// -43).
func (m *matcher) nextCandidateScan(tok *ctoken, from int) int {
	if from >= len(m.in) {
		return -1
	}
	if !tok.ascii || !m.isASCII() {
		for from < len(m.in) && !utf8.RuneStart(m.in[from]) {
			from++
		}
		if from >= len(m.in) {
			return -1
		}
		return from
	}
	if len(m.lower)-from > pairsAfter && tok.hasPair {
		// A long search: first test that the first two bytes of the
		// token's rest are somewhere in the input (the set is built on
		// the first such search).
		if !m.pairsDone {
			m.fillPairs()
		}
		if h := tok.pair; m.pairs[h>>6]&(1<<(h&63)) == 0 {
			return -1
		}
	}
	if k := tok.lead; k > 0 {
		// Search for the rest of the token ('send': send'), rarer than
		// the separators it starts with, then test those.
		for q := from + k; q < len(m.lower); {
			j := bytes.Index(m.lower[q:], tok.rest)
			if j < 0 {
				return -1
			}
			if t := q + j - k; string(m.lower[t:q+j]) == tok.lower[:k] {
				return t
			}
			q += j + 1
		}
		return -1
	}
	j := bytes.Index(m.lower[from:], tok.lowerB)
	if j < 0 {
		return -1
	}
	return from + j
}

// pairsAfter is the length of the input left to search above which a
// token's first two bytes are first looked up in the set of the input's
// byte pairs: bytes.Index is cheap on short inputs, building the set is
// not.
const pairsAfter = 64

// fillPairs builds the hashed set of the byte pairs of the lower-cased
// ASCII input.
func (m *matcher) fillPairs() {
	m.pairsDone = true
	var set [pairWords]uint64
	low := m.lower
	for i := 1; i < len(low); i++ {
		h := pairHash(low[i-1], low[i])
		set[h>>6] |= 1 << (h & 63)
	}
	m.pairs = set
}

// pairWords is the size of the matcher's set of the input's byte pairs.
const pairWords = 16

// pairHash hashes a byte pair into the pair set.
func pairHash(a, b byte) uint {
	return (uint(a)*37 ^ uint(b)) & (pairWords*64 - 1)
}

// isASCII reports whether the input is all ASCII (m.lower then holds it
// lower-cased).
func (m *matcher) isASCII() bool {
	return m.asciiState == 1
}

// lowerInput lower-cases the input into m.lower and sets m.asciiState,
// eight bytes at a time. In input that is not ASCII, only the ASCII bytes
// are lower-cased (see lowerRest).
func (m *matcher) lowerInput() {
	in := m.in
	if cap(m.lower) < len(in)+8 {
		m.lower = make([]byte, len(in), len(in)+len(in)/2+8)
	}
	low := m.lower[:len(in)]
	// Eight bytes can be loaded at any position of the input (see
	// tokenWord); the ones past its end are never compared.
	m.lower, m.lowerPad, m.asciiState, m.pairsDone = low, m.lower[:len(in)+8], 1, false
	m.occ.reset()
	n := len(in)
	if n < 8 {
		for i := range n {
			c := in[i]
			if c >= utf8.RuneSelf {
				lowerRest(unsafe.Slice(unsafe.StringData(in[i:]), n-i), low[i:])
				m.asciiState = 2
				return
			}
			low[i] = c | asciiUpper[c]
		}
		return
	}
	// Words read and written in place, without slicing: every word is
	// within the input (n >= 8; the last one may overlap the one before,
	// whose bytes, lower-cased already, are ASCII and stay as they are).
	src, dst := unsafe.Pointer(unsafe.StringData(in)), unsafe.Pointer(unsafe.SliceData(low))
	i := 0
	for ; i+16 <= n; i += 16 {
		x, y := load8(src, i), load8(src, i+8)
		if (x|y)&asciiHigh != 0 {
			break
		}
		store8(dst, i, lowerWord(x))
		store8(dst, i+8, lowerWord(y))
	}
	for ; i < n; i += 8 {
		i = min(i, n-8)
		x := load8(src, i)
		if x&asciiHigh != 0 {
			lowerRest(unsafe.Slice(unsafe.StringData(in[i:]), n-i), low[i:])
			m.asciiState = 2
			return
		}
		store8(dst, i, lowerWord(x))
	}
}

// lowerWord lower-cases the ASCII letters of a word of ASCII bytes. Per
// byte: the high bit of geA is set when the byte is >= 'A', that of gtZ
// when it is > 'Z', and then that of geA too: they differ for the upper-
// case letters (an exclusive or, one instruction fewer than geA&^gtZ).
func lowerWord(x uint64) uint64 {
	geA := x + 0x3f3f3f3f3f3f3f3f // 0x80 - 'A'
	gtZ := x + 0x2525252525252525 // 0x7f - 'Z'
	return x | ((geA^gtZ)&asciiHigh)>>2
}

// store8 writes x as eight little-endian bytes at p+i.
func store8(p unsafe.Pointer, i int, x uint64) {
	le.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(p, i))[:], x)
}

// lowerRest lower-cases the ASCII letters of src into dst and copies the
// other bytes: the rest of an input that is not ASCII.
func lowerRest(src, dst []byte) {
	for i, c := range src {
		dst[i] = c | asciiUpper[c]
	}
}

// nextNumberStart returns the first position >= from where a number may
// start (numberStart: a digit or a sign), or -1: what a number searched
// after an open wildcard tries. On ASCII input it tests eight bytes of
// m.lower at a time (as lowerInput does): per byte, the high bit of x+0x55
// is set when the byte is >= '+' (0x80 - 0x2b), that of x+0x46 when it is
// > '9' (0x7f - 0x39); the bytes between, digits, signs and ",./", are
// then checked one by one. (Bytes past the input, in the padding, may be
// anything: a carry out of one only reaches the bytes above it.)
func (m *matcher) nextNumberStart(from int) int {
	from = max(from, 0)
	if m.asciiState != 1 {
		for t := from; t < len(m.in); t++ {
			if numberStart[m.in[t]] {
				return t
			}
		}
		return -1
	}
	p, n := unsafe.Pointer(unsafe.SliceData(m.lowerPad)), len(m.lower)
	for i := from; i < n; i += 8 {
		x := load8(p, i) // i < n: within the padding
		for f := (x + 0x5555555555555555) &^ (x + 0x4646464646464646) & asciiHigh; f != 0; f &= f - 1 {
			j := i + bits.TrailingZeros64(f)>>3
			if j >= n {
				return -1
			}
			if numberStart[*(*byte)(unsafe.Add(p, j))] {
				return j
			}
		}
	}
	return -1
}

// asciiHigh has the high bit of each byte of a word.
const asciiHigh = 0x8080808080808080

// numberStart is true for the bytes a number can start with: digits and
// signs.
var numberStart = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	t['+'], t['-'] = true, true
	return t
}()

// asciiClass is 1 for ASCII letters, 2 for digits, 0 for the other ASCII
// bytes: in auto spacing, a separator is needed between two bytes of the
// same non-zero class (needsSep).
var asciiClass = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = 1, 1
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = 2
	}
	return t
}()

// asciiUpper is 0x20 for the ASCII upper-case letters, 0 for the other
// bytes: c|asciiUpper[c] lower-cases c.
var asciiUpper = func() (t [256]byte) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = 0x20
	}
	return t
}()

// stringAt matches a literal part at pos, skipping separators lazily (the
// fewest that let the part match), as TypeAgent's regular expression does.
func (m *matcher) stringAt(p *cpart, sp Spacing, pos int) (int, bool) {
	if t := &p.toks[0]; m.asciiState == 1 && (t.lead > 0 || t.ascii && !t.sepFirst) {
		// ASCII input, lower-cased, and a first token that starts with a
		// letter or symbol, which no separator matches, or with lead
		// separators ('send'): its first other character can only be the
		// first one that is not a separator after pos (every place before
		// it is a separator), so only one place can match.
		low := m.lower
		s := pos
		for uint(s) < uint(len(low)) && asciiSep[low[s]] {
			s++
		}
		q := s - t.lead
		if q < pos {
			return 0, false
		}
		if !p.asciiToks {
			return m.tokensFrom(p, sp, 0, q)
		}
		// The first token's first eight bytes compared as a word (most
		// literals are one short token; the callers have mostly chosen
		// it by the byte at s already), the others (tokensRange), then
		// the boundary after them. At the end of the input, the token
		// (longer than its lead) does not fit.
		e := q + len(t.lower)
		if e > len(low) || m.word8(q)&t.mask != t.word {
			return 0, false
		}
		// The bytes past the first eight one by one: a quoted word
		// ('caption') has one to three, which a string comparison's
		// call cost more (image -36 instructions an input).
		for j := q + 8; j < e; j++ {
			if low[j] != t.lower[j-q] {
				return 0, false
			}
		}
		if len(p.toks) > 1 {
			var ok bool
			if e, ok = m.tokensRange(p, 1, len(p.toks), e); !ok {
				return 0, false
			}
		}
		if sp == SpacingAuto && e < len(low) {
			if ca := asciiClass[low[e-1]]; ca != 0 && ca == asciiClass[low[e]] {
				return 0, false
			}
			return e, true
		}
		if !m.boundary(e, sp) {
			return 0, false
		}
		return e, true
	}
	if t := &p.toks[0]; t.ascii && !t.sepFirst {
		// The first token starts with a letter or symbol, which no
		// separator matches: it can only match after all the separators.
		// With only ASCII separators before it, test that place only.
		q := pos
		for q < len(m.in) && m.in[q] < utf8.RuneSelf && asciiSep[m.in[q]] {
			q++
		}
		if q == len(m.in) {
			return 0, false
		}
		if c := m.in[q]; c < utf8.RuneSelf {
			if c|asciiUpper[c] != t.lower[0] {
				return 0, false
			}
			return m.tokensAt(p, sp, q)
		}
	}
	return m.stringAtLazy(p, sp, pos)
}

// stringAtLazy is stringAt trying every place from pos, skipping one
// separator at a time.
func (m *matcher) stringAtLazy(p *cpart, sp Spacing, pos int) (int, bool) {
	for {
		if e, ok := m.tokensAt(p, sp, pos); ok {
			return e, true
		}
		if pos >= len(m.in) {
			return 0, false
		}
		r, n := utf8.DecodeRuneInString(m.in[pos:])
		if !isSep(r) {
			return 0, false
		}
		pos += n
	}
}

// tokensAt matches p's tokens starting exactly at pos, followed by a valid
// boundary, and returns the end.
func (m *matcher) tokensAt(p *cpart, sp Spacing, pos int) (int, bool) {
	if p.asciiToks && m.asciiState == 1 {
		return m.tokensASCII(p, sp, pos)
	}
	return m.tokensFrom(p, sp, 0, pos)
}

// tokensAtCandidate is tokensAt at a place nextCandidate returned: on
// ASCII input the first token is known to be there. When the tokens
// match but the boundary after them does not hold, it returns where they
// end and false: TypeAgent's search for a literal after a wildcard goes
// on from there (matcher.skipInside). When they do not match, e is -1.
func (m *matcher) tokensAtCandidate(p *cpart, sp Spacing, t int) (e int, ok bool) {
	if !p.asciiToks || m.asciiState != 1 {
		if e, ok := m.tokensAt(p, sp, t); ok {
			return e, true
		}
		if sp == SpacingAuto || sp == SpacingRequired {
			if e, ok := m.tokensAt(p, SpacingNone, t); ok { // no boundary needed
				return e, false
			}
		}
		return -1, false
	}
	e = t + len(p.toks[0].lower)
	if len(p.toks) > 1 {
		if e, ok = m.tokensRange(p, 1, len(p.toks), e); !ok {
			return -1, false
		}
	}
	// The boundary after the token under auto spacing, as stringAt
	// tests it (e > 0: the token is not empty), without boundary's call.
	if low := m.lower; sp == SpacingAuto && uint(e) < uint(len(low)) {
		if ca := asciiClass[low[e-1]]; ca != 0 && ca == asciiClass[low[e]] {
			return e, false
		}
		return e, true
	}
	return e, m.boundary(e, sp)
}

// skipInside is the search for literal p after a wildcard when the place
// found after its last match at t, ending at e, lies inside that match
// (t < place < e): it returns the next place from e. TypeAgent's global
// expression goes on where its last match ended, whether the boundary
// after it or an empty wildcard rejected that match or the parts after it
// failed, so a place inside a match is never tried: "b a a a" gives
// nothing for $(x:wildcard) a a, which would match from the second "a a"
// on. Such a place is rare (the first token must begin again inside the
// literal: "thathat", "again and again"): the callers look from t+1 and
// call this only when what they find is before e, so that finding none
// costs nothing more. It sets matcher.skipped: the places found then
// depend on where the search began (simple.go keeps a walk's ends only
// without).
func (m *matcher) skipInside(p *cpart, e int) int {
	m.skipped = true
	return m.nextCandidate(p, e)
}

// tokensASCII is tokensFrom for ASCII input and a part whose tokens are
// ASCII and, but the first, do not start with a separator or have lead:
// each token after the first can only match after all the separators that
// follow the one before, or lead bytes before their end, so no
// backtracking is needed.
func (m *matcher) tokensASCII(p *cpart, sp Spacing, pos int) (int, bool) {
	low := m.lower
	last := len(p.toks) - 1
	for i := range p.toks {
		e, ok := m.tokenWord(&p.toks[i], pos)
		if !ok {
			return 0, false
		}
		if i == last {
			if m.boundary(e, sp) {
				return e, true
			}
			return 0, false
		}
		k := p.seps[i]
		if k == sepNone {
			pos = e
			continue
		}
		s := e
		for uint(s) < uint(len(low)) && asciiSep[low[s]] {
			s++
		}
		// A token that starts with lead separators can only start lead
		// bytes before s (see stringAt).
		q := s - p.toks[i+1].lead
		if q < e || k == sepRequired && q == e {
			return 0, false
		}
		pos = q
	}
	return 0, false
}

// tokensRange matches the tokens [from,to) of p (asciiToks, ASCII
// input): the first at pos when from is 0, otherwise after the separators
// that follow token from-1, which ends at pos. It returns the end of
// token to-1; there is no boundary test.
func (m *matcher) tokensRange(p *cpart, from, to, pos int) (int, bool) {
	low := m.lower
	lp := unsafe.Pointer(unsafe.SliceData(m.lowerPad))
	for i := from; i < to; i++ {
		t := &p.toks[i]
		if i > 0 {
			if k := p.seps[i-1]; k != sepNone {
				s := pos
				for uint(s) < uint(len(low)) && asciiSep[low[s]] {
					s++
				}
				q := s - t.lead // see tokensASCII
				if q < pos || k == sepRequired && q == pos {
					return 0, false
				}
				pos = q
			}
		}
		// tokenWord, with the word read in place (pos >= 0, and the
		// token ends within the input).
		e := pos + len(t.lower)
		if e > len(low) || load8(lp, pos)&t.mask != t.word {
			return 0, false
		}
		for j := pos + 8; j < e; j++ {
			if low[j] != t.lower[j-pos] {
				return 0, false
			}
		}
		pos = e
	}
	return pos, true
}

func (m *matcher) tokensFrom(p *cpart, sp Spacing, i, pos int) (int, bool) {
	e, ok := m.tokenAt(&p.toks[i], pos)
	if !ok {
		return 0, false
	}
	if i == len(p.toks)-1 {
		if m.boundary(e, sp) {
			return e, true
		}
		return 0, false
	}
	k := p.seps[i]
	if k == sepNone {
		return m.tokensFrom(p, sp, i+1, e)
	}
	// Separators between tokens are matched greedily, backing off one at a
	// time: only needed when the next token itself starts with one.
	s := e
	for s < len(m.in) {
		r, n := utf8.DecodeRuneInString(m.in[s:])
		if !isSep(r) {
			break
		}
		s += n
	}
	min := e
	if k == sepRequired {
		if s == e {
			return 0, false
		}
		_, n := utf8.DecodeRuneInString(m.in[e:])
		min = e + n
	}
	if !p.toks[i+1].sepFirst {
		return m.tokensFrom(p, sp, i+1, s)
	}
	for q := s; q >= min; {
		m.work++
		if end, ok := m.tokensFrom(p, sp, i+1, q); ok {
			return end, true
		}
		if q == min {
			break
		}
		_, n := utf8.DecodeLastRuneInString(m.in[:q])
		q -= n
	}
	return 0, false
}

// tokenWord compares an ASCII token with the lower-cased ASCII input at
// pos, its first eight bytes as one word.
func (m *matcher) tokenWord(t *ctoken, pos int) (int, bool) {
	e := pos + len(t.lower)
	if e > len(m.lower) {
		return 0, false
	}
	if m.word8(pos)&t.mask != t.word {
		return 0, false
	}
	for j := 8; j < len(t.lower); j++ {
		if m.lower[pos+j] != t.lower[j] {
			return 0, false
		}
	}
	return e, true
}

// word8 returns the eight bytes of m.lowerPad at i, 0 <= i <= len(m.lower)
// (the callers' to ensure: most have tested that a token ends within the
// input), as a little-endian word. It reads them without a bounds check,
// which slicing lowerPad would cost (about ten instructions a call).
func (m *matcher) word8(i int) uint64 {
	return load8(unsafe.Pointer(unsafe.SliceData(m.lowerPad)), i)
}

// tokenAt compares one token with the input at pos, case-insensitively.
func (m *matcher) tokenAt(t *ctoken, pos int) (int, bool) {
	in := m.in
	if t.ascii && m.asciiState == 1 {
		return m.tokenWord(t, pos)
	}
	if t.ascii {
		j := 0
		for ; j < len(t.lower); j++ {
			if pos+j >= len(in) {
				return 0, false
			}
			c := in[pos+j]
			if c >= utf8.RuneSelf {
				break // fall back to runes: a non-ASCII letter may fold to ASCII (K, ſ)
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != t.lower[j] {
				return 0, false
			}
		}
		if j == len(t.lower) {
			return pos + j, true
		}
	}
	q := pos
	for _, tr := range t.src {
		if q >= len(in) {
			return 0, false
		}
		r, n := utf8.DecodeRuneInString(in[q:])
		if !foldEq(r, tr) {
			return 0, false
		}
		q += n
	}
	return q, true
}

// boundary reports whether a part may end at pos under spacing sp.
func (m *matcher) boundary(pos int, sp Spacing) bool {
	if in := m.in; sp == SpacingAuto && uint(pos-1) < uint(len(in)-1) {
		if a, b := in[pos-1], in[pos]; a|b < utf8.RuneSelf {
			ca := asciiClass[a]
			return ca == 0 || ca != asciiClass[b]
		}
	}
	return m.boundarySlow(pos, sp)
}

// boundarySlow is boundary for the other spacings and non-ASCII input.
func (m *matcher) boundarySlow(pos int, sp Spacing) bool {
	if sp == SpacingOptional || sp == SpacingNone || pos == 0 || pos >= len(m.in) {
		return true
	}
	if a, b := m.in[pos-1], m.in[pos]; a < utf8.RuneSelf && b < utf8.RuneSelf {
		if sp == SpacingRequired {
			return asciiSep[a] || asciiSep[b]
		}
		ca := asciiClass[a]
		return ca == 0 || ca != asciiClass[b]
	}
	a, _ := utf8.DecodeLastRuneInString(m.in[:pos])
	b, _ := utf8.DecodeRuneInString(m.in[pos:])
	if sp == SpacingRequired {
		return isSep(a) || isSep(b)
	}
	return !needsSep(a, b)
}

// numberLazy matches a number at pos after the fewest separators that let
// the number pattern match (TypeAgent's sticky expression), and then
// needs the boundary after it: a number that fails it is not tried again
// after more separators.
func (m *matcher) numberLazy(sp Spacing, pos int) (float64, int, bool) {
	for {
		if e := m.numberEnd(pos); e > pos {
			if !m.boundary(e, sp) {
				return 0, 0, false
			}
			v, ok := m.numberValue(pos, e)
			return v, e, ok
		}
		if pos >= len(m.in) {
			return 0, 0, false
		}
		r, n := utf8.DecodeRuneInString(m.in[pos:])
		if !isSep(r) {
			return 0, 0, false
		}
		pos += n
	}
}

// numberEnd returns the end of the number that TypeAgent's number pattern
// matches starting exactly at pos, or -1: 0o, 0x and 0b integers (tried
// first, as the pattern's alternatives are), else a decimal with an
// optional sign, fraction and exponent (whose first digit is not 0:
// "1e05" is the number 1). The boundary after it is not tested.
func (m *matcher) numberEnd(pos int) int {
	in := m.in
	if pos >= len(in) || !numberStart[in[pos]] {
		return -1 // most places tried: a word where a number could be
	}
	digitsEnd := func(i int, ok func(byte) bool) int {
		for i < len(in) && ok(in[i]) {
			i++
		}
		return i
	}
	isDec := func(c byte) bool { return c >= '0' && c <= '9' }
	if pos+2 < len(in) && in[pos] == '0' {
		var ok func(byte) bool
		switch in[pos+1] {
		case 'x', 'X':
			ok = func(c byte) bool { return isDec(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }
		case 'o', 'O':
			ok = func(c byte) bool { return c >= '0' && c <= '7' }
		case 'b', 'B':
			ok = func(c byte) bool { return c == '0' || c == '1' }
		}
		if ok != nil {
			if e := digitsEnd(pos+2, ok); e > pos+2 {
				return e
			}
		}
	}
	i := pos
	if i < len(in) && (in[i] == '+' || in[i] == '-') {
		i++
	}
	e := digitsEnd(i, isDec)
	if e == i {
		return -1
	}
	if e+1 < len(in) && in[e] == '.' && isDec(in[e+1]) {
		e = digitsEnd(e+1, isDec)
	}
	if e+1 < len(in) && in[e]|0x20 == 'e' {
		j := e + 1
		if j < len(in) && (in[j] == '+' || in[j] == '-') {
			j++
		}
		if j < len(in) && in[j] >= '1' && in[j] <= '9' {
			e = digitsEnd(j, isDec)
		}
	}
	return e
}

// numberValue returns the value of the number m.in[pos:e] (numberEnd's),
// as JavaScript's Number gives it, and false when it has none.
func (m *matcher) numberValue(pos, e int) (float64, bool) {
	in := m.in
	if in[pos] == '0' && e > pos+2 {
		switch in[pos+1] | 0x20 {
		case 'x':
			return parseBase(in[pos+2:e], 16), true
		case 'o':
			return parseBase(in[pos+2:e], 8), true
		case 'b':
			return parseBase(in[pos+2:e], 2), true
		}
	}
	i := pos
	if in[i] == '+' || in[i] == '-' {
		i++
	}
	if e-i <= 15 {
		// An integer of at most 15 digits (most numbers in requests):
		// below 2^53, so exact as a float64, as ParseFloat gives it,
		// with none of its cost (image: 150 instructions an input).
		var n uint64
		integer := true
		for _, c := range []byte(in[i:e]) {
			if c-'0' > 9 {
				integer = false
				break
			}
			n = n*10 + uint64(c-'0')
		}
		if integer {
			v := float64(n)
			if in[pos] == '-' {
				v = -v // -0 too, as ParseFloat gives it
			}
			return v, true
		}
	}
	v, err := strconv.ParseFloat(in[pos:e], 64)
	if err != nil && !math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// nextNumber returns the first position >= from where a number matches
// (numberEnd), and its end, or -1, -1. Searched from where the last one
// ended, as TypeAgent's global expression searches, it gives the numbers
// a wildcard may end before: the digits inside one ("25" in "425", "5" in
// "12.5", "5" in "-5") are never where another begins.
func (m *matcher) nextNumber(from int) (int, int) {
	for t := m.nextNumberStart(from); t >= 0; t = m.nextNumberStart(t + 1) {
		if e := m.numberEnd(t); e > t {
			return t, e
		}
	}
	return -1, -1
}

func parseBase(digits string, base int) float64 {
	if v, err := strconv.ParseUint(digits, base, 64); err == nil {
		return float64(v)
	}
	var z big.Int
	z.SetString(digits, base)
	f, _ := new(big.Float).SetInt(&z).Float64()
	return f
}
