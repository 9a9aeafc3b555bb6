package grammarbridge

import "bytes"

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
	pos   []int32   // the places of every list of this input
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
	if cap(o.pos) > maxOccKeep {
		o.pos = nil // a long input's lists are not kept for the next
	}
	o.pos = o.pos[:0]
}

// maxOccKeep is the most places whose buffer a matcher keeps between
// inputs.
const maxOccKeep = 1 << 14

// occBuild lists the places of tok in the input and returns the first
// one >= from, or -1.
func (m *matcher) occBuild(tok *ctoken, from int) int {
	o := &m.occ
	id := int(tok.search)
	if id >= len(o.slots) {
		o.slots = append(o.slots, make([]occSlot, id+1-len(o.slots))...)
	}
	lo := int32(len(o.pos))
	first := -1
	// Search for the rest of the token ('send': send'), rarer than the
	// separators it starts with, then test those. bytes.Index is given
	// at most 64 bytes at a time: on those it compares at every place in
	// assembly, while on longer ones it calls IndexByte at each place
	// the first byte occurs, which costs more when that byte is common
	// (lower-case letters, quotes).
	low, k, rest := m.lower, tok.lead, tok.rest
	for q := k; q < len(low); {
		var j int
		if len(low)-q <= 64 || len(rest) > 32 {
			if j = bytes.Index(low[q:], rest); j < 0 {
				break
			}
		} else if j = bytes.Index(low[q:q+64], rest); j < 0 {
			q += 64 - len(rest) + 1 // the places not tried
			continue
		}
		q += j
		if t := q - k; k == 0 || k == 1 && low[t] == tok.lower[0] || k > 1 && string(low[t:q]) == tok.lower[:k] {
			o.pos = append(o.pos, int32(t))
			if first < 0 && t >= from {
				first = t
			}
		}
		q++
	}
	o.slots[id] = occSlot{gen: o.gen, lo: lo, hi: int32(len(o.pos))}
	return first
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
