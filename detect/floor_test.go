package detect

import "testing"

type appendWriter struct{ buf []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	if len(w.buf)+len(p) > 4096 {
		w.buf = w.buf[:0]
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

func BenchmarkFloorAppend4(b *testing.B) {
	msgs, total := benchCorpus(b)
	w := &appendWriter{buf: make([]byte, 0, 4096)}
	b.SetBytes(int64(total))
	for b.Loop() {
		for _, m := range msgs {
			for i := 0; i < len(m); i += 4 {
				w.Write(m[i:min(i+4, len(m))])
			}
		}
	}
}
