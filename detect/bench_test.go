package detect

import (
	"bytes"
	"regexp"
	"testing"
)

// The benchmarks run over the real model outputs (skipped when absent), in
// two shapes: each output as its own message, and all of them concatenated
// into one message separated by blank lines. Compare the figures within one
// run: the machine is shared and noisy.
//
//	go test ./detect -run '^$' -bench . -benchtime 5x

func benchCorpus(b *testing.B) (msgs [][]byte, total int) {
	msgs = loadOutputs(b)
	for _, m := range msgs {
		total += len(m)
	}
	return msgs, total
}

func benchConcat(b *testing.B) []byte {
	msgs := loadOutputs(b)
	return bytes.Join(msgs, []byte("\n\n"))
}

func BenchmarkScanWhole(b *testing.B) {
	msgs, total := benchCorpus(b)
	s := NewScanner(testVocab(), DefaultOptions())
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, m := range msgs {
			s.Scan(m)
		}
	}
}

func BenchmarkScanStream4(b *testing.B) {
	msgs, total := benchCorpus(b)
	s := NewScanner(testVocab(), DefaultOptions())
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, m := range msgs {
			s.Reset()
			for i := 0; i < len(m); i += 4 {
				s.Write(m[i:min(i+4, len(m))])
			}
			s.Close()
		}
	}
}

// baselineRE is the regexp detector.
var baselineRE = regexp.MustCompile(`(?m)(^|\s)/[A-Za-z][\w-]*`)

func BenchmarkBaselineRegexp(b *testing.B) {
	msgs, total := benchCorpus(b)
	b.SetBytes(int64(total))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, m := range msgs {
			n += len(baselineRE.FindAllIndex(m, -1))
		}
	}
	if n == 0 {
		b.Fatal("regexp found nothing")
	}
}

func BenchmarkBaselineIndexByte(b *testing.B) {
	msgs, total := benchCorpus(b)
	b.SetBytes(int64(total))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, m := range msgs {
			for i := 0; ; {
				k := bytes.IndexByte(m[i:], '/')
				if k < 0 {
					break
				}
				n++
				i += k + 1
			}
		}
	}
	if n == 0 {
		b.Fatal("no slash found")
	}
}

func BenchmarkConcatWhole(b *testing.B) {
	msg := benchConcat(b)
	s := NewScanner(testVocab(), DefaultOptions())
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		s.Scan(msg)
	}
}

func BenchmarkConcatStream4(b *testing.B) {
	msg := benchConcat(b)
	s := NewScanner(testVocab(), DefaultOptions())
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		s.Reset()
		for i := 0; i < len(msg); i += 4 {
			s.Write(msg[i:min(i+4, len(msg))])
		}
		s.Close()
	}
}
