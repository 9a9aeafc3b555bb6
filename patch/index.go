package patch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
)

// keyspace numbers the distinct lines the hunks compare, and gives each
// line of the text the number of its key (-1 when no hunk has that key).
// A comparison is then one integer comparison, and where a line occurs in
// the text is a list read once: finding a hunk costs the places its
// rarest line occurs, not the length of the text.
type keyspace struct {
	ids  map[string]int32 // a hunk line's key -> its number
	text []int32          // the number of each text line's key, or -1
	// pos[start[k]:start[k+1]] are the text lines whose number is k, in
	// order.
	start, pos []int32
}

// intern returns the number of key, giving it the next one if it is new.
func (ks *keyspace) intern(key string) int32 {
	if id, ok := ks.ids[key]; ok {
		return id
	}
	id := int32(len(ks.ids))
	ks.ids[key] = id
	return id
}

// index gives the text's n lines their numbers, lookup(i, buf) returning
// line i's (or -1) and buf, a scratch buffer it may reuse, and lists where
// each number occurs.
//
// It gives up, returning ctx's error, when ctx (unless nil) is done,
// looking every indexCheck lines.
func (ks *keyspace) index(ctx context.Context, n int, lookup func(i int, buf []byte) (int32, []byte)) error {
	ks.text = make([]int32, n)
	count := make([]int32, len(ks.ids)+1)
	var buf []byte
	for i := range n {
		if ctx != nil && i%indexCheck == indexCheck-1 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var id int32
		id, buf = lookup(i, buf)
		ks.text[i] = id
		if id >= 0 {
			count[id+1]++
		}
	}
	for k := 1; k < len(count); k++ {
		count[k] += count[k-1]
	}
	ks.start = count
	ks.pos = make([]int32, count[len(count)-1])
	fill := make([]int32, len(ks.ids))
	copy(fill, count[:len(ks.ids)])
	for i, id := range ks.text {
		if id >= 0 {
			ks.pos[fill[id]] = int32(i)
			fill[id]++
		}
	}
	return nil
}

// indexCheck is how many lines index numbers between two looks at the
// context: well under a millisecond's work.
const indexCheck = 1 << 14

// sketch is a set of keys that may say yes wrongly but never no: one bit
// per length and first and last byte.
type sketch [1024]uint64

// bit returns the bit of key.
func (*sketch) bit(key string) uint {
	h := uint(len(key)) * 0x9e37
	if key != "" {
		h += uint(key[0])*0x61 + uint(key[len(key)-1])
	}
	return h & (1<<16 - 1)
}

func (s *sketch) add(key string)      { b := s.bit(key); s[b/64] |= 1 << (b % 64) }
func (s *sketch) has(key string) bool { b := s.bit(key); return s[b/64]&(1<<(b%64)) != 0 }

// occurs returns the text lines whose number is id.
func (ks *keyspace) occurs(id int32) []int32 { return ks.pos[ks.start[id]:ks.start[id+1]] }

// maxTextLines is the most lines a text applied carefully may have: lines
// are numbered with int32.
const maxTextLines = math.MaxInt32 - 1

// checkEvery is how many units of work pass between two looks at the
// budget and the context: a unit is a line comparison or a step of a
// scan, a few nanoseconds, so a cancelled context is seen within
// microseconds.
const checkEvery = 1 << 12

// errBudget is returned by spend when the work budget is used up.
var errBudget = errors.New("work budget exhausted")

// spend counts n units of work and, now and then, says whether the budget
// is used up or the context is done.
func (c *careful) spend(n int) error {
	c.work += n
	if c.work < c.check {
		return nil
	}
	c.check = c.work + checkEvery
	if c.work > c.budget {
		return errBudget
	}
	return c.ctx.Err()
}

// scan calls visit with every q in [lo, hi-len(p)] where the text's lines
// q, q+1, ... have the numbers p, in increasing order of q, or decreasing
// with back, until visit returns false. It reads the places of p's rarest
// line when they are few, and otherwise runs Knuth-Morris-Pratt over the
// window, so its cost is at most the window's length plus p's, whatever
// the text repeats.
func (c *careful) scan(ks *keyspace, p []int32, lo, hi int, back bool, visit func(q int) bool) error {
	m := len(p)
	if m == 0 || hi-lo < m {
		return nil
	}
	anchor := 0
	for k, id := range p {
		if n := ks.start[id+1] - ks.start[id]; n < ks.start[p[anchor]+1]-ks.start[p[anchor]] {
			anchor = k
		}
	}
	// The anchor line of a place q is at q+anchor, in [lo+anchor, hi-m+anchor].
	occ := ks.occurs(p[anchor])
	from := sort.Search(len(occ), func(k int) bool { return int(occ[k]) >= lo+anchor })
	to := sort.Search(len(occ), func(k int) bool { return int(occ[k]) > hi-m+anchor })
	if err := c.spend(m + 2*bits.Len(uint(len(occ))) + 4); err != nil {
		return err
	}
	if from >= to {
		return nil
	}
	if (to-from)*m > 2*(hi-lo) {
		return c.kmp(ks.text, p, lo, hi, back, visit)
	}
	text := ks.text
	for k := range to - from {
		idx := from + k
		if back {
			idx = to - 1 - k
		}
		q := int(occ[idx]) - anchor
		j := 0
		for j < m && text[q+j] == p[j] {
			j++
		}
		if err := c.spend(j + 1); err != nil {
			return err
		}
		if j == m && !visit(q) {
			return nil
		}
	}
	return nil
}

// kmp is scan by Knuth-Morris-Pratt: every line of the window is read
// once, and the pattern falls back at most as far as it advanced.
func (c *careful) kmp(text, p []int32, lo, hi int, back bool, visit func(q int) bool) error {
	m := len(p)
	if back { // read backwards, the window holds the pattern reversed
		p = slices.Clone(p)
		slices.Reverse(p)
	}
	// fail[k]: the length of the longest proper border of the pattern's
	// first k+1 elements.
	fail := make([]int32, m)
	for k, b := 1, int32(0); k < m; k++ {
		for b > 0 && p[k] != p[b] {
			b = fail[b-1]
		}
		if p[k] == p[b] {
			b++
		}
		fail[k] = b
	}
	if err := c.spend(2 * m); err != nil {
		return err
	}
	k, steps := int32(0), 0
	for s := range hi - lo {
		i := lo + s
		if back {
			i = hi - 1 - s
		}
		for k > 0 && text[i] != p[k] {
			k = fail[k-1]
			steps++
		}
		if text[i] == p[k] {
			k++
		}
		steps++
		if int(k) == m {
			q := i - m + 1
			if back {
				q = i
			}
			if !visit(q) {
				return c.spend(steps)
			}
			k = fail[k-1]
		}
		if steps >= checkEvery {
			if err := c.spend(steps); err != nil {
				return err
			}
			steps = 0
		}
	}
	return c.spend(steps)
}

// stopped is the error for an application whose context ended while hunk
// i was being placed.
func (p *Patch) stopped(i int, err error) error {
	if i < 0 {
		return fmt.Errorf("patch not applied: %w", err)
	}
	return fmt.Errorf("patch not applied: stopped while placing hunk #%d: %w", i+1, err)
}

// contextErr reports whether err is the context's, not the patch's.
func contextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
