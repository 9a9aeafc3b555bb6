package fuzzy

import (
	"math/bits"
	"unicode/utf8"
)

// osa returns the optimal string alignment distance between a and b (each
// insertion, deletion, substitution or transposition of two adjacent
// letters costs one) if it is at most k, and k+1 otherwise. It stops as
// soon as two consecutive rows exceed k. It does not allocate for strings
// of up to 63 runes.
//
// matchr.OSA computes the same distance but misses a transposition of the
// first two letters ("esarch"/"search") and allocates a full matrix, so the
// resolver uses this bounded version on its hot path.
func osa(a, b []rune, k int) int {
	if d := len(a) - len(b); d > k || -d > k {
		return k + 1
	}
	if len(a) == 0 || len(b) == 0 {
		return max(len(a), len(b))
	}
	var buf [3 * 64]int
	var r0, r1, r2 []int // rows i-2, i-1, i
	if n := len(b) + 1; n <= 64 {
		r0, r1, r2 = buf[:n], buf[64:64+n], buf[128:128+n]
	} else {
		m := make([]int, 3*n)
		r0, r1, r2 = m[:n], m[n:2*n], m[2*n:]
	}
	for j := range r1 {
		r1[j] = j
	}
	prevMin := 0
	for i := 1; i <= len(a); i++ {
		r2[0] = i
		rowMin := i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(r1[j]+1, r2[j-1]+1, r1[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, r0[j-2]+1)
			}
			r2[j] = d
			rowMin = min(rowMin, d)
		}
		if rowMin > k && prevMin > k {
			return k + 1
		}
		prevMin = rowMin
		r0, r1, r2 = r1, r2, r0
	}
	if d := r1[len(b)]; d <= k {
		return d
	}
	return k + 1
}

// signature summarises a string's letters in 64 bits so that
// bits.OnesCount64(sig(a)^sig(b)) <= 2*osa(a, b): bit c (a–z) says the
// letter occurs, bit 26+c that it occurs twice or more, bits 52–63 hold
// any other rune by its value modulo 12. Each unit change in one rune's
// count flips at most one bit; a substitution is two such changes, an
// insertion or deletion one, a transposition none.
func signature(rs []rune) uint64 {
	var s uint64
	for _, r := range rs {
		if r >= 'a' && r <= 'z' {
			bit := uint64(1) << (r - 'a')
			if s&bit != 0 {
				s |= bit << 26
			}
			s |= bit
		} else {
			s |= 1 << (52 + uint(r)%12)
		}
	}
	return s
}

// sigDistance is the lower bound on twice the edit distance given by two
// signatures.
func sigDistance(a, b uint64) int { return bits.OnesCount64(a ^ b) }

// pattern holds a token's match masks for bit-parallel OSA: bit i of the
// mask of rune c is set when the token's rune i is c. Built once per
// token, it makes each comparison with a name a few word operations per
// rune of the name (Hyyrö 2003) instead of a row of the table.
type pattern struct {
	ascii [128]uint64
	other []runeMask // runes beyond ASCII, few
	n     int        // runes in the token, at most 64
}

type runeMask struct {
	r rune
	m uint64
}

// setPattern fills p for rs; it reports false when rs is too long (more
// than 64 runes), and then p must not be used.
func setPattern(p *pattern, rs []rune) bool {
	if len(rs) > 64 {
		return false
	}
	p.n = len(rs)
	for i, c := range rs {
		bit := uint64(1) << i
		if c < 128 {
			p.ascii[c] |= bit
			continue
		}
		found := false
		for j := range p.other {
			if p.other[j].r == c {
				p.other[j].m |= bit
				found = true
			}
		}
		if !found {
			p.other = append(p.other, runeMask{c, bit})
		}
	}
	return true
}

func (p *pattern) mask(c rune) uint64 {
	if c < 128 {
		return p.ascii[c]
	}
	for _, o := range p.other {
		if o.r == c {
			return o.m
		}
	}
	return 0
}

// osa returns the optimal string alignment distance between the pattern
// and text if it is at most k, and k+1 otherwise: the same as osa(pattern
// runes, text, k). It stops when the distance can no longer come down to
// k.
func (p *pattern) osa(text []rune, k int) int {
	m, n := p.n, len(text)
	if d := m - n; d > k || -d > k {
		return k + 1
	}
	if m == 0 {
		return n
	}
	vp, vn, d0, pmOld := ^uint64(0), uint64(0), uint64(0), uint64(0)
	last := uint64(1) << (m - 1)
	dist := m
	for j, c := range text {
		pm := p.mask(c)
		tr := ((^d0 & pm) << 1) & pmOld
		d0 = (((pm & vp) + vp) ^ vp) | pm | vn | tr
		hp := vn | ^(d0 | vp)
		hn := d0 & vp
		if hp&last != 0 {
			dist++
		} else if hn&last != 0 {
			dist--
		}
		hp = hp<<1 | 1
		hn <<= 1
		vp = hn | ^(d0 | hp)
		vn = hp & d0
		pmOld = pm
		if dist-(n-1-j) > k {
			return k + 1 // each rune left lowers the distance by one at most
		}
	}
	if dist > k {
		return k + 1
	}
	return dist
}

// probe is a token prepared for comparison with many names: its runes,
// letter signature and, when it fits, its bit-parallel pattern. Its runes
// live in the probe itself, so that a probe on the stack stays there.
type probe struct {
	buf  [64]rune
	long []rune // the runes of a token longer than buf
	n    int
	sig  uint64
	pat  pattern
	bits bool // pat holds the runes
}

// runes returns the probe's token as runes.
func (q *probe) runes() []rune {
	if q.long != nil {
		return q.long
	}
	return q.buf[:q.n]
}

// set prepares q for key. A probe may be set again for another key.
func (q *probe) set(key string) {
	for _, c := range q.runes() {
		if c < 128 {
			q.pat.ascii[c] = 0
		}
	}
	q.pat.other = q.pat.other[:0]
	q.long, q.n = nil, 0
	if utf8.RuneCountInString(key) > len(q.buf) {
		q.long = []rune(key)
	} else {
		for _, c := range key {
			q.buf[q.n] = c
			q.n++
		}
	}
	rs := q.runes()
	q.n = len(rs)
	q.sig = signature(rs)
	q.bits = setPattern(&q.pat, rs)
}

// dist is osa(q.runes(), b, k).
func (q *probe) dist(b []rune, k int) int {
	if q.bits {
		return q.pat.osa(b, k)
	}
	return osa(q.runes(), b, k)
}
