package detect

import (
	"bytes"
	"io"
	"regexp"
	"testing"
)

// BenchmarkDetect runs over the real model outputs (skipped when absent) in
// two shapes: "messages", each output scanned as its own message, and
// "concat", all outputs joined by blank lines into one message. For each:
//
//   - whole: the scanner on each whole message (Scanner.Scan);
//   - stream4: the scanner fed 4 bytes per Write, through io.Writer;
//   - regexp: the baseline detector `(?m)(^|\s)/[A-Za-z][\w-]*`;
//   - indexbyte: a bare bytes.IndexByte('/') pass;
//   - discard4: io.Discard fed 4 bytes per Write through the interface — what
//     any io.Writer costs at 4-byte chunks before doing any work at all;
//   - floor4: an io.Writer that only appends, fed the same way — what
//     keeping the current line costs on top of that.
//
// Compare figures within one run: the machine is shared and noisy.
//
//	go test ./detect -run '^$' -bench Detect -benchtime 5x -count 3
func BenchmarkDetect(b *testing.B) {
	msgs := loadOutputs(b)
	shapes := []struct {
		name string
		msgs [][]byte
	}{
		{"messages", msgs},
		{"concat", [][]byte{bytes.Join(msgs, []byte("\n\n"))}},
	}
	re := regexp.MustCompile(`(?m)(^|\s)/[A-Za-z][\w-]*`)
	for _, sh := range shapes {
		total := 0
		for _, m := range sh.msgs {
			total += len(m)
		}
		run := func(name string, f func(m []byte) int) {
			b.Run(sh.name+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(total))
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					for _, m := range sh.msgs {
						n += f(m)
					}
				}
				if n == 0 {
					b.Fatal("found nothing: the benchmark measures nothing")
				}
			})
		}
		s := NewScanner(testVocab(), DefaultOptions())
		run("whole", func(m []byte) int { return len(s.Scan(m)) + 1 })
		var sw io.Writer = s // as a host streams: through the interface
		run("stream4", func(m []byte) int {
			s.Reset()
			for i := 0; i < len(m); i += 4 {
				sw.Write(m[i:min(i+4, len(m))])
			}
			s.Close()
			return len(s.Actions()) + 1
		})
		run("regexp", func(m []byte) int { return len(re.FindAllIndex(m, -1)) })
		run("indexbyte", func(m []byte) int {
			n := 0
			for i := 0; ; {
				k := bytes.IndexByte(m[i:], '/')
				if k < 0 {
					return n
				}
				n++
				i += k + 1
			}
		})
		run("discard4", func(m []byte) int {
			for i := 0; i < len(m); i += 4 {
				io.Discard.Write(m[i:min(i+4, len(m))])
			}
			return 1
		})
		var w io.Writer = &appendWriter{buf: make([]byte, 0, 4096)}
		run("floor4", func(m []byte) int {
			for i := 0; i < len(m); i += 4 {
				w.Write(m[i:min(i+4, len(m))])
			}
			return 1
		})
	}
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
