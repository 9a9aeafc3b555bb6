package fuzzy

import "math/bits"

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
