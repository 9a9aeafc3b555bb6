package detect

import (
	"bufio"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// dataDir is the shared evaluation data: $DIALECT_DATA, else
// ../../shared/data from this package (the checkout's sibling).
func dataDir() string {
	if d := os.Getenv("DIALECT_DATA"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "data")
}

// loadOutputs reads every llm_outputs/*.jsonl text, skipping the test when
// the data is absent.
func loadOutputs(tb testing.TB) [][]byte {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(dataDir(), "llm_outputs", "*.jsonl"))
	if len(files) == 0 {
		tb.Skipf("no real model outputs under %s (set DIALECT_DATA)", dataDir())
	}
	sort.Strings(files)
	var out [][]byte
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var rec struct{ Text string }
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				tb.Fatalf("%s: %v", f, err)
			}
			out = append(out, []byte(rec.Text))
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			tb.Fatal(err)
		}
	}
	return out
}

// TestRealOutputs: no action in the real model outputs is executable, and
// scanning them at 1, 2, 3, 7 and 64-byte chunks and in random
// multi-splits reports exactly what whole-message scanning reports.
func TestRealOutputs(t *testing.T) {
	msgs := loadOutputs(t)
	v, opt := testVocab(), DefaultOptions()
	s := NewScanner(v, opt)
	slow := NewScanner(v, opt)
	slow.noSkip = true
	rng := rand.New(rand.NewSource(2))
	sizes := []int{1, 2, 3, 7, 64}
	if testing.Short() || raceEnabled {
		sizes = []int{3, 64}
	}
	candidates := 0
	for i, m := range msgs {
		whole := clone(Scan(v, opt, m))
		candidates += len(whole)
		for _, a := range whole {
			if a.Executable {
				t.Errorf("message %d: executable action %s", i, brief(a))
			}
			if a.Span.Start < 0 || a.Span.End > len(m) || a.Span.Start >= a.Span.End {
				t.Errorf("message %d: span %+v outside the message", i, a.Span)
			}
		}
		if got := slow.Scan(m); !same(got, whole) {
			t.Fatalf("message %d: skipping quiet lines changed the report:\n got %v\nwant %v", i, briefs(whole), briefs(got))
		}
		for _, n := range sizes {
			if got := scanSize(s, m, n); !same(got, whole) {
				t.Fatalf("message %d at %d-byte chunks:\n got %v\nwant %v", i, n, briefs(got), briefs(whole))
			}
		}
		if got := scanChunks(v, opt, m, randomCuts(rng, len(m))); !same(got, whole) {
			t.Fatalf("message %d in random pieces:\n got %v\nwant %v", i, briefs(got), briefs(whole))
		}
	}
	t.Logf("%d messages, %d candidates, none executable", len(msgs), candidates)
	if len(msgs) < 1000 || candidates == 0 {
		t.Errorf("suspicious data: %d messages, %d candidates", len(msgs), candidates)
	}
}
