package detect

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// scanChunks feeds msg to a fresh scanner in pieces cut at cuts.
func scanChunks(v Vocabulary, opt Options, msg []byte, cuts []int) []Action {
	s := NewScanner(v, opt)
	prev := 0
	for _, c := range cuts {
		s.Write(msg[prev:c])
		prev = c
	}
	s.Write(msg[prev:])
	s.Close()
	return s.Actions()
}

// scanSize feeds msg n bytes at a time.
func scanSize(s *Scanner, msg []byte, n int) []Action {
	s.Reset()
	for i := 0; i < len(msg); i += n {
		s.Write(msg[i:min(i+n, len(msg))])
	}
	s.Close()
	return s.Actions()
}

// checkSplits asserts that every single split point and a few random
// multi-splits give what whole-message scanning gives.
func checkSplits(t *testing.T, msg string) {
	t.Helper()
	if err := splitsAgree(testVocab(), DefaultOptions(), []byte(msg), rand.New(rand.NewSource(int64(len(msg)))), 8); err != nil {
		t.Error(err)
	}
}

func splitsAgree(v Vocabulary, opt Options, msg []byte, rng *rand.Rand, multi int) error {
	whole := clone(Scan(v, opt, msg))
	slow := NewScanner(v, opt)
	slow.noSkip = true
	if got := slow.Scan(msg); !same(got, whole) {
		return fmt.Errorf("skipping quiet lines changed the report for %q:\n got %v\nwant %v", msg, briefs(whole), briefs(got))
	}
	for i := 0; i <= len(msg); i++ {
		if got := scanChunks(v, opt, msg, []int{i}); !same(got, whole) {
			return fmt.Errorf("split at %d of %q:\n got %v\nwant %v", i, msg, briefs(got), briefs(whole))
		}
	}
	for k := 0; k < multi; k++ {
		cuts := randomCuts(rng, len(msg))
		if got := scanChunks(v, opt, msg, cuts); !same(got, whole) {
			return fmt.Errorf("cuts %v of %q:\n got %v\nwant %v", cuts, msg, briefs(got), briefs(whole))
		}
	}
	return nil
}

func randomCuts(rng *rand.Rand, n int) []int {
	var cuts []int
	for p := 0; p < n; {
		p += 1 + rng.Intn(12)
		if p < n {
			cuts = append(cuts, p)
		}
	}
	return cuts
}

func clone(as []Action) []Action { return append([]Action(nil), as...) }

// same compares two reports, an empty one equal to a nil one.
func same(a, b []Action) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
}

// TestChunkIndependenceFixtures feeds every message of testdata/messages.txt
// split at every point and in random multi-splits, and at fixed sizes.
func TestChunkIndependenceFixtures(t *testing.T) {
	msgs := loadFixtures(t)
	v, opt := testVocab(), DefaultOptions()
	rng := rand.New(rand.NewSource(1))
	s := NewScanner(v, opt)
	for _, m := range msgs {
		if err := splitsAgree(v, opt, []byte(m.text), rng, 20); err != nil {
			t.Errorf("%s: %v", m.name, err)
			continue
		}
		whole := clone(Scan(v, opt, []byte(m.text)))
		for _, n := range []int{1, 2, 3, 4, 7, 64} {
			if got := scanSize(s, []byte(m.text), n); !same(got, whole) {
				t.Errorf("%s at %d-byte chunks: got %v, want %v", m.name, n, briefs(got), briefs(whole))
			}
		}
	}
}

// countingVocab counts the calls the scanner makes.
type countingVocab struct {
	v                Vocabulary
	resolve, extends int
}

func (c *countingVocab) Resolve(t string) (string, bool) { c.resolve++; return c.v.Resolve(t) }
func (c *countingVocab) Extends(p string) bool           { c.extends++; return c.v.Extends(p) }

// The vocabulary is asked about candidate tokens only — once per candidate
// plus once per extension word — however the message is split.
func TestVocabularyCalledPerCandidate(t *testing.T) {
	for _, m := range loadFixtures(t) {
		whole := &countingVocab{v: testVocab()}
		as := Scan(whole, DefaultOptions(), []byte(m.text))
		words := 0
		for _, a := range as {
			words += len(strings.Fields(a.Token))
		}
		if whole.resolve < len(as) || whole.resolve > len(as)+words+len(as) {
			t.Errorf("%s: %d Resolve calls for %d candidates", m.name, whole.resolve, len(as))
		}
		byte1 := &countingVocab{v: testVocab()}
		s := NewScanner(byte1, DefaultOptions())
		scanSize(s, []byte(m.text), 1)
		if byte1.resolve != whole.resolve || byte1.extends != whole.extends {
			t.Errorf("%s: 1-byte chunks made %d/%d calls, whole message %d/%d",
				m.name, byte1.resolve, byte1.extends, whole.resolve, whole.extends)
		}
	}
}
