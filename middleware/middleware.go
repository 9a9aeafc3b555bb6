package middleware

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/pattern-dialect/dialect"
	"github.com/tidwall/gjson"
)

// Headers a client may set on a request to carry dialect.Meta through a proxy or
// any client that cannot set a context. A context's dialect.Meta wins over them.
const (
	HeaderAgent   = "X-Dialect-Agent"
	HeaderModel   = "X-Dialect-Model"
	HeaderSession = "X-Dialect-Session"
)

// Response headers the middleware sets on non-streaming chat completions.
const (
	// HeaderResults carries the message's results as a compact JSON array
	// of dialect.Result, in ASCII.
	HeaderResults = "X-Dialect-Results"
	// HeaderResultsTruncated is "outputs" when the outputs were left out
	// of HeaderResults to keep it under the size limit.
	HeaderResultsTruncated = "X-Dialect-Results-Truncated"
	// HeaderError carries the Completion's error, when there is one.
	HeaderError = "X-Dialect-Error"
)

// SSEEvent is the event name of the opt-in results event (ResultsEvent).
const SSEEvent = "dialect"

// Completion is what the middleware made of one chat completion: the
// assistant message (choice 0) as the upstream sent it, and the results of
// its actions. Every chat completion request that got a response yields
// exactly one Completion; Err says why nothing, or not everything, ran.
type Completion struct {
	Meta     dialect.Meta     `json:"meta"`
	Path     string           `json:"path"`     // the request's URL path
	Streamed bool             `json:"streamed"` // the response was an SSE stream
	Turn     int              `json:"turn"`     // the model turn, from 1 (Loop)
	Text     string           `json:"text"`     // the assistant's message, choice 0
	Results  []dialect.Result `json:"results"`
	// Err is nil when the message was complete and its actions ran. It is
	// dialect.ErrHalted after an authorised /halt (with the results so far), an
	// *UpstreamError for a non-2xx response, ErrIncomplete when the stream
	// ended early (client cancelled, connection lost), ErrEncoded or
	// ErrNotChat when the body could not be read as a completion, or a
	// *ResponseError for a malformed one.
	Err error `json:"-"`
}

// Errors a Completion carries when nothing ran.
var (
	// ErrIncomplete: the stream stopped before the message was complete
	// (the client cancelled or closed it, or the upstream failed); no
	// action of it was run.
	ErrIncomplete = errors.New("dialect: assistant message incomplete; nothing run")
	// ErrEncoded: the response was content-encoded (e.g. gzip because the
	// client asked for it explicitly); it was passed on unread.
	ErrEncoded = errors.New("dialect: response is content-encoded; passed on unread")
	// ErrNotChat: the response was neither JSON nor an SSE stream.
	ErrNotChat = errors.New("dialect: response is not a chat completion")
)

// UpstreamError is a non-2xx response from the upstream; the response
// itself reaches the client unchanged.
type UpstreamError struct {
	StatusCode int
}

func (e *UpstreamError) Error() string {
	return fmt.Sprintf("dialect: upstream answered %d %s", e.StatusCode, http.StatusText(e.StatusCode))
}

// ResponseError is a response body the middleware could not read as a
// chat completion. Offset is the byte offset in the body where the problem
// is. The body itself still reaches the client unchanged.
type ResponseError struct {
	Offset int64
	Msg    string
	Err    error
}

func (e *ResponseError) Error() string {
	return fmt.Sprintf("dialect: chat completion at byte %d: %s", e.Offset, e.Msg)
}

func (e *ResponseError) Unwrap() error { return e.Err }

// Option configures Transport, Middleware and NewProxy.
type Option func(*options)

type options struct {
	onCompletion []func(Completion)
	hide         bool         // hide action lines from the text the client sees
	event        bool         // emit the results event before [DONE]
	meta         dialect.Meta // defaults for fields neither context nor headers set
	maxBody      int64        // largest non-streaming body read
	maxEvent     int          // largest SSE event held
	maxHeader    int          // largest HeaderResults value
	loop         int          // model turns at most (Loop)
	instructions bool         // add the instructions to system prompts
	maxOutput    int          // bytes of one output given back (MaxOutput)
}

// OnCompletion calls f with every Completion, from the goroutine that read
// the end of the response: for JSON inside RoundTrip, for SSE in the
// client's Read (or Close) that met the end of the message — so when a
// client has read a stream to its end, f has returned.
func OnCompletion(f func(Completion)) Option {
	return func(o *options) { o.onCompletion = append(o.onCompletion, f) }
}

// CompletionsTo sends every Completion on ch (blocking, like OnCompletion;
// give ch room or read it concurrently).
func CompletionsTo(ch chan<- Completion) Option {
	return OnCompletion(func(c Completion) { ch <- c })
}

// HideActions rewrites the assistant text the client receives so that the
// lines of line actions and their content blocks are left out (see
// detect.Filter); inline actions stay. The runtime still sees the whole
// text.
func HideActions() Option {
	return func(o *options) { o.hide = true }
}

// ResultsEvent adds, to streamed completions, one SSE event named
// "dialect" before the final "data: [DONE]". Its data is a
// chat.completion.chunk with no choices and a "dialect" member holding
// {"results": [...], "error": "..."}; clients that ignore event names (as
// openai-go does) see a chunk without choices, like a usage chunk. Off by
// default: a client that indexes choices[0] of every chunk would fail.
func ResultsEvent() Option {
	return func(o *options) { o.event = true }
}

// DefaultMeta sets the dialect.Meta used for fields that neither the request's
// context nor its X-Dialect-* headers set. The model falls back to the
// response's "model".
func DefaultMeta(m dialect.Meta) Option {
	return func(o *options) { o.meta = m }
}

// MaxBody limits the size of a non-streaming response the middleware reads
// (default 32 MiB); a larger one is passed on unread.
func MaxBody(n int64) Option {
	return func(o *options) { o.maxBody = n }
}

// Transport returns an http.RoundTripper that sends requests through base
// (http.DefaultTransport when nil) unchanged, and runs the actions of the
// assistant message of every chat completion response (POST to a path
// ending in /chat/completions), JSON or SSE. Other requests and non-2xx
// responses pass through untouched. See docs/middleware.md.
func Transport(rt *dialect.Runtime, base http.RoundTripper, opts ...Option) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{mw: newMiddleware(rt, opts), base: base}
}

// Middleware returns the same handling as Transport in the shape of
// openai-go's option.Middleware:
//
//	client := openai.NewClient(option.WithMiddleware(dialect.Middleware(rt)))
func Middleware(rt *dialect.Runtime, opts ...Option) func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	mw := newMiddleware(rt, opts)
	return mw.handle
}

type transport struct {
	mw   *middleware
	base http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.mw.handle(req, t.base.RoundTrip)
}

type middleware struct {
	rt    *dialect.Runtime
	opt   options
	instr sync.Map    // agent → its instructions, with Instructions
	ids   responseIDs // Responses ids of streamed answers of several turns
}

func newMiddleware(rt *dialect.Runtime, opts []Option) *middleware {
	o := options{maxBody: 32 << 20, maxEvent: 8 << 20, maxHeader: 32 << 10}
	for _, f := range opts {
		f(&o)
	}
	return &middleware{rt: rt, opt: o}
}

// isChat reports whether req asks for a chat completion.
func isChat(req *http.Request) bool {
	return req.Method == http.MethodPost && strings.HasSuffix(strings.TrimSuffix(req.URL.Path, "/"), "/chat/completions")
}

// readable reports whether resp is an answer the middleware can read: a
// success, not encoded. Otherwise it delivers c with the reason and the
// response goes to the client as it came.
func (m *middleware) readable(resp *http.Response, c Completion) bool {
	switch ce := resp.Header.Get("Content-Encoding"); {
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		c.Err = &UpstreamError{StatusCode: resp.StatusCode}
	case ce != "" && !strings.EqualFold(ce, "identity"):
		c.Err = ErrEncoded
	default:
		return true
	}
	m.deliver(c)
	return false
}

func (m *middleware) handle(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	if api, ok := m.wantsLoop(req); ok {
		return m.handleLoop(req, api, next)
	}
	if !isChat(req) {
		return next(req)
	}
	resp, err := next(req)
	if err != nil || resp == nil {
		return resp, err
	}
	c := Completion{Meta: m.meta(req), Path: req.URL.Path, Turn: 1}
	if !m.readable(resp, c) {
		return resp, nil
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "text/event-stream":
		c.Streamed = true
		resp.Body = m.newSSEBody(traceContext(req), resp.Body, c)
		if m.opt.hide || m.opt.event {
			resp.ContentLength = -1
			resp.Header.Del("Content-Length")
		}
		return resp, nil
	case "application/json", "":
		return m.handleJSON(traceContext(req), resp, c), nil
	}
	c.Err = ErrNotChat
	m.deliver(c)
	return resp, nil
}

// traceContext is the context the request's actions run in: the
// request's, carrying the W3C trace context of its traceparent header when
// the context has no span of its own (a request that came into the proxy
// from a traced host), so that with telemetry on the message's span joins
// the host's trace.
func traceContext(req *http.Request) context.Context {
	ctx := req.Context()
	if trace.SpanContextFromContext(ctx).IsValid() || req.Header.Get("traceparent") == "" {
		return ctx
	}
	return propagation.TraceContext{}.Extract(ctx, propagation.HeaderCarrier(req.Header))
}

// meta is the request's Meta: its context's, then its headers', then the
// defaults.
func (m *middleware) meta(req *http.Request) dialect.Meta {
	md, _ := dialect.MetaFrom(req.Context())
	return md.Or(dialect.Meta{
		Agent:   req.Header.Get(HeaderAgent),
		Model:   req.Header.Get(HeaderModel),
		Session: req.Header.Get(HeaderSession),
	}).Or(m.opt.meta)
}

func (m *middleware) deliver(c Completion) {
	for _, f := range m.opt.onCompletion {
		f(c)
	}
}

// run runs the message's actions; with no text there is nothing to run.
func (m *middleware) run(ctx context.Context, c *Completion) {
	if strings.TrimSpace(c.Text) == "" {
		c.Results = []dialect.Result{}
		return
	}
	c.Results, c.Err = m.rt.Run(ctx, c.Meta.Message(c.Text))
	if c.Results == nil {
		c.Results = []dialect.Result{}
	}
}

// chatText reads the model and the assistant message (choice 0's
// message.content; null or absent is empty) of a whole chat completion,
// with gjson: it picks the few members needed in one pass without
// decoding the rest, as the SSE path does (encoding/json was most of the
// middleware's time on a non-streaming answer).
func chatText(body []byte) (model, text string, err error) {
	if !gjson.ValidBytes(body) {
		var v any
		err := json.Unmarshal(body, &v)
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return "", "", jsonError(0, err)
	}
	doc := gjson.ParseBytes(body)
	if !doc.IsObject() {
		return "", "", &ResponseError{Msg: "not a JSON object"}
	}
	var choices gjson.Result
	doc.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "model":
			model = v.String()
		case "choices":
			choices = v
		}
		return true
	})
	if choices.Exists() && choices.Type != gjson.Null && !choices.IsArray() {
		return "", "", &ResponseError{Offset: int64(choices.Index), Msg: "choices is not an array"}
	}
	choices.ForEach(func(_, c gjson.Result) bool {
		if c.Get("index").Int() != 0 {
			return true
		}
		switch content := c.Get("message.content"); content.Type {
		case gjson.String:
			text = content.Str
		case gjson.Null:
		default:
			err = &ResponseError{Offset: int64(content.Index), Msg: "message.content is not a string"}
			return false
		}
		return true
	})
	return model, text, err
}

// handleJSON reads a whole response, runs its actions and serves the body
// again, with the results in HeaderResults.
func (m *middleware) handleJSON(ctx context.Context, resp *http.Response, c Completion) *http.Response {
	orig := resp.Body
	body, err := io.ReadAll(io.LimitReader(orig, m.opt.maxBody+1))
	switch {
	case err != nil:
		// The client gets what arrived and then the same error.
		orig.Close()
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		c.Err = fmt.Errorf("%w: %w", ErrIncomplete, err)
		m.deliver(c)
		return resp
	case int64(len(body)) > m.opt.maxBody:
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(body), orig), orig}
		c.Err = &ResponseError{Offset: m.opt.maxBody, Msg: "larger than the middleware reads; passed on unread"}
		m.deliver(c)
		return resp
	}
	orig.Close()
	if model, text, err := chatText(body); err != nil {
		c.Err = err
		resp.Header.Set(HeaderError, c.Err.Error())
	} else {
		if c.Meta.Model == "" {
			c.Meta.Model = model
		}
		c.Text = text
		m.run(ctx, &c)
		m.setHeaders(resp.Header, c)
		if m.opt.hide && c.Text != "" {
			if shown := m.hidden(c.Text); shown != c.Text {
				if b, err := setJSONContent(body, "message", shown); err == nil {
					body = b
				}
			}
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	m.deliver(c)
	return resp
}

// setHeaders exposes a non-streaming completion's results.
func (m *middleware) setHeaders(h http.Header, c Completion) {
	v := asciiJSON(c.Results)
	if len(v) > m.opt.maxHeader {
		short := make([]dialect.Result, len(c.Results))
		for i, r := range c.Results {
			r.Output = ""
			short[i] = r
		}
		v = asciiJSON(short)
		h.Set(HeaderResultsTruncated, "outputs")
	}
	h.Set(HeaderResults, string(v))
	if c.Err != nil {
		h.Set(HeaderError, c.Err.Error())
	}
}

// hidden is text with the action lines left out, as HideActions shows it.
func (m *middleware) hidden(text string) string {
	var b strings.Builder
	f := m.rt.Filter(&b)
	f.Write([]byte(text))
	f.Close()
	return b.String()
}

// jsonError turns a decoding error into a *ResponseError at its offset
// from base.
func jsonError(base int64, err error) *ResponseError {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &ResponseError{Offset: base + se.Offset, Msg: se.Error(), Err: err}
	case errors.As(err, &te):
		return &ResponseError{Offset: base + te.Offset, Msg: te.Error(), Err: err}
	}
	return &ResponseError{Offset: base, Msg: err.Error(), Err: err}
}

// setJSONContent replaces choices[index 0].<member>.content in a JSON
// object, leaving every other member's value as it was.
func setJSONContent(doc []byte, member, content string) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		return nil, err
	}
	var choices []map[string]json.RawMessage
	if err := json.Unmarshal(top["choices"], &choices); err != nil {
		return nil, err
	}
	for _, ch := range choices {
		var idx int
		if err := json.Unmarshal(ch["index"], &idx); err != nil && ch["index"] != nil {
			return nil, err
		}
		if idx != 0 {
			continue
		}
		var inner map[string]json.RawMessage
		if err := json.Unmarshal(ch[member], &inner); err != nil {
			return nil, err
		}
		if inner == nil {
			inner = map[string]json.RawMessage{}
		}
		inner["content"] = marshalRaw(content)
		ch[member] = marshalRaw(inner)
	}
	top["choices"] = marshalRaw(choices)
	return marshalRaw(top), nil
}

// marshalRaw encodes v without HTML escaping; v is always encodable here.
func marshalRaw(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only maps, slices, strings and raw JSON reach here
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// asciiJSON encodes v as compact JSON with every non-ASCII rune escaped, so
// that it can travel in an HTTP header.
func asciiJSON(v any) []byte {
	raw := marshalRaw(v)
	out := make([]byte, 0, len(raw))
	for len(raw) > 0 {
		c := raw[0]
		if c < utf8.RuneSelf {
			out = append(out, c)
			raw = raw[1:]
			continue
		}
		r, n := utf8.DecodeRune(raw)
		raw = raw[n:]
		if r > 0xFFFF {
			r -= 0x10000
			out = fmt.Appendf(out, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			continue
		}
		out = fmt.Appendf(out, `\u%04x`, r)
	}
	return out
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

type readCloser struct {
	io.Reader
	io.Closer
}

// instructions are the dialect's instructions for agent, made once per
// agent: what works in the runtime's configuration, for that agent.
func (m *middleware) instructions(ctx context.Context, agent string) (string, error) {
	if s, ok := m.instr.Load(agent); ok {
		return s.(string), nil
	}
	var b strings.Builder
	if err := m.rt.Instructions(ctx, &b, agent); err != nil {
		return "", err
	}
	m.instr.Store(agent, b.String())
	return b.String(), nil
}
