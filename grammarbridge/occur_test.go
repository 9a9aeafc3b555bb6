package grammarbridge

import (
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// TestEngineOccLists checks nextCandidate with search ids (the per-input
// lists of occur.go) against strings.Index, querying in random order, on
// inputs short and long, across inputs that reuse one matcher.
func TestEngineOccLists(t *testing.T) {
	g := mustCompile(t, `<Start> = x -> 1;`, Options{})
	long := "'send' 'an' 'email' to Zoe's friend 'to' the 'to' of " + strings.Repeat("'to ton", 20) + "'to' at"
	inputs := []string{
		"'send' 'to' Bob 'to' x", "to' 'to'", "''to'", "'TO' 'tO'", "x'to'y", "'t'o'", "", "aaaa", "Tata to toto",
		long, long[:63], long[:64], long[:65], long[:127], long[:130], "caf\u00e9 to 'to' \u212a",
	}
	// After a long input, the padding past a short one holds its bytes:
	// "ab" is followed by "cdefghij", which no token may be found in.
	inputs = append(inputs, strings.Repeat("abcdefghij", 20), strings.Repeat("abcdefghij", 20)+"'x", "ab", "abcdefg")
	toks := []string{"'to'", "''to'", "'t", ",.k", "abcd", "abcdefgh", "'send'", "to", "a", "aa", "at", "'to ton'", "email",
		strings.Repeat("abcdefghij", 7), "'" + strings.Repeat("abcdefghij", 3) + "ab", strings.Repeat("abcdefghij", 3) + "abc",
		"jabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij'x",
		// Nine to sixteen bytes (two words, overlapping), found and not.
		"ton'to ton", "'email' to", "'to ton'to ton'", "'to ton'to tan", "abcdefghija", "jabcdefghijabcde", "jabcdefghijabcdf"}
	parts := make([]cpart, len(toks))
	for i, tk := range toks {
		parts[i] = literalPart([]string{tk}, SpacingAuto)
		parts[i].toks[0].search = int32(i + 1)
	}
	rng := rand.New(rand.NewSource(1))
	for round := range 3 {
		for _, in := range inputs {
			m := g.newMatcher(in, false)
			if !m.isASCII() {
				// Every rune start is a candidate: nothing is listed.
				if got := m.nextCandidate(&parts[0], 0); got != 0 {
					t.Errorf("%q: got %d, want 0", in, got)
				}
				g.release(m)
				continue
			}
			low := strings.ToLower(in)
			for range 200 {
				i := rng.Intn(len(toks))
				from := rng.Intn(len(in) + 2)
				want := -1
				if from <= len(in) {
					if j := strings.Index(low[from:], toks[i]); j >= 0 {
						want = from + j
					}
				}
				if got := m.nextCandidate(&parts[i], from); got != want {
					t.Errorf("round %d, %q: token %q from %d: got %d, want %d", round, in, toks[i], from, got, want)
				}
			}
			g.release(m)
		}
	}
}

// TestEngineLowerInputLengths checks the lower-casing of the input, a word
// at a time, for every length up to 70 and a non-ASCII byte at every
// place.
func TestEngineLowerInputLengths(t *testing.T) {
	g := mustCompile(t, `<Start> = x -> 1;`, Options{})
	const chars = "aZ@[`{ 09AzMm'\x7f\x00-"
	rng := rand.New(rand.NewSource(2))
	for n := range 71 {
		b := make([]byte, n)
		for i := range b {
			b[i] = chars[rng.Intn(len(chars))]
		}
		in := string(b)
		m := g.newMatcher(in, false)
		if !m.isASCII() || string(m.lower) != strings.ToLower(in) {
			t.Errorf("%q: ascii %v, lower %q", in, m.isASCII(), m.lower)
		}
		g.release(m)
		for i := range n {
			c := append([]byte(nil), b...)
			c[i] = 0xc3
			m := g.newMatcher(string(c), false)
			// Not ASCII: the ASCII letters are lower-cased all the same
			// (firstByte reads them).
			want := []byte(strings.ToLower(string(b)))
			want[i] = 0xc3
			if m.isASCII() || string(m.lower) != string(want) {
				t.Errorf("%q: ascii %v, lower %q", c, m.isASCII(), m.lower)
			}
			g.release(m)
		}
	}
}

// TestEngineNextNumberStart checks the eight-bytes-at-a-time search for a
// digit or a sign against a byte loop, on ASCII and other inputs.
func TestEngineNextNumberStart(t *testing.T) {
	g := mustCompile(t, `<Start> = x -> 1;`, Options{})
	// Inputs that are not ASCII alternate with ASCII ones on the same
	// matcher: the padding past the input holds bytes of the one before.
	charSets := []string{"a0 9+-/:,*\xc3\xa9)x.\x00\x7f\xff", "a0 9+-/:,*)x.\x00\x7f,;"}
	rng := rand.New(rand.NewSource(3))
	for k := range 800 {
		chars := charSets[k%2]
		b := make([]byte, rng.Intn(40))
		for i := range b {
			b[i] = chars[rng.Intn(len(chars))]
		}
		in := string(b)
		m := g.newMatcher(in, false)
		for from := 0; from <= len(in)+1; from++ {
			want := -1
			for i := from; i < len(in); i++ {
				if numberStart[in[i]] {
					want = i
					break
				}
			}
			if got := m.nextNumberStart(from); got != want {
				t.Errorf("%q from %d: got %d, want %d", in, from, got, want)
			}
		}
		g.release(m)
	}
}

// TestEngineNumberAtIntegers checks the values numberValue gives against
// strconv.ParseFloat of the text it matched, on integers of up to 18
// digits with and without signs (the short ones are computed without
// ParseFloat), zeros (-0 is negative), fractions and exponents.
func TestEngineNumberAtIntegers(t *testing.T) {
	g := mustCompile(t, `<Start> = x -> 1;`, Options{})
	inputs := []string{"0", "-0", "+0", "007", "-007", "5 x", "x 42", "123456789012345", "-999999999999999",
		"1234567890123456", "9007199254740993", "123456789012345678", "1.5", "-2e3", "12e", "3.x", "+", "-x"}
	rng := rand.New(rand.NewSource(4))
	for range 300 {
		b := []byte{"+-0"[rng.Intn(3)]}
		for range rng.Intn(18) {
			b = append(b, byte('0'+rng.Intn(10)))
		}
		inputs = append(inputs, string(b))
	}
	for _, in := range inputs {
		m := g.newMatcher(in, false)
		for pos := 0; pos < len(in); pos++ {
			e := m.numberEnd(pos)
			if e <= pos || !m.boundary(e, SpacingAuto) {
				continue
			}
			v, ok := m.numberValue(pos, e)
			if !ok {
				continue
			}
			want, err := strconv.ParseFloat(in[pos:e], 64)
			if err != nil || v != want || math.Signbit(v) != math.Signbit(want) {
				t.Errorf("%q at %d: got %v (to %d), want %v (%v)", in, pos, v, e, want, err)
			}
		}
		g.release(m)
	}
}
