package grammarbridge

import (
	le "encoding/binary"
	"unsafe"
)

// This file holds the per-input lists of the places where each literal
// searched after an open wildcard occurs (see nextCandidate).

// occLists remembers, for the current input, every place where each
// searched token occurs. A literal after a wildcard is searched from the
// wildcard's start, then again after each place found; the same token is
// searched from many wildcard starts (each way the rule before it matched,
// each alternative of a group): on the reference inputs, about twice as
// many bytes.Index calls as there are places plus one per distinct token
// (image 11.1 calls an input against 6.5, email 12.6 against 5.1). The
// first search for a token lists all its places in the input, from the
// start, so that a later search from an earlier wildcard start needs no
// other; the later ones read the list, in nextCandidate itself. The lists
// of one input share one buffer, and a list belongs to the current input
// when its generation is the input's, so nothing is cleared between
// inputs.
type occLists struct {
	gen   uint32    // the current input's generation (lowerInput)
	slots []occSlot // by ctoken.search
	// pos[:npos] are the places of every list of this input; pos is
	// kept at the length of its capacity, so that adding to it writes no
	// pointer.
	pos  []int32
	npos int

	// The input's places by byte, made by the first list of an input
	// (byteIndex): head[c] is 1 + the first place of byte c (0: none),
	// next[i] is 1 + the place of input[i] after i. Lists are made for
	// ASCII input only, so only head[:128] is used (and cleared); its 256
	// entries let a byte index it without a bounds check.
	indexed bool
	head    [256]int32
	next    []int32
}

// occSlot is one token's list: pos[lo:hi], valid when gen is the input's.
type occSlot struct {
	gen    uint32
	lo, hi int32
}

// reset starts the lists of a new input.
func (o *occLists) reset() {
	o.gen++
	if o.gen == 0 {
		clear(o.slots)
		o.gen = 1
	}
	if len(o.pos) > maxOccKeep {
		o.pos = nil // a long input's lists are not kept for the next
	}
	if cap(o.next) > maxOccKeep {
		o.next = nil
	}
	o.npos = 0
	o.indexed = false
}

// maxOccKeep is the most places whose buffers (lists, byte index) a
// matcher keeps between inputs.
const maxOccKeep = 1 << 14

// occBuild lists the places of tok in the input and returns the first
// one >= from, or -1.
//
// It walks the places of the token's rarest byte (byteIndex, rareByte)
// and compares the token at each. bytes.Index cost about 90 instructions a
// call here, twice a list on average (once per 64 bytes, once more per
// place of the token's rest), and most of that was its two wrappers;
// indexing the input's bytes costs under 6 instructions a byte, once per
// input that lists a token, and a list then costs about 60 instructions
// and 17 more per place of its byte, or less when the byte is not in the
// input. (Image: 4.7 lists an input, 1,510 instructions with bytes.Index,
// 875 so.) Scanning the input for each token instead, eight bytes at a
// time for two of its bytes, cost more: about 16 instructions a word, a
// scan for each of the 4.7 lists (image: 1,770 instructions an input).
//
// The caller has made room for it (occReady, occGrow): occBuild makes no
// call, so that it needs no stack frame and saves fewer values on the
// stack (image -7 instructions an input, email -15).
func (m *matcher) occBuild(tok *ctoken, from int) int {
	o := &m.occ
	s := &o.slots[tok.search]
	k := o.npos
	s.gen, s.lo, s.hi = o.gen, int32(k), int32(k)
	// The walk, here rather than in a function of its own: the call and
	// its set-up cost as much as the walk itself (2.6 places of the byte
	// a list on the reference inputs; most tokens listed are not in the
	// input).
	lower, j := tok.lower, int(tok.rare)
	e := o.head[tok.rareB]
	n, L := len(m.lower), len(lower)
	last := n - L // the last place
	if e == 0 || last < 0 {
		// The byte is not in the input, or the token is longer than
		// it: the token is not in it.
		return -1
	}
	word, mask := tok.word, tok.mask
	p := unsafe.Pointer(unsafe.SliceData(m.lowerPad))
	next, pos := o.next, o.pos
	// The byte's places come in order: those too early for the token to
	// start (t < 0) are the first ones, skipped here, so that the walks
	// below stop at the first place past the last.
	for e != 0 && int(e)-1 < j {
		e = next[e-1]
	}
	if L <= 8 {
		// The token is its first word: the same walk with fewer values
		// to keep in registers (image: two thirds of the places
		// walked).
		for ; e != 0; e = next[e-1] {
			t := int(e) - 1 - j
			if uint(t) > uint(last) { // t >= 0 (skipped above): past the last
				break
			}
			// The padding makes eight bytes readable at t.
			if load8(p, t)&mask == word {
				pos[k] = int32(t)
				k++
			}
		}
	} else if L <= 16 {
		// The token is its first word and its last, which overlap
		// (image: a third of the places walked). Its last eight bytes
		// are read from the string itself, which has them.
		tail, d := load8(unsafe.Pointer(unsafe.StringData(lower)), L-8), L-8
		for ; e != 0; e = next[e-1] {
			t := int(e) - 1 - j
			if uint(t) > uint(last) { // t >= 0 (skipped above): past the last
				break
			}
			if load8(p, t) == word && load8(p, t+d) == tail {
				pos[k] = int32(t)
				k++
			}
		}
	} else {
	places:
		for ; e != 0; e = next[e-1] {
			t := int(e) - 1 - j
			if uint(t) > uint(last) { // t >= 0 (skipped above): past the last
				break
			}
			if load8(p, t)&mask != word {
				continue
			}
			for i := 8; i < L; i++ {
				if *(*byte)(unsafe.Add(p, t+i)) != lower[i] {
					continue places
				}
			}
			pos[k] = int32(t)
			k++
		}
	}
	lo := o.npos
	o.npos = k
	s.hi = int32(k)
	// The first place >= from, found here rather than in the walk: one
	// value fewer to keep in registers there (0.3 places a list).
	for i := lo; i < k; i++ {
		if t := int(pos[i]); t >= from {
			return t
		}
	}
	return -1
}

// occReady reports whether list id can be made (occBuild) with no
// call: there is a slot for it, the input's bytes are indexed, and there
// is room for every place of the input.
func (m *matcher) occReady(id int) bool {
	o := &m.occ
	return id < len(o.slots) && o.indexed && len(o.pos)-o.npos >= len(m.lower)
}

// occGrow makes what occReady tests true.
func (m *matcher) occGrow(id int) {
	o := &m.occ
	if id >= len(o.slots) {
		o.slots = append(o.slots, make([]occSlot, id+1-len(o.slots))...)
	}
	if !o.indexed {
		m.byteIndex()
	}
	if k := o.npos; len(o.pos)-k < len(m.lower) {
		o.pos = append(o.pos[:k], make([]int32, len(m.lower))...)
		o.pos = o.pos[:cap(o.pos)]
	}
}

// rareByte returns the place in tok of the byte whose places occBuild
// walks: of its first eight bytes, the rarest letter in English text, or
// a digit, or else the first after the lead separators (quotes, spaces
// and other separators are the most common bytes of inputs).
func rareByte(tok *ctoken) int {
	j, best := min(tok.lead, len(tok.lower)-1), -1
	for i := tok.lead; i < len(tok.lower) && i < 8; i++ {
		if r := int(byteRarity[tok.lower[i]&127]); r > best {
			j, best = i, r
		}
	}
	return j
}

// byteRarity ranks the ASCII letters and digits by how rare they are in
// English text (0: the others).
var byteRarity = func() (t [128]uint8) {
	for i, c := range "etaoinsrhldcumfpgwybvkxjqz" {
		t[c] = uint8(i + 11)
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = 10
	}
	return t
}()

// byteIndex lists the places of every byte of the input (occLists.head,
// next), in order.
func (m *matcher) byteIndex() {
	o := &m.occ
	o.indexed = true
	low := m.lower
	if cap(o.next) < len(low) {
		o.next = make([]int32, len(low), len(low)+len(low)/2)
	}
	next := o.next[:len(low)]
	o.next = next
	head := &o.head
	clear(head[:128])
	// Backwards, so that each byte's list comes out in order; e is 1 +
	// the place, four at a time.
	e := len(low)
	for ; e >= 4; e -= 4 {
		c0, c1, c2, c3 := low[e-1], low[e-2], low[e-3], low[e-4]
		next[e-1] = head[c0]
		head[c0] = int32(e)
		next[e-2] = head[c1]
		head[c1] = int32(e - 1)
		next[e-3] = head[c2]
		head[c2] = int32(e - 2)
		next[e-4] = head[c3]
		head[c3] = int32(e - 3)
	}
	for ; e > 0; e-- {
		c := low[e-1]
		next[e-1] = head[c]
		head[c] = int32(e)
	}
}

// load8 reads the eight bytes at p+i as a little-endian word.
func load8(p unsafe.Pointer, i int) uint64 {
	return le.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, i))[:])
}

// restWord returns the first eight bytes of t's rest (little-endian)
// and the mask of the bits that hold them: the first-word test of a
// literal whose first token has lead separators ('send'). Such a token
// can only match where its rest starts at the first place that is not a
// separator (see stringAt), which is where the callers read the input's
// first word (matcher.firstWord). In grammars whose literals are written
// with their quotes, as in the reference inputs, every literal is one.
func restWord(t *ctoken) (word, mask uint64) {
	for j := 0; j < len(t.rest) && j < 8; j++ {
		word |= uint64(t.rest[j]) << (8 * j)
		mask |= 0xff << (8 * j)
	}
	return word, mask
}

// assignSearchIDs gives the first token of every literal part of the
// rules reachable from start a search id (ctoken.search, from 1): one per
// distinct lower-cased ASCII token, so that the matcher keeps one list of
// places per token text however many parts begin with it. It also gives
// literals whose first token has lead separators their first-word test
// (restWord). The compiler calls it before prefix trees copy parts.
func assignSearchIDs(rules []*crule) {
	computeMinLens(rules)
	ids := map[string]int32{}
	for _, r := range rules {
		for _, a := range r.alts {
			for i := range a.parts {
				p := &a.parts[i]
				if p.kind != partString || len(p.toks) == 0 || !p.toks[0].ascii || len(p.toks[0].rest) == 0 {
					continue
				}
				t := &p.toks[0]
				if t.lead > 0 && p.fmask == 0 {
					p.fword, p.fmask = restWord(t)
				}
				t.rare = uint8(min(rareByte(t), 255)) // any place in the token will do
				t.rareB = t.lower[t.rare]
				id, ok := ids[t.lower]
				if !ok {
					id = int32(len(ids) + 1)
					ids[t.lower] = id
				}
				t.search = id
			}
		}
	}
}

// occLinear is the longest list nextCandidate reads from its start: most
// lists are a few places long (2.6 on the reference inputs), and reading
// them costs less than a search. A longer one is searched in halves, so
// that every search after a wildcard costs at most the logarithm of the
// token's places, however often the token occurs: reading from the start
// made each step of a match over "a a a ..." cost the length of the
// input, and the work limit then bounded the steps but not the time.
const occLinear = 8

// search returns the first index in [lo, hi) whose place is at or after
// from, or hi.
func (o *occLists) search(lo, hi int32, from int) int32 {
	for lo < hi {
		mid := int32(uint32(lo+hi) >> 1)
		if int(o.pos[mid]) < from {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
