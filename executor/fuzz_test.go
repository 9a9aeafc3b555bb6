package executor

import (
	"context"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
)

// FuzzCalc: no expression panics, hangs or escapes the typed errors.
func FuzzCalc(f *testing.F) {
	for _, s := range []string{
		"radius = 5; pi * radius^2", "20% of 350", "15% off 80", "x = 3; x + 10%",
		"5 feet to meters", "70 F to C", "how many feet in a mile", "1..9", "map([1], #)",
		"\"s\" + 1", "a = ; ;", "10 % 3 %", "%%%", "1e308 * 10", "fact(171)", "2(3)(4)",
	} {
		f.Add(s)
	}
	c := NewCalc(CalcOptions{})
	f.Fuzz(func(t *testing.T, s string) {
		r, err := c.Eval(context.Background(), intent.Calc{Expr: s})
		if err != nil {
			if codes.Of(err) == "" {
				t.Fatalf("Eval(%q): untyped error %v", s, err)
			}
			return
		}
		if r.Text == "" || strings.Contains(r.Text, "NaN") || strings.Contains(r.Text, "Inf") {
			t.Fatalf("Eval(%q) = %q", s, r.Text)
		}
	})
}

// FuzzWebParse: any provider answer gives results or a typed error, and
// every result is bounded and clean.
func FuzzWebParse(f *testing.F) {
	f.Add(`{"web":{"results":[{"title":"<b>T</b>","url":"https://x","description":"d"}]}}`)
	f.Add(`{"web":{"results":{}}}`)
	f.Add(`[1, "x", null, {"title": 5}]`)
	w, _ := NewWeb(WebOptions{URL: "https://x.test/?q={query}", Results: "web.results", Snippet: "description"})
	f.Fuzz(func(t *testing.T, body string) {
		rs, err := w.parse([]byte(body))
		if err != nil {
			if codes.Of(err) != codes.BadOutput {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		for _, r := range rs {
			if len(r.Title) > 200 || len(r.URL) > 500 || len(r.Snippet) > 400 || Clean(r.Title) != r.Title || Clean(r.Snippet) != r.Snippet {
				t.Fatalf("result not bounded or not clean: %+v", r)
			}
		}
		formatResults(rs)
	})
}

// FuzzParseFetchURL: a URL is accepted only as http(s) with a host.
func FuzzParseFetchURL(f *testing.F) {
	for _, s := range []string{"https://go.dev/doc.", "example.com/x", "file:///etc/passwd", "(https://a.b/c))", "http://[::1]:80/", "javascript:alert(1)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := parseFetchURL(s)
		if err != nil {
			if codes.Of(err) == "" {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
			t.Fatalf("accepted %q as %v", s, u)
		}
	})
}
