package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
)

func TestWebURLProvider(t *testing.T) {
	var gotQuery, gotKey string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotQuery = r.URL.Query().Get("q")
		gotKey = r.Header.Get("X-Key")
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/brave":
			fmt.Fprint(w, `{"web":{"results":[
				{"title":"Go <strong>1.26</strong> notes","url":"https://go.dev/doc/go1.26","description":"What&#39;s new in <strong>Go</strong>","meta":{"age":"2d"}},
				{"title":"","url":"","description":"empty skipped"},
				{"title":"Second","url":"https://b.test/","description":"b \u001b[31mred"},
				{"title":"Third","url":"https://c.test/"}
			]}}`)
		case "/post":
			var in struct{ Query string }
			if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&in) != nil {
				http.Error(w, "want a JSON POST", 400)
				return
			}
			json.NewEncoder(w).Encode(map[string]any{"results": []map[string]string{{"title": "About " + in.Query, "url": "https://p.test/", "content": "c"}}})
		case "/array":
			fmt.Fprint(w, `[{"t":"A","u":"https://a.test"},{"t":"B","u":"https://b.test"}]`)
		case "/html":
			fmt.Fprint(w, `<html>not json</html>`)
		case "/bad":
			fmt.Fprint(w, `{"web":`)
		case "/noarray":
			fmt.Fprint(w, `{"web":{"results":{}}}`)
		case "/limited":
			http.Error(w, `{"error":"rate limited"}`, http.StatusTooManyRequests)
		}
	}))
	defer srv.Close()
	t.Setenv("EXECUTOR_WEB_KEY", "k1")

	brave, err := NewWeb(WebOptions{URL: srv.URL + "/brave?q={query}", Headers: map[string]string{"X-Key": "${EXECUTOR_WEB_KEY}"},
		Results: "web.results", Link: "url", Snippet: "description", MaxResults: 2})
	if err != nil {
		t.Fatal(err)
	}
	r, err := brave.Search(context.Background(), intent.Web{Query: "go 1.26 & generics?"})
	if err != nil {
		t.Fatal(err)
	}
	if gotQuery != "go 1.26 & generics?" || gotKey != "k1" {
		t.Errorf("provider got q=%q key=%q", gotQuery, gotKey)
	}
	want := "1. Go 1.26 notes — https://go.dev/doc/go1.26\n   What's new in Go\n2. Second — https://b.test/\n   b red"
	if r.Text != want {
		t.Errorf("text =\n%s\nwant\n%s", r.Text, want)
	}
	if d := r.Data.(WebData); len(d.Results) != 2 || d.Results[0].URL != "https://go.dev/doc/go1.26" {
		t.Errorf("data = %+v", d)
	}

	post, err := NewWeb(WebOptions{URL: srv.URL + "/post", Method: "post", Snippet: "content"})
	if err != nil {
		t.Fatal(err)
	}
	r, err = post.Search(context.Background(), intent.Web{Query: `tides "now"`})
	if err != nil || r.Text != "1. About tides \"now\" — https://p.test/\n   c" {
		t.Errorf("POST provider: %q %v", r.Text, err)
	}

	arr, _ := NewWeb(WebOptions{URL: srv.URL + "/array?q={query}", Results: ".", Title: "t", Link: "u"})
	r, err = arr.Search(context.Background(), intent.Web{Query: "x"})
	if err != nil || r.Text != "1. A — https://a.test\n2. B — https://b.test" {
		t.Errorf("array root: %q %v", r.Text, err)
	}

	for path, code := range map[string]codes.Code{"/html": codes.BadOutput, "/bad": codes.BadOutput, "/noarray": codes.BadOutput, "/limited": codes.HTTPStatus} {
		w, _ := NewWeb(WebOptions{URL: srv.URL + path + "?q={query}", Results: "web.results"})
		if _, err := w.Search(context.Background(), intent.Web{Query: "x"}); codes.Of(err) != code {
			t.Errorf("%s: %v, want %s", path, err, code)
		}
	}
}

func TestWebCommandProvider(t *testing.T) {
	mapping := WebOptions{Results: "items", Title: "name", Link: "link", Snippet: "text"}
	// The query as an argument...
	o := mapping
	o.Command = helperArgv(t, "search", "{query}")
	w, err := NewWeb(o)
	if err != nil {
		t.Fatal(err)
	}
	r, err := w.Search(context.Background(), intent.Web{Query: "tides; rm -rf /"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Text, "1. About tides; rm -rf / — https://a.test/tides; rm -rf /\n   first") {
		t.Errorf("argv query: %q", r.Text)
	}
	// ...or as JSON on stdin.
	o.Command = helperArgv(t, "search")
	w, _ = NewWeb(o)
	r, err = w.Search(context.Background(), intent.Web{Query: `"quoted" $(x)`})
	if err != nil || !strings.Contains(r.Text, `About "quoted" $(x)`) {
		t.Errorf("stdin query: %q %v", r.Text, err)
	}
	// Plain text is returned as it is.
	w, _ = NewWeb(WebOptions{Command: helperArgv(t, "print", "plain", "answer")})
	r, err = w.Search(context.Background(), intent.Web{Query: "q"})
	if err != nil || r.Text != "plain answer" {
		t.Errorf("text answer: %q %v", r.Text, err)
	}
	w, _ = NewWeb(WebOptions{Command: helperArgv(t, "print", "[1] Tides — https://t.test")})
	r, err = w.Search(context.Background(), intent.Web{Query: "q"})
	if err != nil || r.Text != "[1] Tides — https://t.test" {
		t.Errorf("bracketed text answer: %q %v", r.Text, err)
	}
}

func TestWebConfig(t *testing.T) {
	none, _ := NewWeb(WebOptions{})
	if _, err := none.Search(context.Background(), intent.Web{Query: "x"}); codes.Of(err) != codes.NotConfigured {
		t.Errorf("unconfigured: %v", err)
	}
	if _, err := none.Search(context.Background(), intent.Web{Query: " "}); codes.Of(err) != codes.MissingArg {
		t.Errorf("empty query: %v", err)
	}
	if _, err := NewWeb(WebOptions{URL: "https://x.test/search"}); configKey(err) != "web.url" {
		t.Errorf("no placeholder: %v", err)
	}
	if _, err := NewWeb(WebOptions{URL: "https://x.test/?q={query}", Method: "PUT"}); configKey(err) != "web.method" {
		t.Errorf("bad method: %v", err)
	}
	if _, err := NewWeb(WebOptions{URL: "https://x.test/?q={query}", Command: []string{"x"}}); configKey(err) != "web" {
		t.Errorf("both: %v", err)
	}
}

func TestExpandURLTemplate(t *testing.T) {
	for tmpl, want := range map[string]string{
		"https://s.test/search?q={query}&n=5": "https://s.test/search?q=a+b%2Fc%26d%3F&n=5",
		"https://s.test/search/{query}":       "https://s.test/search/a%20b%2Fc&d%3F",
		"https://s.test/{query}?q={query}":    "https://s.test/a%20b%2Fc&d%3F?q=a+b%2Fc%26d%3F",
	} {
		if got := expandURLTemplate(tmpl, "a b/c&d?"); got != want {
			t.Errorf("expandURLTemplate(%q) = %q, want %q", tmpl, got, want)
		}
	}
}

func TestJSONPath(t *testing.T) {
	doc := map[string]any{"a": []any{map[string]any{"b": "x"}}}
	if got := jsonPath(doc, "a.0.b"); got != "x" {
		t.Errorf("a.0.b = %v", got)
	}
	for _, p := range []string{"a.1.b", "a.x", "z", "a.0.b.c"} {
		if got := jsonPath(doc, p); got != nil {
			t.Errorf("%s = %v", p, got)
		}
	}
}
