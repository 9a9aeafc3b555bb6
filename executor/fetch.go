package executor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html/charset"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
)

// FetchOptions bound /fetch ([exec.fetch] in dialect.toml).
type FetchOptions struct {
	// MaxBytes is the most read from the network for one page (after
	// decompression); the rest is dropped and the result says so.
	// Default 4 MiB.
	MaxBytes int64 `toml:"max_bytes"`
	// ChunkBytes is the most text one /fetch returns; /fetch continue
	// returns the next chunk. Default 16 KiB.
	ChunkBytes int `toml:"chunk_bytes"`
	// Timeout bounds one request, redirects and body included. Default 20s.
	Timeout Duration `toml:"timeout"`
	// MaxRedirects is how many redirects are followed. Default 5.
	MaxRedirects int `toml:"max_redirects"`
	// AllowPrivate lets fetch reach loopback, private, link-local and other
	// non-public addresses. Default false.
	AllowPrivate bool `toml:"allow_private"`
	// UserAgent is sent with every request. Default "dialect-fetch/1".
	UserAgent string `toml:"user_agent"`
	// CachePages is how many converted pages a long-lived process keeps
	// for /fetch continue (so that the next chunk comes from the same
	// text without a new request); -1 keeps none. Default 8.
	CachePages int `toml:"cache_pages"`
	// CacheTTL is how long a kept page serves /fetch continue. Default 10m.
	CacheTTL Duration `toml:"cache_ttl"`
}

// Fetcher carries out /fetch. It is safe for concurrent use.
type Fetcher struct {
	client   *http.Client
	maxBytes int64
	chunk    int
	agent    string
	cache    *pageCache
}

// Cursor says where a fetch stopped. The runtime keeps the last one per
// session and passes it back for /fetch continue, which fetches URL again
// and returns the text from Offset on.
type Cursor struct {
	URL    string `json:"url"`
	Format string `json:"format"`
	Offset int    `json:"offset"`
}

// FetchData is the Data of a fetch Result.
type FetchData struct {
	URL         string  `json:"url"` // after redirects
	Status      int     `json:"status"`
	ContentType string  `json:"content_type"`
	Title       string  `json:"title,omitempty"`
	Format      string  `json:"format"`              // "text" or "html"
	Offset      int     `json:"offset"`              // where this chunk starts in the whole text
	Total       int     `json:"total"`               // length of the whole text, in bytes
	Truncated   bool    `json:"truncated,omitempty"` // the page was longer than max_bytes
	Next        *Cursor `json:"next,omitempty"`      // nil when nothing is left
}

// NewFetcher returns a Fetcher with o's limits (zero fields take defaults).
func NewFetcher(o FetchOptions) *Fetcher {
	var allow func(netip.Addr) bool
	if !o.AllowPrivate {
		allow = IsPublicAddr
	}
	return newFetcher(o, allow)
}

func newFetcher(o FetchOptions, allow func(netip.Addr) bool) *Fetcher {
	timeout := o.Timeout.or(20 * time.Second)
	maxRedirects := o.MaxRedirects
	if maxRedirects == 0 {
		maxRedirects = 5
	}
	tr := &http.Transport{
		Proxy:                  nil, // a proxy would connect on our behalf, past the guard
		DialContext:            guardedDialer(10*time.Second, allow),
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  timeout,
		MaxResponseHeaderBytes: 64 << 10,
		MaxIdleConns:           8,
		IdleConnTimeout:        30 * time.Second,
		ForceAttemptHTTP2:      true,
	}
	client := &http.Client{
		Transport: tr,
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects || maxRedirects < 0 {
				return codes.Wrap(codes.TooManyRedirects, nil, "%s redirected more than %d times", via[0].URL, max(maxRedirects, 0))
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return codes.Wrap(codes.BlockedAddress, nil, "refusing a redirect to %s: only http and https are fetched", req.URL.Scheme)
			}
			return nil
		},
	}
	return &Fetcher{
		client:   client,
		maxBytes: orInt(o.MaxBytes, 4<<20),
		chunk:    orInt(o.ChunkBytes, 16<<10),
		agent:    cmpOr(o.UserAgent, "dialect-fetch/1"),
		cache:    newPageCache(o.CachePages, o.CacheTTL.or(10*time.Minute)),
	}
}

func cmpOr(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

// Fetch carries out in. For in.Continue, prev is the cursor of the
// session's previous fetch (from its FetchData.Next); otherwise prev is
// ignored.
func (f *Fetcher) Fetch(ctx context.Context, in intent.Fetch, prev *Cursor) (Result, error) {
	rawURL, format, offset := in.URL, in.Format, 0
	if in.Continue {
		if prev == nil {
			return Result{}, codes.Wrap(codes.NoPreviousFetch, nil, "there is nothing to continue: the previous /fetch returned the whole page (or there was none)")
		}
		rawURL, format, offset = prev.URL, prev.Format, prev.Offset
	}
	format, err := fetchFormat(format)
	if err != nil {
		return Result{}, err
	}
	u, err := parseFetchURL(rawURL)
	if err != nil {
		return Result{}, err
	}
	var doc string
	var data *FetchData
	if in.Continue {
		doc, data = f.cache.get(u.String(), format)
	}
	if data == nil {
		doc, data, err = f.get(ctx, u, format)
		if err != nil {
			return Result{}, err
		}
		f.cache.put(data.URL, format, doc, data)
	}
	data.Next = nil
	if offset > len(doc) {
		offset = len(doc)
	}
	end := chunkEnd(doc, offset, f.chunk)
	data.Offset, data.Total = offset, len(doc)
	if end < len(doc) {
		data.Next = &Cursor{URL: data.URL, Format: format, Offset: end}
	}
	var b strings.Builder
	if offset == 0 && data.Title != "" && format == "text" {
		b.WriteString("Title: " + data.Title + "\n\n")
	}
	b.WriteString(doc[offset:end])
	switch {
	case data.Next != nil:
		fmt.Fprintf(&b, "\n\n[shown %d–%d of %d bytes; /fetch continue for the rest]", offset, end, len(doc))
	case data.Truncated:
		fmt.Fprintf(&b, "\n\n[the page was cut at %d bytes]", f.maxBytes)
	}
	return Result{Text: b.String(), Data: *data}, nil
}

// NextCursor returns the cursor a fetch result leaves for /fetch continue,
// or nil when r is not a fetch result or nothing is left. The runtime
// stores it per session and passes it to the next Fetch or Execute.
func NextCursor(r Result) *Cursor {
	if d, ok := r.Data.(FetchData); ok {
		return d.Next
	}
	return nil
}

func fetchFormat(f string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(f)) {
	case "", "text", "markdown", "md":
		return "text", nil
	case "html", "raw":
		return "html", nil
	}
	e := codes.Wrap(codes.UnknownModifier, nil, "/fetch formats are text and html, not %q", f)
	e.Subject = f
	return "", e
}

// parseFetchURL accepts http and https URLs; a bare host ("example.com/x")
// is taken as https.
func parseFetchURL(raw string) (*url.URL, error) {
	raw = trimURL(raw)
	if raw == "" {
		return nil, codes.Wrap(codes.MissingArg, nil, "/fetch needs a URL")
	}
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, codes.Wrap(codes.MalformedSyntax, nil, "%q is not a URL", raw)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, codes.Wrap(codes.MalformedSyntax, nil, "/fetch takes http and https URLs, not %s", u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, codes.Wrap(codes.MalformedSyntax, nil, "%q has no host", raw)
	}
	u.Fragment = ""
	return u, nil
}

// trimURL removes what a model writes around a URL in prose: quotes and
// angle brackets, and trailing sentence punctuation or a closing
// parenthesis that the URL did not open ("(see https://x.y/a)." → the URL).
func trimURL(raw string) string {
	raw = strings.Trim(strings.TrimSpace(raw), "<>\"'`")
	for raw != "" {
		last := raw[len(raw)-1]
		switch {
		case strings.IndexByte(".,;:!?", last) >= 0:
			raw = raw[:len(raw)-1]
		case last == ')' && strings.Count(raw, "(") < strings.Count(raw, ")"):
			raw = raw[:len(raw)-1]
		default:
			return raw
		}
	}
	return raw
}

// get fetches u and returns its text in format, cleaned for a terminal.
func (f *Fetcher) get(ctx context.Context, u *url.URL, format string) (string, *FetchData, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", nil, codes.Wrap(codes.MalformedSyntax, err, "%q is not a URL", u)
	}
	req.Header.Set("User-Agent", f.agent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		return "", nil, fetchError(ctx, u, err)
	}
	defer resp.Body.Close()
	data := &FetchData{URL: resp.Request.URL.String(), Status: resp.StatusCode, Format: format}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.maxBytes+1))
	if err != nil {
		return "", nil, fetchError(ctx, u, err)
	}
	if int64(len(body)) > f.maxBytes {
		body, data.Truncated = body[:f.maxBytes], true
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		snippet, _ := truncate(Clean(collapse(string(body))), 200)
		return "", nil, &codes.Error{Code: codes.HTTPStatus, Msg: fmt.Sprintf("%s answered %s", data.URL, resp.Status), Err: &StatusError{Status: resp.StatusCode, Body: snippet}}
	}
	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		ct = http.DetectContentType(body)
	}
	mt, _, _ := mime.ParseMediaType(ct)
	data.ContentType = mt
	isHTML := mt == "text/html" || mt == "application/xhtml+xml"
	if !isHTML && !isTextual(mt) {
		return "", nil, codes.Wrap(codes.UnsupportedType, nil, "%s is %s (%d bytes), which /fetch does not read; it reads HTML and text", data.URL, mt, len(body))
	}
	text := decodeCharset(body, ct)
	if isHTML && format == "text" {
		text, data.Title = HTMLToMarkdown(text, resp.Request.URL)
		data.Title = Clean(data.Title)
	}
	return Clean(text), data, nil
}

// StatusError is the cause of an HTTP_STATUS failure.
type StatusError struct {
	Status int    `json:"status"`         // the HTTP status code
	Body   string `json:"body,omitempty"` // the start of the response body, cleaned, on one line
}

// Error gives the status and the start of the body.
func (e *StatusError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("status %d", e.Status)
	}
	return fmt.Sprintf("status %d: %s", e.Status, e.Body)
}

func isTextual(mt string) bool {
	return strings.HasPrefix(mt, "text/") || mt == "application/json" || mt == "application/xml" ||
		mt == "application/javascript" || mt == "application/x-yaml" || mt == "application/yaml" ||
		strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml")
}

// decodeCharset converts body to UTF-8 using the Content-Type charset, a
// <meta> declaration or a BOM; invalid bytes become U+FFFD later in Clean.
func decodeCharset(body []byte, contentType string) string {
	_, params, _ := mime.ParseMediaType(contentType)
	if cs := strings.ToLower(params["charset"]); (cs == "" || cs == "utf-8" || cs == "utf8") && utf8.Valid(body) {
		return string(body)
	}
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		return string(body)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return string(body)
	}
	return string(out)
}

// fetchError turns a client error into a typed one, keeping the guard's
// and the redirect check's own errors.
func fetchError(ctx context.Context, u *url.URL, err error) error {
	var e *codes.Error
	if errors.As(err, &e) {
		return e
	}
	if ctx.Err() != nil {
		return ctxError(ctx.Err(), "fetching "+u.String())
	}
	var te interface{ Timeout() bool }
	if errors.As(err, &te) && te.Timeout() {
		return codes.Wrap(codes.Timeout, err, "fetching %s took too long", u)
	}
	if ue, ok := err.(*url.Error); ok {
		err = ue.Err // the URL is in the message already
	}
	return codes.Wrap(codes.FetchFailed, err, "could not fetch %s", u)
}

// chunkEnd returns where the chunk of at most size bytes starting at off
// should end: at a paragraph break in its last quarter if there is one,
// else a line break, else a space, else a rune boundary.
func chunkEnd(s string, off, size int) int {
	if len(s)-off <= size {
		return len(s)
	}
	end := off + size
	window := s[off:end]
	floor := size * 3 / 4
	for _, sep := range []string{"\n\n", "\n", " "} {
		if i := strings.LastIndex(window, sep); i >= floor {
			return off + i + len(sep)
		}
	}
	for end > off && !utf8.RuneStart(s[end]) {
		end--
	}
	if end == off { // a chunk smaller than one rune
		_, n := utf8.DecodeRuneInString(s[off:])
		end = off + n
	}
	return end
}

// pageCache keeps the last few converted pages, so that /fetch continue in
// a long-lived process (a proxy, a library host) reads the same text the
// first chunk came from. A process that did not fetch the page (one
// `dialect run` per message) fetches it again.
type pageCache struct {
	mu      sync.Mutex
	max     int
	ttl     time.Duration
	entries []cachedPage // most recent last
}

type cachedPage struct {
	key  string
	doc  string
	data FetchData
	at   time.Time
}

func newPageCache(max int, ttl time.Duration) *pageCache {
	if max == 0 {
		max = 8
	}
	return &pageCache{max: max, ttl: ttl}
}

func (c *pageCache) put(url, format, doc string, data *FetchData) {
	if c.max < 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := format + " " + url
	for i, e := range c.entries {
		if e.key == key {
			c.entries = append(c.entries[:i], c.entries[i+1:]...)
			break
		}
	}
	c.entries = append(c.entries, cachedPage{key: key, doc: doc, data: *data, at: time.Now()})
	if len(c.entries) > c.max {
		c.entries = c.entries[len(c.entries)-c.max:]
	}
}

// get returns a copy of the page's data, or nil when it is not kept.
func (c *pageCache) get(url, format string) (string, *FetchData) {
	if c.max < 0 {
		return "", nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := format + " " + url
	for _, e := range c.entries {
		if e.key == key && time.Since(e.at) < c.ttl {
			d := e.data
			return e.doc, &d
		}
	}
	return "", nil
}
