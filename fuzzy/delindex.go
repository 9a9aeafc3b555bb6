package fuzzy

import (
	"slices"
)

// delMaxLen is the longest name or form, in runes, the deletion index
// holds: enough for every token of up to seven letters (the short
// allowance) at two edits.
const delMaxLen = 9

// delIndex is a symmetric deletion index (as in SymSpell): every normal
// and loose name and form of at most delMaxLen runes, under the hash of
// each of its spellings with up to two runes deleted. Two strings within
// d ≤ 2 edits (insertions, deletions, substitutions, transpositions) have
// spellings with at most d runes deleted from each that are equal, so
// looking up a token's own such spellings finds every name within d edits
// without touching the others — and a few more, which the caller
// verifies, as it does the rare hash collision.
type delIndex struct {
	at     map[uint64]int32 // spelling hash → key number
	starts []int32          // postings of key i: post[starts[i]:starts[i+1]]
	post   []uint32         // name index << 2 | runes deleted from the name
}

// buildDelIndex indexes the names of r (classes normal and loose) that
// are short enough.
func buildDelIndex(r *Resolver) *delIndex {
	type pair struct {
		h uint64
		v uint32
	}
	var pairs []pair
	for ni := range r.names {
		nm := &r.names[ni]
		if nm.class == classStrict || len(nm.runes) > delMaxLen {
			continue
		}
		deletions(nm.runes, 2, func(h uint64, dels int) {
			pairs = append(pairs, pair{h, uint32(ni)<<2 | uint32(dels)})
		})
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		switch {
		case a.h != b.h:
			if a.h < b.h {
				return -1
			}
			return 1
		case a.v != b.v:
			if a.v < b.v {
				return -1
			}
			return 1
		}
		return 0
	})
	ix := &delIndex{at: make(map[uint64]int32, len(pairs)/2)}
	for i, p := range pairs {
		if i > 0 && p.h == pairs[i-1].h {
			if last := ix.post[len(ix.post)-1]; last>>2 == p.v>>2 {
				continue // the same name reached by other deletions: keep the fewest
			}
		} else {
			ix.at[p.h] = int32(len(ix.starts))
			ix.starts = append(ix.starts, int32(len(ix.post)))
		}
		ix.post = append(ix.post, p.v)
	}
	ix.starts = append(ix.starts, int32(len(ix.post)))
	return ix
}

// fits reports whether the index holds every name within k edits of a
// token of n runes.
func (ix *delIndex) fits(n, k int) bool {
	return ix != nil && k <= 2 && n+k <= delMaxLen
}

// lookup calls visit once for every indexed name within k ≤ 2 edits of
// rs, and for some others. It does not allocate for vocabularies of up to
// 8,192 names and forms.
func (ix *delIndex) lookup(rs []rune, k int, names int, visit func(ni int32)) {
	var seenBuf [128]uint64
	seen := seenBuf[:]
	if w := (names + 63) / 64; w > len(seen) {
		seen = make([]uint64, w)
	}
	deletions(rs, k, func(h uint64, _ int) {
		i, ok := ix.at[h]
		if !ok {
			return
		}
		for _, v := range ix.post[ix.starts[i]:ix.starts[i+1]] {
			ni := v >> 2
			if int(v&3) > k || seen[ni/64]&(1<<(ni%64)) != 0 {
				continue
			}
			seen[ni/64] |= 1 << (ni % 64)
			visit(int32(ni))
		}
	})
}

// deletions calls fn with the hash of rs and of each spelling of rs with
// up to k ≤ 2 runes deleted, and the number deleted. A spelling reached
// in several ways is reported each time.
func deletions(rs []rune, k int, fn func(h uint64, dels int)) {
	fn(hashRunes(rs, -1, -1), 0)
	if k < 1 {
		return
	}
	for i := range rs {
		fn(hashRunes(rs, i, -1), 1)
		if k < 2 {
			continue
		}
		for j := i + 1; j < len(rs); j++ {
			fn(hashRunes(rs, i, j), 2)
		}
	}
}

// hashRunes is the FNV-1a hash of rs without the runes at positions skip1
// and skip2 (-1: none), and of its length, so that no string of runes is
// mistaken for another of a different length by construction.
func hashRunes(rs []rune, skip1, skip2 int) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	n := 0
	for i, c := range rs {
		if i == skip1 || i == skip2 {
			continue
		}
		n++
		for u := uint32(c); ; u >>= 8 {
			h ^= uint64(u & 0xff)
			h *= prime
			if u < 0x100 {
				break
			}
		}
	}
	h ^= uint64(n)
	h *= prime
	return h
}
