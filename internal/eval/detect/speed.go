package main

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"time"

	"github.com/pattern-dialect/dialect/detect"
)

// speedRow is one method's best pass over the corpus.
type speedRow struct {
	name string
	best time.Duration
}

// appendWriter is the cheapest useful io.Writer: it keeps the current 4 KiB.
type appendWriter struct{ buf []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	if len(w.buf)+len(p) > cap(w.buf) {
		w.buf = w.buf[:0]
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// speed times one pass over every message for each method, interleaving
// the methods round after round and keeping each one's fastest pass, so
// that a shared, noisy machine slows them all alike and the ratios hold.
// The regexp baseline, some 500 times slower, runs in fewer rounds.
func speed(msgs [][]byte, rounds int) []speedRow {
	v := vocabulary()
	s := detect.NewScanner(v, detect.DefaultOptions())
	var sw io.Writer = s
	var fw io.Writer = &appendWriter{buf: make([]byte, 0, 4096)}
	re := regexp.MustCompile(`(?m)(^|\s)/[A-Za-z][\w-]*`)
	sink := 0
	methods := []struct {
		name   string
		rounds int
		pass   func()
	}{
		{"scanner, whole messages", rounds, func() {
			for _, m := range msgs {
				sink += len(s.Scan(m))
			}
		}},
		{"scanner, 4-byte writes", rounds, func() {
			for _, m := range msgs {
				s.Reset()
				for i := 0; i < len(m); i += 4 {
					sw.Write(m[i:min(i+4, len(m))])
				}
				s.Close()
				sink += len(s.Actions())
			}
		}},
		{"floor: io.Writer that appends, 4-byte writes", rounds, func() {
			for _, m := range msgs {
				for i := 0; i < len(m); i += 4 {
					fw.Write(m[i:min(i+4, len(m))])
				}
			}
		}},
		{"floor: io.Discard, 4-byte writes", rounds, func() {
			for _, m := range msgs {
				for i := 0; i < len(m); i += 4 {
					io.Discard.Write(m[i:min(i+4, len(m))])
				}
			}
		}},
		{"baseline: bytes.IndexByte('/')", rounds, func() {
			for _, m := range msgs {
				for i := 0; ; {
					k := bytes.IndexByte(m[i:], '/')
					if k < 0 {
						break
					}
					sink++
					i += k + 1
				}
			}
		}},
		{"baseline: regexp " + re.String(), max(1, rounds/5), func() {
			for _, m := range msgs {
				sink += len(re.FindAllIndex(m, -1))
			}
		}},
	}
	rows := make([]speedRow, len(methods))
	for r := 0; r < rounds; r++ {
		for i, m := range methods {
			if r >= m.rounds {
				continue
			}
			t := time.Now()
			m.pass()
			d := time.Since(t)
			if rows[i].best == 0 || d < rows[i].best {
				rows[i] = speedRow{m.name, d}
			}
		}
	}
	if sink == 0 {
		panic("speed: nothing found, nothing measured")
	}
	return rows
}

func printSpeed(w io.Writer, rows []speedRow, total int) {
	fmt.Fprintf(w, "throughput over %.1f MB, best pass of interleaved rounds:\n", float64(total)/1e6)
	rate := func(d time.Duration) float64 { return float64(total) / 1e6 / d.Seconds() }
	whole := rate(rows[0].best)
	for _, r := range rows {
		fmt.Fprintf(w, "  %-48s %9.1f MB/s  (whole-message scanner ÷ this: %.2f)\n", r.name, rate(r.best), whole/rate(r.best))
	}
}
