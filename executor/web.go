package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
)

// WebOptions configure the /web provider ([exec.web]): either URL (a GET
// returning JSON) or Command.
type WebOptions struct {
	// URL is a template: {query} is replaced by the URL-escaped query,
	// e.g. "https://api.search.brave.com/res/v1/web/search?q={query}".
	URL string `toml:"url"`
	// Method is "GET" (the default) or "POST"; a POST sends
	// {"query": "..."} as its JSON body, and URL needs no {query}.
	Method string `toml:"method"`
	// Headers are sent with the request; ${NAME} is read from the
	// environment (e.g. X-Subscription-Token = "${BRAVE_API_KEY}").
	Headers map[string]string `toml:"headers"`
	// Command is an argv; {query} inside an element is replaced by the
	// query (one argument, no shell). With no {query} anywhere, the
	// command gets {"query": "..."} on stdin. It prints JSON (read like
	// the URL's answer) or plain text (returned as is, bounded).
	Command []string `toml:"command"`
	// Env names environment variables passed to the command.
	Env []string `toml:"env"`
	// Results is the dotted path to the results array in the JSON answer
	// ("web.results"; "" when the answer is the array). Default "results".
	Results string `toml:"results"`
	// Title, Link and Snippet are the dotted paths of each result's
	// fields. Defaults "title", "url", "snippet".
	Title   string `toml:"title"`
	Link    string `toml:"link"`
	Snippet string `toml:"snippet"`
	// MaxResults is how many results are returned. Default 5.
	MaxResults int `toml:"max_results"`
	// Timeout bounds one search. Default 15s.
	Timeout Duration `toml:"timeout"`
	// MaxBytes bounds the answer read. Default 1 MiB.
	MaxBytes int `toml:"max_bytes"`
}

// Web searches through the configured provider. It is safe for concurrent
// use.
type Web struct {
	o      WebOptions
	client *http.Client
}

// WebResult is one search result.
type WebResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet,omitempty"`
}

// WebData is the Data of a web Result.
type WebData struct {
	Query   string      `json:"query"`
	Results []WebResult `json:"results,omitempty"`
	Text    string      `json:"text,omitempty"` // a command's plain-text answer
}

// NewWeb checks o and returns the provider; with neither URL nor Command
// it returns a Web whose searches fail with NOT_CONFIGURED.
func NewWeb(o WebOptions) (*Web, error) {
	if o.URL != "" && len(o.Command) > 0 {
		return nil, configErr("web", "sets both url and command; choose one")
	}
	o.Method = strings.ToUpper(cmpOr(o.Method, "GET"))
	if o.Method != "GET" && o.Method != "POST" {
		return nil, configErr("web.method", "%q is not GET or POST", o.Method)
	}
	if o.URL != "" && o.Method == "GET" && !strings.Contains(o.URL, "{query}") {
		return nil, configErr("web.url", "has no {query} placeholder")
	}
	if o.Results == "" && o.URL != "" {
		o.Results = "results"
	}
	o.Title = cmpOr(o.Title, "title")
	o.Link = cmpOr(o.Link, "url")
	o.Snippet = cmpOr(o.Snippet, "snippet")
	o.MaxResults = orInt(o.MaxResults, 5)
	o.MaxBytes = orInt(o.MaxBytes, 1<<20)
	return &Web{o: o, client: newHTTPClient()}, nil
}

// Configured reports whether a provider is configured: without one,
// Search answers NOT_CONFIGURED.
func (w *Web) Configured() bool { return w != nil && (w.o.URL != "" || len(w.o.Command) > 0) }

// Search runs in.Query through the provider.
func (w *Web) Search(ctx context.Context, in intent.Web) (Result, error) {
	q := strings.TrimSpace(in.Query)
	if q == "" {
		return Result{}, codes.Wrap(codes.MissingArg, nil, "/web needs a query")
	}
	timeout := w.o.Timeout.or(15 * time.Second)
	var out string
	var err error
	switch {
	case w.o.URL != "":
		u := expandURLTemplate(w.o.URL, q)
		var body []byte
		if w.o.Method == "POST" {
			body, _ = json.Marshal(map[string]string{"query": q})
		}
		out, _, err = httpSpec{headers: w.o.Headers, timeout: timeout, maxOutput: w.o.MaxBytes}.do(ctx, w.client, u, body)
	case len(w.o.Command) > 0:
		argv, err := expandArgv(w.o.Command, map[string]string{"query": q}, false)
		if err != nil {
			return Result{}, err
		}
		var stdin []byte
		if !strings.Contains(strings.Join(w.o.Command, "\x00"), "{query}") {
			stdin, _ = json.Marshal(map[string]string{"query": q})
		}
		out, err = commandSpec{env: w.o.Env, timeout: timeout, maxOutput: w.o.MaxBytes}.run(ctx, argv, stdin)
	default:
		return Result{}, codes.Wrap(codes.NotConfigured, nil, "no web search provider is configured ([exec.web] url or command)")
	}
	if err != nil {
		if e, ok := err.(*codes.Error); ok {
			return Result{}, &codes.Error{Code: e.Code, Msg: "web search: " + e.Msg, Err: e.Err}
		}
		return Result{}, err
	}
	data := WebData{Query: q}
	trimmed := strings.TrimSpace(out)
	looksJSON := strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "[")
	if looksJSON && (w.o.URL != "" || json.Valid([]byte(trimmed))) {
		data.Results, err = w.parse([]byte(trimmed))
		if err != nil {
			return Result{}, err
		}
		return Result{Text: formatResults(data.Results), Data: data}, nil
	}
	if w.o.URL != "" {
		return Result{}, codes.Wrap(codes.BadOutput, nil, "the search provider did not answer JSON")
	}
	// A command's text answer ("[1] Title ..." included) is returned as is.
	data.Text = bound(trimmed, 8<<10)
	if data.Text == "" {
		data.Text = "no results"
	}
	return Result{Text: data.Text, Data: data}, nil
}

// expandURLTemplate fills {query}: query-escaped in the query string
// ("a b" → "a+b"), path-escaped before it ("a b" → "a%20b").
func expandURLTemplate(tmpl, q string) string {
	cut := strings.IndexByte(tmpl, '?')
	if cut < 0 {
		cut = len(tmpl)
	}
	return strings.ReplaceAll(tmpl[:cut], "{query}", url.PathEscape(q)) +
		strings.ReplaceAll(tmpl[cut:], "{query}", url.QueryEscape(q))
}

func (w *Web) parse(body []byte) ([]WebResult, error) {
	var doc any
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, codes.Wrap(codes.BadOutput, err, "the search answer is not valid JSON")
	}
	arr, ok := jsonPath(doc, w.o.Results).([]any)
	if !ok {
		return nil, codes.Wrap(codes.BadOutput, nil, "the search answer has no array at %q", w.o.Results)
	}
	var out []WebResult
	for _, item := range arr {
		r := WebResult{
			Title:   stripTags(jsonString(jsonPath(item, w.o.Title))),
			URL:     jsonString(jsonPath(item, w.o.Link)),
			Snippet: stripTags(jsonString(jsonPath(item, w.o.Snippet))),
		}
		if r.Title == "" && r.URL == "" {
			continue
		}
		r.Title, _ = truncate(Clean(r.Title), 200)
		r.URL, _ = truncate(Clean(r.URL), 500)
		r.Snippet, _ = truncate(Clean(r.Snippet), 400)
		out = append(out, r)
		if len(out) == w.o.MaxResults {
			break
		}
	}
	return out, nil
}

func formatResults(rs []WebResult) string {
	if len(rs) == 0 {
		return "no results"
	}
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d. %s", i+1, cmpOr(r.Title, r.URL))
		if r.URL != "" && r.Title != "" {
			b.WriteString(" — " + r.URL)
		}
		if r.Snippet != "" {
			b.WriteString("\n   " + r.Snippet)
		}
	}
	return b.String()
}

// jsonPath follows a dotted path of object keys and array indices.
func jsonPath(v any, path string) any {
	if path == "" || path == "." {
		return v
	}
	for _, key := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[key]
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func jsonString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// stripTags removes markup such as the <strong> some providers put in
// snippets, and decodes entities.
func stripTags(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return collapse(s)
	}
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	for {
		switch z.Next() {
		case html.ErrorToken:
			return collapse(b.String())
		case html.TextToken:
			b.Write(z.Text())
		}
	}
}
