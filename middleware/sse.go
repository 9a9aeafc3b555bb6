package middleware

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/detect"
	"github.com/pattern-dialect/dialect/internal/wire"
)

// sseBody is the body of a streamed chat completion as the client reads
// it. It reads the upstream's SSE events as they come and hands each one
// on as soon as its blank line has arrived (an SSE client cannot use an
// event before that), writing choice 0's delta.content to a dialect.Stream. When
// the message is complete — the [DONE] event, the end of the body, or a
// Close after choice 0's finish_reason — it runs the actions before
// handing on what follows. A Close or read error before that runs nothing.
type sseBody struct {
	m   *middleware
	ctx context.Context
	up  io.ReadCloser

	mu     sync.Mutex // Read and Close may race when a client cancels
	c      Completion
	text   strings.Builder // choice 0's content so far
	stream *dialect.Stream
	filter *detect.Filter // with HideActions
	shown  bytes.Buffer   // the filter's output for the current delta
	chunks chunkReader

	buf     []byte // read buffer
	rest    []byte // of buf, not yet fed
	upErr   error  // the upstream's error that came with rest
	pending []byte // the current event's raw lines, held until its blank line
	line    []byte // the current line, not yet ended
	data    []byte // the current event's data
	out     []byte // ready for the client, from outOff on
	outOff  int    // how much of out the client has read
	handed  int64  // bytes the client has read
	offset  int64  // bytes read from the upstream
	evStart int64  // offset of the current event

	last     chunkHead // of the latest chunk, for the results event
	finished bool      // choice 0 had a finish_reason
	failed   bool      // the stream can no longer be read as a completion
	done     bool      // the Completion was delivered
	eof      bool      // the upstream is exhausted
	err      error     // the upstream's read error, after out drains
	closed   bool
}

// chunkHead is the part of a chunk the results event repeats.
type chunkHead struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
}

func (m *middleware) newSSEBody(ctx context.Context, up io.ReadCloser, c Completion) *sseBody {
	b := &sseBody{m: m, ctx: ctx, up: up, c: c, buf: make([]byte, 32<<10)}
	b.stream = m.rt.NewStream(ctx, c.Meta.Message(""), nil)
	if m.opt.hide {
		b.filter = m.rt.Filter(&b.shown)
	}
	return b
}

// Read hands on whole events as they arrive: it returns as soon as one
// event is ready, leaving the rest of what it read from the upstream for
// the next call, so that the first event never waits for the parsing of
// those behind it.
func (b *sseBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.out) == b.outOff {
		if b.closed {
			return 0, errors.New("dialect: read on closed response body")
		}
		if len(b.rest) > 0 {
			b.rest = b.feed(b.rest)
			continue
		}
		if b.upErr != nil {
			err := b.upErr
			b.upErr = nil
			if err == io.EOF {
				b.atEOF()
			} else {
				b.err = err
				b.incomplete(err)
			}
			continue
		}
		if b.err != nil {
			return 0, b.err
		}
		if b.eof {
			return 0, io.EOF
		}
		// Unlock while blocked on the network, so that Close can
		// interrupt the read.
		b.mu.Unlock()
		n, err := b.up.Read(b.buf)
		b.mu.Lock()
		b.rest, b.upErr = b.buf[:n], err
	}
	n := copy(p, b.out[b.outOff:])
	b.outOff += n
	b.handed += int64(n)
	if b.outOff == len(b.out) {
		b.out, b.outOff = b.out[:0], 0 // drained: reuse the buffer
	}
	return n, nil
}

// Close closes the upstream. A message that is complete but for the
// [DONE] event runs now; any other unfinished one runs nothing.
func (b *sseBody) Close() error {
	err := b.up.Close()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	if !b.done {
		if b.finished && !b.failed {
			b.complete(false)
		} else {
			b.incomplete(errors.New("response body closed early"))
		}
	}
	return err
}

// batch is how much feed prepares from input already read before
// returning, once the first event has gone: the events that came in one
// upstream read go out in one write rather than one write (and, in a
// proxy, one flush) each.
const batch = 4 << 10

// feed splits p into lines and events until an event is ready for the
// client — the first one alone, later ones up to batch bytes — and
// returns the rest of p.
func (b *sseBody) feed(p []byte) []byte {
	for len(p) > 0 && (len(b.out) == b.outOff || (b.handed > 0 && len(b.out)-b.outOff < batch)) {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			b.line = append(b.line, p...)
			b.offset += int64(len(p))
			if len(b.pending)+len(b.line) > b.m.opt.maxEvent {
				b.overflow()
			}
			return nil
		}
		b.line = append(b.line, p[:i+1]...)
		b.offset += int64(i + 1)
		p = p[i+1:]
		b.endLine()
		if len(b.pending) > b.m.opt.maxEvent {
			b.overflow()
		}
	}
	return p
}

// overflow gives up on an event too large to hold: what is held goes out
// as it is, and nothing of the message will run.
func (b *sseBody) overflow() {
	if !b.failed {
		b.fail(&ResponseError{Offset: b.evStart, Msg: fmt.Sprintf("SSE event larger than %d bytes", b.m.opt.maxEvent)})
	}
	b.out = append(b.out, b.pending...)
	b.out = append(b.out, b.line...)
	b.pending, b.line, b.data = b.pending[:0], b.line[:0], b.data[:0]
}

// endLine takes one whole line (b.line, with its newline).
func (b *sseBody) endLine() {
	line := b.line
	b.pending = append(b.pending, line...)
	b.line = b.line[:0]
	body := bytes.TrimRight(line, "\r\n")
	if len(body) == 0 {
		b.dispatch()
		return
	}
	name, value, _ := bytes.Cut(body, []byte(":"))
	if string(name) == "data" {
		value = bytes.TrimPrefix(value, []byte(" "))
		if len(b.data) > 0 {
			b.data = append(b.data, '\n')
		}
		b.data = append(b.data, value...)
	}
}

// dispatch handles one whole event and hands it on.
func (b *sseBody) dispatch() {
	raw, data := b.pending, b.data
	start := b.evStart
	b.evStart = b.offset
	switch {
	case len(data) == 0 || b.failed || b.done:
	case bytes.Equal(data, []byte("[DONE]")):
		b.complete(true)
	default:
		if rewritten := b.chunk(data, start); rewritten != nil {
			raw = wire.Format("", rewritten)
		}
	}
	b.out = append(b.out, raw...)
	b.pending, b.data = b.pending[:0], b.data[:0] // copied out: reuse
}

// chunk reads one chat.completion.chunk; with HideActions it returns the
// chunk rewritten when the client should see other text. It reads with
// readChunk, one pass that validates the chunk and picks the few members
// needed; encoding/json only explains a chunk that is not valid JSON.
func (b *sseBody) chunk(data []byte, start int64) []byte {
	ch, ok := b.chunks.read(data, b.last)
	if !ok {
		var v any
		err := json.Unmarshal(data, &v)
		if err == nil {
			err = errors.New("invalid JSON")
		}
		b.fail(jsonError(start, err))
		return nil
	}
	if ch.errRaw != nil {
		b.fail(&ResponseError{Offset: start, Msg: "upstream sent an error event: " + string(ch.errRaw)})
		return nil
	}
	if ch.head.ID != "" {
		b.last = ch.head
	}
	if b.c.Meta.Model == "" {
		b.c.Meta.Model = ch.head.Model
	}
	if ch.finished {
		b.finished = true
	}
	content, seen := ch.content, ch.seen
	b.text.Write(content)
	b.stream.Write(content)
	if b.filter == nil {
		return nil
	}
	b.shown.Reset()
	b.filter.Write(content)
	if b.finished {
		b.filter.Close()
	}
	if bytes.Equal(b.shown.Bytes(), content) || (!seen && b.shown.Len() == 0) {
		return nil
	}
	out, err := setJSONContent(data, "delta", b.shown.String())
	if err != nil {
		return nil
	}
	return out
}

// atEOF ends the stream. A last event without its blank line goes out as
// it came, unread: SSE clients drop such an event (openai-go does too), so
// it is no part of the message. A message not yet complete is complete
// now.
func (b *sseBody) atEOF() {
	b.eof = true
	tail := len(b.pending) + len(b.line)
	b.out = append(b.out, b.pending...)
	b.out = append(b.out, b.line...)
	b.pending, b.line, b.data = b.pending[:0], b.line[:0], b.data[:0]
	if b.done {
		return
	}
	if b.failed {
		b.deliver()
		return
	}
	b.complete(tail == 0)
}

// complete runs the message's actions, delivers the Completion and, with
// ResultsEvent and when events may still follow, queues the results event;
// a text still held by the filter goes out first.
func (b *sseBody) complete(framed bool) {
	if b.filter != nil && !b.finished {
		b.shown.Reset()
		b.filter.Close()
		if b.shown.Len() > 0 && framed {
			b.out = append(b.out, wire.Format("", b.leftoverChunk(b.shown.String()))...)
		}
	}
	b.c.Text = b.text.String()
	b.stream.SetModel(b.c.Meta.Model)
	b.c.Results, b.c.Err = b.stream.Close()
	if b.c.Results == nil {
		b.c.Results = []dialect.Result{}
	}
	b.deliver()
	if b.m.opt.event && framed {
		b.out = append(b.out, wire.Format(SSEEvent, b.resultsChunk())...)
	}
}

// incomplete delivers a Completion for a stream that stopped early.
func (b *sseBody) incomplete(cause error) {
	if b.done {
		return
	}
	b.c.Text = b.text.String()
	if !b.failed {
		b.c.Err = fmt.Errorf("%w: %w", ErrIncomplete, cause)
	}
	b.deliver()
}

func (b *sseBody) fail(err error) {
	b.failed = true
	b.c.Err = err
}

func (b *sseBody) deliver() {
	b.done = true
	b.m.deliver(b.c)
}

// resultsChunk is the data of the results event.
func (b *sseBody) resultsChunk() []byte {
	type dialectPart struct {
		Results []dialect.Result `json:"results"`
		Error   string           `json:"error,omitempty"`
	}
	d := dialectPart{Results: b.c.Results}
	if b.c.Err != nil {
		d.Error = b.c.Err.Error()
	}
	h := b.last
	h.Object = "chat.completion.chunk"
	return marshalRaw(struct {
		chunkHead
		Choices []struct{}  `json:"choices"`
		Dialect dialectPart `json:"dialect"`
	}{h, []struct{}{}, d})
}

// leftoverChunk is a chunk carrying text the filter released at the end.
func (b *sseBody) leftoverChunk(text string) []byte {
	type delta struct {
		Content string `json:"content"`
	}
	type choice struct {
		Index        int     `json:"index"`
		Delta        delta   `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	}
	h := b.last
	h.Object = "chat.completion.chunk"
	return marshalRaw(struct {
		chunkHead
		Choices []choice `json:"choices"`
	}{h, []choice{{Delta: delta{text}}}})
}
