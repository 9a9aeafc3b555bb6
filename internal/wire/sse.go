package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/tidwall/gjson"
)

// Event is one SSE event.
type Event struct {
	Name string // the event: field, "" when none
	Data []byte // the data: lines joined with "\n"
	Raw  []byte // the event as it came, blank line included
}

// EventReader reads SSE events one at a time.
type EventReader struct {
	r   *bufio.Reader
	max int
	off int64
}

// ErrEventTooLarge is returned for an event over the reader's limit.
var ErrEventTooLarge = errors.New("SSE event too large")

// NewEventReader reads events from r; an event over max bytes is an
// error.
func NewEventReader(r io.Reader, max int) *EventReader {
	return &EventReader{r: bufio.NewReaderSize(r, 32<<10), max: max}
}

// Next returns the next whole event. At the end of the stream it returns
// io.EOF; a last event without its blank line is dropped, as SSE clients
// drop it.
func (er *EventReader) Next() (Event, error) {
	var ev Event
	seen := false // a data: line came
	for {
		line, err := er.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			buf := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(ev.Raw)+len(buf) <= er.max {
				line, err = er.r.ReadSlice('\n')
				buf = append(buf, line...)
			}
			line = buf
		}
		er.off += int64(len(line))
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				return ev, fmt.Errorf("%w (at byte %d)", ErrEventTooLarge, er.off)
			}
			if err == io.EOF && len(line) > 0 && bytes.HasSuffix(line, []byte("\n")) {
				err = nil
			} else {
				return ev, err
			}
		}
		ev.Raw = append(ev.Raw, line...)
		if len(ev.Raw) > er.max {
			return ev, fmt.Errorf("%w (at byte %d)", ErrEventTooLarge, er.off)
		}
		body := bytes.TrimRight(line, "\r\n")
		if len(body) == 0 {
			if !seen && ev.Name == "" {
				ev.Raw = ev.Raw[:0]
				continue // a stray blank line or comment-only event
			}
			return ev, nil
		}
		name, value, _ := bytes.Cut(body, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(name) {
		case "data":
			if seen {
				ev.Data = append(ev.Data, '\n')
			}
			seen = true
			ev.Data = append(ev.Data, value...)
		case "event":
			ev.Name = string(value)
		}
	}
}

// Format frames data as one SSE event, named when name is not empty.
func Format(name string, data []byte) []byte {
	var b []byte
	if name != "" {
		b = append(b, "event: "+name+"\n"...)
	}
	for _, l := range bytes.Split(data, []byte("\n")) {
		b = append(b, "data: "...)
		b = append(b, l...)
		b = append(b, '\n')
	}
	return append(b, '\n')
}

// Info is what one event means for the assistant's message.
type Info struct {
	Start     bool            // opens the response or its text (Responses, Messages)
	Text      string          // a piece of the assistant's text
	End       bool            // the text is complete; what follows closes the response
	Done      bool            // the response's last event
	Err       bool            // an error event: the response failed
	ToolCalls bool            // the model calls a tool
	Usage     json.RawMessage // a usage object the event carries
	ID        string          // the response's or message's id, when the event carries it
	Type      string          // the event's type (Responses, Messages)
}

// Classify reads one event of api.
func Classify(api API, ev Event) Info {
	var in Info
	if api == Chat && bytes.Equal(ev.Data, []byte("[DONE]")) {
		in.Done = true
		return in
	}
	if len(ev.Data) == 0 {
		return in
	}
	if !gjson.ValidBytes(ev.Data) {
		in.Err = true
		return in
	}
	doc := gjson.ParseBytes(ev.Data)
	switch api {
	case Chat:
		if e := doc.Get("error"); e.Exists() && e.Type != gjson.Null {
			in.Err = true
			return in
		}
		in.ID = doc.Get("id").String()
		if u := doc.Get("usage"); u.IsObject() {
			in.Usage = json.RawMessage(u.Raw)
		}
		doc.Get("choices").ForEach(func(_, c gjson.Result) bool {
			if c.Get("index").Int() != 0 {
				return true
			}
			if d := c.Get("delta.content"); d.Type == gjson.String {
				in.Text = d.Str
			}
			if len(c.Get("delta.tool_calls").Array()) > 0 {
				in.ToolCalls = true
			}
			if f := c.Get("finish_reason"); f.Type == gjson.String && f.Str != "" {
				in.End = true
				in.ToolCalls = in.ToolCalls || f.Str == "tool_calls" || f.Str == "function_call"
			}
			return true
		})
	case Responses:
		in.Type = doc.Get("type").String()
		switch in.Type {
		case "response.created", "response.in_progress":
			in.Start, in.ID = true, doc.Get("response.id").String()
		case "response.output_item.added":
			switch doc.Get("item.type").String() {
			case "message":
				in.Start = true
			case "reasoning":
			default:
				in.ToolCalls = true
			}
		case "response.content_part.added":
			in.Start = true
		case "response.output_text.delta":
			in.Text = doc.Get("delta").String()
		case "response.output_text.done":
			in.End = true
		case "response.completed", "response.incomplete":
			in.Done, in.ID = true, doc.Get("response.id").String()
			if u := doc.Get("response.usage"); u.IsObject() {
				in.Usage = json.RawMessage(u.Raw)
			}
		case "response.failed", "error":
			in.Err = true
		}
	case Messages:
		in.Type = doc.Get("type").String()
		switch in.Type {
		case "message_start":
			in.Start, in.ID = true, doc.Get("message.id").String()
			if u := doc.Get("message.usage"); u.IsObject() {
				in.Usage = json.RawMessage(u.Raw)
			}
		case "content_block_start":
			switch doc.Get("content_block.type").String() {
			case "text":
				in.Start = true
			case "tool_use", "server_tool_use":
				in.ToolCalls = true
			}
		case "content_block_delta":
			if doc.Get("delta.type").String() == "text_delta" {
				in.Text = doc.Get("delta.text").String()
			}
		case "message_delta":
			in.End = true
			if u := doc.Get("usage"); u.IsObject() {
				in.Usage = json.RawMessage(u.Raw)
			}
			if doc.Get("delta.stop_reason").String() == "tool_use" {
				in.ToolCalls = true
			}
		case "message_stop":
			in.Done = true
		case "error":
			in.Err = true
		}
	}
	return in
}
