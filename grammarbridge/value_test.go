package grammarbridge

import (
	"strings"
	"testing"
)

// TestHashStringShort checks that the word-at-a-time hash of short texts
// tells apart texts that differ in any byte or in length (all texts of
// up to 17 bytes over a small alphabet with one byte changed), and gives
// equal texts equal hashes whatever string they are cut from.
func TestHashStringShort(t *testing.T) {
	seen := map[uint64]string{}
	add := func(s string) {
		h := hashString(s)
		if o, ok := seen[h]; ok && o != s {
			t.Errorf("%q and %q have the same hash %x", o, s, h)
		}
		seen[h] = s
	}
	base := "abcdefghijklmnopq"
	for n := 0; n <= len(base); n++ {
		add(base[:n])
		add(strings.Repeat("a", n))
		for i := 0; i < n; i++ {
			for _, c := range []byte{'A', 'z', 0, 0xff} {
				b := []byte(base[:n])
				b[i] = c
				add(string(b))
			}
		}
	}
	long := "the quick brown fox " + base
	for i := 0; i+17 <= len(long); i++ {
		s := long[i : i+17]
		if hashString(s) != hashString(strings.Clone(s)) {
			t.Errorf("%q: hash depends on where the text is", s)
		}
	}
	for n := 0; n <= 16; n++ {
		if hashString(long[3:3+n]) != hashString(strings.Clone(long[3:3+n])) {
			t.Errorf("%q: hash depends on where the text is", long[3:3+n])
		}
	}
}
