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

	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/internal/wire"
	"github.com/pattern-dialect/dialect/turn"
)

// Loop makes the middleware close the agent loop for the client, on Chat
// Completions, Responses and Anthropic Messages requests alike: after a
// reply whose actions ran, it calls the upstream again with the reply and
// the results turn appended to the request's conversation, up to n model
// turns, and the client receives one answer holding every turn's text,
// streamed as it is generated. The turns the client did not send stay in
// that answer: each results turn is carried in it as an HTML comment
// (turn.Carried), so that the client's next request, which sends the
// answer back, still tells the model what its actions did. n <= 1 is one
// turn: the answer passes as it came. See docs/loop.md.
func Loop(n int) Option {
	return func(o *options) { o.loop = n }
}

// Instructions adds the dialect's instructions for the verbs in force
// (what `dialect verbs --instructions` prints) to the system prompt of
// every Chat Completions, Responses and Messages request: after the first
// system or developer message's content, the instructions member, or the
// system member, or as a new system prompt.
func Instructions() Option {
	return func(o *options) { o.instructions = true }
}

// MaxOutput limits the bytes of one action's output given back to the
// model in loop mode (turn.Options.MaxOutput).
func MaxOutput(n int) Option {
	return func(o *options) { o.maxOutput = n }
}

// ErrTurnLimit is the Err of the Completion of a turn whose actions ran
// when the turn limit did not allow another: the model did not see them.
var ErrTurnLimit = errors.New("dialect: turn limit reached; the last results were not given to the model")

// loopRun is one client request handled in loop mode.
type loopRun struct {
	m    *middleware
	api  wire.API
	ctx  context.Context
	req  *http.Request // the client's (outgoing) request
	wr   *wire.Request
	next func(*http.Request) (*http.Response, error)
	meta dialect.Meta
	all  []dialect.Result // every turn's
}

// wantsLoop reports whether req is for the loop handler: one of the three
// APIs, and loop mode or instructions on, or an API the plain handler
// does not read.
func (m *middleware) wantsLoop(req *http.Request) (wire.API, bool) {
	if req.Method != http.MethodPost {
		return 0, false
	}
	api, ok := wire.FromPath(req.URL.Path)
	if !ok {
		return 0, false
	}
	return api, api != wire.Chat || m.opt.loop > 1 || m.opt.instructions
}

func (m *middleware) handleLoop(req *http.Request, api wire.API, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	l := &loopRun{m: m, api: api, ctx: traceContext(req), req: req, next: next, meta: m.meta(req)}
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(io.LimitReader(req.Body, m.opt.maxBody+1))
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	wr, err := wire.ParseRequest(api, body)
	if err == nil && int64(len(body)) <= m.opt.maxBody && m.opt.instructions {
		var instr string
		if instr, err = m.instructions(l.ctx, l.meta.Agent); err == nil {
			err = wr.AddSystem(instr)
		}
	}
	if err == nil && api == wire.Responses {
		if last, ok := m.ids.get(wr.PreviousResponse()); ok {
			wr.SetPreviousResponse(last)
		}
	}
	if err != nil || int64(len(body)) > m.opt.maxBody {
		// Not a request the loop can extend: it goes on as it came,
		// and the upstream says what it thinks of it.
		resp, err := next(withBody(req, body))
		if err == nil {
			m.deliver(Completion{Meta: l.meta, Path: req.URL.Path, Turn: 1, Err: ErrNotChat})
		}
		return resp, err
	}
	l.wr = wr
	resp, err := next(withBody(req, wr.Body()))
	if err != nil || resp == nil {
		return resp, err
	}
	c := Completion{Meta: l.meta, Path: req.URL.Path, Turn: 1}
	if !m.readable(resp, c) {
		return resp, nil
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "text/event-stream":
		pr, pw := io.Pipe()
		go l.stream(resp.Body, pw)
		resp.Body = pr
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
		return resp, nil
	case "application/json", "":
		return l.whole(resp)
	}
	c.Err = ErrNotChat
	m.deliver(c)
	return resp, nil
}

// responseIDs maps the id a client received for a streamed Responses
// answer of several turns (the first turn's) to the last turn's, under
// which the upstream stored the whole conversation, so that a request
// continuing from the client's id continues from there. It holds the
// latest maxIDs answers; the proxy's memory, not its store: after a
// restart a continuation starts from the first turn's stored response.
type responseIDs struct {
	mu   sync.Mutex
	last map[string]string
	ring []string // the keys, oldest first from next
	next int
}

// maxIDs is how many answers responseIDs remembers.
const maxIDs = 4096

func (r *responseIDs) put(first, last string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last == nil {
		r.last = map[string]string{}
	}
	if _, ok := r.last[first]; ok {
		r.last[first] = last
		return
	}
	if len(r.ring) < maxIDs {
		r.ring = append(r.ring, first)
	} else {
		delete(r.last, r.ring[r.next])
		r.ring[r.next] = first
		r.next = (r.next + 1) % maxIDs
	}
	r.last[first] = last
}

func (r *responseIDs) get(first string) (string, bool) {
	if first == "" {
		return "", false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	last, ok := r.last[first]
	return last, ok
}

// withBody is req with body as its body.
func withBody(req *http.Request, body []byte) *http.Request {
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	if r.Header.Get("Content-Length") != "" {
		r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	}
	return r
}

// maxTurns is the turn limit, at least 1.
func (l *loopRun) maxTurns() int { return max(l.m.opt.loop, 1) }

// runTurn runs one turn's actions and delivers its Completion.
func (l *loopRun) runTurn(n int, text string, streamed bool, s *dialect.Stream) Completion {
	c := Completion{Meta: l.meta, Path: l.req.URL.Path, Streamed: streamed, Turn: n, Text: text}
	if s != nil {
		c.Results, c.Err = s.Close()
		if c.Results == nil {
			c.Results = []dialect.Result{}
		}
	} else {
		l.m.run(l.ctx, &c)
	}
	l.all = append(l.all, c.Results...)
	return c
}

// next decides after turn n: the results turn to give back ("" when the
// loop ends), and the text the client receives after the turn's own.
func (l *loopRun) decide(n int, c *Completion, toolCalls bool) (results, tail string) {
	rtext := turn.Text(c.Results, turn.Options{MaxOutput: l.m.opt.maxOutput})
	switch {
	case rtext == "" || l.maxTurns() == 1:
		return "", ""
	case c.Err != nil || toolCalls:
		return "", turn.Carried(rtext)
	case n >= l.maxTurns():
		if c.Err == nil {
			c.Err = ErrTurnLimit
		}
		return "", turn.Carried(rtext) + turn.Limit(n)
	}
	return rtext, turn.Carried(rtext)
}

// ask sends the next turn's request.
func (l *loopRun) ask(reply, results string) (*http.Response, error) {
	if err := l.wr.AppendTurn(reply, results); err != nil {
		return nil, err
	}
	return l.next(withBody(l.req, l.wr.Body()))
}

// failed delivers the Completion of a turn the upstream refused.
func (l *loopRun) failed(n int, resp *http.Response, streamed bool) {
	l.m.deliver(Completion{Meta: l.meta, Path: l.req.URL.Path, Streamed: streamed, Turn: n, Err: &UpstreamError{StatusCode: resp.StatusCode}})
}

// whole runs the loop for a non-streaming request: the client gets the
// last turn's body with the text of every turn and the usage summed.
func (l *loopRun) whole(resp *http.Response) (*http.Response, error) {
	var combined strings.Builder
	var usage json.RawMessage
	changed := false
	for n := 1; ; n++ {
		body, err := io.ReadAll(io.LimitReader(resp.Body, l.m.opt.maxBody+1))
		resp.Body.Close()
		if err == nil && int64(len(body)) > l.m.opt.maxBody {
			err = fmt.Errorf("larger than %d bytes", l.m.opt.maxBody)
		}
		if err != nil {
			l.m.deliver(Completion{Meta: l.meta, Path: l.req.URL.Path, Turn: n, Err: fmt.Errorf("%w: %w", ErrIncomplete, err)})
			return nil, err
		}
		rp, err := wire.ReadReply(l.api, body)
		if err != nil {
			l.m.deliver(Completion{Meta: l.meta, Path: l.req.URL.Path, Turn: n, Err: jsonError(0, err)})
			return l.serve(resp, body), nil
		}
		if l.meta.Model == "" {
			l.meta.Model = rp.Model
		}
		c := l.runTurn(n, rp.Text, false, nil)
		shown := rp.Text
		if l.m.opt.hide {
			shown = l.m.hidden(rp.Text)
		}
		usage = wire.AddUsage(usage, rp.Usage)
		combined.WriteString(shown)
		results, tail := l.decide(n, &c, rp.ToolCalls)
		l.m.deliver(c)
		combined.WriteString(tail)
		changed = changed || shown != rp.Text || tail != "" || n > 1
		if results == "" {
			if changed {
				if b, err := setWhole(l.api, body, combined.String(), usage, n > 1); err == nil {
					body = b
				}
			}
			resp = l.serve(resp, body)
			l.m.setHeaders(resp.Header, Completion{Results: l.all, Err: c.Err})
			return resp, nil
		}
		next, err := l.ask(rp.Text, results)
		if err != nil {
			return nil, err
		}
		if next.StatusCode < 200 || next.StatusCode > 299 {
			// The upstream's error reaches the client as it came; the
			// results so far are in the header and the log.
			l.failed(n+1, next, false)
			l.m.setHeaders(next.Header, Completion{Results: l.all})
			return next, nil
		}
		resp = next
	}
}

// serve makes body resp's body.
func (l *loopRun) serve(resp *http.Response, body []byte) *http.Response {
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return resp
}

// stream runs the loop for a streaming request, writing the client's
// stream to w: every turn's events as they arrive, merged into one
// response in the API's own event format (see merger).
func (l *loopRun) stream(up io.ReadCloser, w *io.PipeWriter) {
	mg := newMerger(l.api)
	var combined strings.Builder
	var usage json.RawMessage
	write := func(b []byte) bool {
		if len(b) == 0 {
			return true
		}
		_, err := w.Write(b)
		return err == nil
	}
	defer func() { up.Close() }()
	for n := 1; ; n++ {
		mg.turn = n
		mg.reset()
		s := l.m.rt.NewStream(l.ctx, l.meta.Message(""), nil)
		var shownBuf bytes.Buffer
		var filter io.WriteCloser
		if l.m.opt.hide {
			filter = l.m.rt.Filter(&shownBuf)
		}
		var text strings.Builder
		var held []wire.Event
		var turnUsage json.RawMessage
		toolCalls, complete := false, false
		var fail error
		er := wire.NewEventReader(up, l.m.opt.maxEvent)
		for {
			ev, err := er.Next()
			if err == io.EOF {
				complete = true
				break
			}
			if err != nil {
				fail = err
				break
			}
			in := wire.Classify(l.api, ev)
			if in.Err {
				// The upstream's own error event goes to the client as it
				// came, and ends the answer; nothing of this turn runs.
				write(ev.Raw)
				fail = &ResponseError{Msg: "upstream sent an error event: " + string(bytes.TrimSpace(ev.Data))}
				break
			}
			toolCalls = toolCalls || in.ToolCalls
			if in.Usage != nil {
				turnUsage = wire.TurnUsage(l.api, turnUsage, in.Usage)
			}
			shown := in.Text
			if in.Text != "" {
				text.WriteString(in.Text)
				s.WriteString(in.Text)
				if filter != nil {
					shownBuf.Reset()
					filter.Write([]byte(in.Text))
					shown = shownBuf.String()
				}
				combined.WriteString(shown)
			}
			if mg.holds(ev, in) {
				held = append(held, ev)
			} else if !write(mg.event(ev, in, shown, in.Text != "" && shown != in.Text)) {
				fail = errors.New("client closed the response")
				break
			}
			if in.Done {
				complete = true
				break
			}
		}
		if fail != nil || !complete {
			if fail == nil {
				fail = errors.New("response ended early")
			}
			l.m.deliver(Completion{Meta: l.meta, Path: l.req.URL.Path, Streamed: true, Turn: n, Text: text.String(), Err: fmt.Errorf("%w: %w", ErrIncomplete, fail)})
			w.CloseWithError(fail)
			return
		}
		if filter != nil {
			shownBuf.Reset()
			filter.Close()
			if shownBuf.Len() > 0 {
				combined.Write(shownBuf.Bytes())
				write(mg.delta(shownBuf.String()))
			}
		}
		usage = wire.AddUsage(usage, turnUsage)
		c := l.runTurn(n, text.String(), true, s)
		results, tail := l.decide(n, &c, toolCalls)
		l.m.deliver(c)
		if tail != "" {
			combined.WriteString(tail)
			write(mg.delta(tail))
		}
		if results == "" {
			end := mg.finish(held, combined.String(), usage)
			if mg.lastID != "" {
				l.m.ids.put(mg.respID, mg.lastID) // before the client can continue from it
			}
			write(end)
			w.Close()
			return
		}
		up.Close()
		next, err := l.ask(text.String(), results)
		if err != nil {
			write(mg.errorEvent(http.StatusBadGateway, wire.Raw(map[string]any{"error": map[string]any{"message": err.Error(), "type": "dialect_proxy_error"}})))
			w.CloseWithError(err)
			return
		}
		if next.StatusCode < 200 || next.StatusCode > 299 || !strings.HasPrefix(next.Header.Get("Content-Type"), "text/event-stream") {
			b, _ := io.ReadAll(io.LimitReader(next.Body, 1<<20))
			next.Body.Close()
			l.failed(n+1, next, true)
			write(mg.errorEvent(next.StatusCode, b))
			w.Close()
			return
		}
		up = next.Body
	}
}
