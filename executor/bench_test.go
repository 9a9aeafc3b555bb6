package executor

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect/intent"
)

// BenchmarkCalc reports evaluations per second (1e9 / ns/op) for typical
// calc inputs.
func BenchmarkCalc(b *testing.B) {
	c := NewCalc(CalcOptions{})
	for _, bc := range []struct{ name, expr string }{
		{"arithmetic", "(2 + 3) * 4 / 7 - 1"},
		{"statements", "radius = 5; pi * radius^2"},
		{"percent", "15% off 80"},
		{"units", "5 feet to meters"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			in := intent.Calc{Expr: bc.expr}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Eval(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "evals/s")
		})
	}
}

// BenchmarkFetch fetches and converts a local HTML page over a real HTTP
// connection; throughput is in bytes of HTML.
func BenchmarkFetch(b *testing.B) {
	page, err := os.ReadFile("testdata/article.html")
	if err != nil {
		b.Fatal(err)
	}
	page = bigPage(page, 64<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	defer srv.Close()
	for _, format := range []string{"text", "html"} {
		b.Run(format, func(b *testing.B) {
			f := NewFetcher(FetchOptions{AllowPrivate: true, ChunkBytes: 1 << 20})
			in := intent.Fetch{URL: srv.URL, Format: format}
			b.SetBytes(int64(len(page)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.Fetch(context.Background(), in, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// bigPage repeats the content of page's <main> until the page is at least
// size bytes: one well-formed document of realistic size.
func bigPage(page []byte, size int) []byte {
	s := string(page)
	i, j := strings.Index(s, "<main>")+len("<main>"), strings.Index(s, "</main>")
	body := s[i:j]
	var b strings.Builder
	b.WriteString(s[:i])
	for b.Len() < size {
		b.WriteString(body)
	}
	b.WriteString(s[j:])
	return []byte(b.String())
}

// BenchmarkHTMLToMarkdown is the conversion alone.
func BenchmarkHTMLToMarkdown(b *testing.B) {
	page, err := os.ReadFile("testdata/article.html")
	if err != nil {
		b.Fatal(err)
	}
	doc := string(bigPage(page, 64<<10))
	base, _ := url.Parse("https://tides.test/")
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		HTMLToMarkdown(doc, base)
	}
}

// BenchmarkClean is the terminal-safety pass on text with escapes.
func BenchmarkClean(b *testing.B) {
	s := ""
	for len(s) < 16<<10 {
		s += "plain text with \x1b[31mcolour\x1b[0m and ünïcode\r\n"
	}
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		Clean(s)
	}
}
