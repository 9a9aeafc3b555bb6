// Package wiretest is a scripted model server for tests: it speaks OpenAI
// Chat Completions, OpenAI Responses and Anthropic Messages, JSON and SSE,
// in each API's own documented shapes, answers what a script says, and
// records every request. Tests put real clients (openai-go, the Node
// SDKs, the loop's HTTP model, the proxy) in front of it.
package wiretest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/pattern-dialect/dialect/internal/wire"
	"github.com/tidwall/gjson"
)

// Seen is one request as the server read it.
type Seen struct {
	API      wire.API
	Path     string
	Header   http.Header
	Body     []byte
	Model    string
	Stream   bool
	System   string     // the system prompt, parts joined with "\n\n"
	Messages []wire.Msg // the conversation, each message's text parts joined
}

// Answer is what the script makes the server answer.
type Answer struct {
	Text     string        // the assistant's text
	ToolCall bool          // also call a tool named "lookup"
	Status   int           // a non-2xx status answers with an API error body instead
	Pause    time.Duration // wait after the first event (or before a JSON body)
}

// Server is a scripted model server. Close it when done (New registers
// that with the test).
type Server struct {
	*httptest.Server
	script func(Seen) Answer

	mu   sync.Mutex
	seen []Seen
	n    int
}

// New starts a server that answers each request with script(request).
func New(t interface{ Cleanup(func()) }, script func(Seen) Answer) *Server {
	s := &Server{script: script}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the requests so far.
func (s *Server) Requests() []Seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Seen(nil), s.seen...)
}

// ErrorBody is the API's error body for status.
func ErrorBody(api wire.API, status int) string {
	if api == wire.Messages {
		return fmt.Sprintf(`{"type":"error","error":{"type":"api_error","message":"scripted failure %d"}}`, status)
	}
	return fmt.Sprintf(`{"error":{"message":"scripted failure %d","type":"server_error","param":null,"code":"scripted_%d"}}`, status, status)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	api, ok := wire.FromPath(r.URL.Path)
	if !ok || r.Method != http.MethodPost || !gjson.ValidBytes(body) {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	seen := read(api, body)
	seen.Path, seen.Header = r.URL.Path, r.Header.Clone()
	s.mu.Lock()
	s.seen = append(s.seen, seen)
	s.n++
	n := s.n
	s.mu.Unlock()
	a := s.script(seen)
	if a.Status != 0 && (a.Status < 200 || a.Status > 299) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.Status)
		io.WriteString(w, ErrorBody(api, a.Status))
		return
	}
	words := Words(a.Text)
	in, out := Usage(seen, a)
	u := usage{in: in, out: out}
	if !seen.Stream {
		if a.Pause > 0 {
			time.Sleep(a.Pause)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, whole(api, n, seen.Model, a, u))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl := w.(http.Flusher)
	for i, ev := range events(api, n, seen.Model, a, words, u, gjson.GetBytes(body, "stream_options.include_usage").Bool()) {
		if _, err := io.WriteString(w, ev); err != nil {
			return
		}
		fl.Flush()
		if i == 0 && a.Pause > 0 {
			time.Sleep(a.Pause)
		}
	}
}

type usage struct{ in, out int }

// Usage is the usage the server reports for answering s with a: a token
// per four bytes of each message and of the system prompt, and one more;
// a token per word of the answer, and one more. (In a Messages stream,
// message_start says 1 output token and message_delta the total.)
func Usage(s Seen, a Answer) (in, out int) {
	for _, m := range s.Messages {
		in += len(m.Text) / 4
	}
	in += len(s.System) / 4
	return in + 1, len(Words(a.Text)) + 1
}

// read reads the parts of a request the tests look at.
func read(api wire.API, body []byte) Seen {
	doc := gjson.ParseBytes(body)
	s := Seen{API: api, Body: body, Model: doc.Get("model").String(), Stream: doc.Get("stream").Bool()}
	var sys []string
	add := func(role string, content gjson.Result) {
		t := text(content)
		if role == "system" || role == "developer" {
			sys = append(sys, t)
			return
		}
		s.Messages = append(s.Messages, wire.Msg{Role: role, Text: t})
	}
	switch api {
	case wire.Chat, wire.Messages:
		if api == wire.Messages && doc.Get("system").Exists() {
			sys = append(sys, text(doc.Get("system")))
		}
		doc.Get("messages").ForEach(func(_, m gjson.Result) bool {
			add(m.Get("role").String(), m.Get("content"))
			return true
		})
	case wire.Responses:
		if i := doc.Get("instructions"); i.Exists() {
			sys = append(sys, i.String())
		}
		in := doc.Get("input")
		if in.Type == gjson.String {
			add("user", in)
		} else {
			in.ForEach(func(_, m gjson.Result) bool {
				add(m.Get("role").String(), m.Get("content"))
				return true
			})
		}
	}
	s.System = strings.Join(sys, "\n\n")
	return s
}

// text joins a content value's text: a string, or parts with "text".
func text(c gjson.Result) string {
	if c.Type == gjson.String {
		return c.Str
	}
	var parts []string
	c.ForEach(func(_, p gjson.Result) bool {
		parts = append(parts, p.Get("text").String())
		return true
	})
	return strings.Join(parts, "\n\n")
}

// Words cuts text after every run of spaces or newlines: one event per
// word, as the scripted servers stream an answer.
func Words(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		if (text[i] == ' ' || text[i] == '\n') && (i+1 == len(text) || (text[i+1] != ' ' && text[i+1] != '\n')) {
			out = append(out, text[start:i+1])
			start = i + 1
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// whole is a non-streaming response.
func whole(api wire.API, n int, model string, a Answer, u usage) string {
	switch api {
	case wire.Chat:
		tc := ""
		finish := "stop"
		if a.ToolCall {
			tc = `,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{}"}}]`
			finish = "tool_calls"
		}
		return fmt.Sprintf(`{"id":"chatcmpl-%d","object":"chat.completion","created":1700000000,"model":%s,"choices":[{"index":0,"message":{"role":"assistant","content":%s,"refusal":null%s},"logprobs":null,"finish_reason":%q}],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
			n, js(model), js(a.Text), tc, finish, u.in, u.out, u.in+u.out)
	case wire.Responses:
		return fmt.Sprintf(`{"id":"resp_%d","object":"response","created_at":1700000000,"status":"completed","model":%s,"output":[%s],"parallel_tool_calls":true,"tool_choice":"auto","tools":[],"usage":{"input_tokens":%d,"input_tokens_details":{"cached_tokens":0},"output_tokens":%d,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":%d}}`,
			n, js(model), respOutput(n, a, a.Text, "completed"), u.in, u.out, u.in+u.out)
	}
	stop := "end_turn"
	tool := ""
	if a.ToolCall {
		stop = "tool_use"
		tool = `,{"type":"tool_use","id":"toolu_1","name":"lookup","input":{}}`
	}
	return fmt.Sprintf(`{"id":"msg_%d","type":"message","role":"assistant","model":%s,"content":[{"type":"text","text":%s}%s],"stop_reason":%q,"stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":%d}}`,
		n, js(model), js(a.Text), tool, stop, u.in, u.out)
}

func respMessage(n int, text, status string) string {
	content := ""
	if status == "completed" {
		content = fmt.Sprintf(`{"type":"output_text","text":%s,"annotations":[]}`, js(text))
	}
	return fmt.Sprintf(`{"type":"message","id":"msg_%d","status":%q,"role":"assistant","content":[%s]}`, n, status, content)
}

const respTool = `{"type":"function_call","id":"fc_1","call_id":"call_1","name":"lookup","arguments":"{}","status":"completed"}`

func respOutput(n int, a Answer, text, status string) string {
	out := respMessage(n, text, status)
	if a.ToolCall {
		out += "," + respTool
	}
	return out
}

// events is a streamed response, one text event per word.
func events(api wire.API, n int, model string, a Answer, words []string, u usage, includeUsage bool) []string {
	var out []string
	switch api {
	case wire.Chat:
		head := fmt.Sprintf(`{"id":"chatcmpl-%d","object":"chat.completion.chunk","created":1700000000,"model":%s,`, n, js(model))
		ev := func(choices string) string { return "data: " + head + `"choices":[` + choices + "]}\n\n" }
		out = append(out, ev(`{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}`))
		for _, w := range words {
			out = append(out, ev(`{"index":0,"delta":{"content":`+js(w)+`},"finish_reason":null}`))
		}
		finish := "stop"
		if a.ToolCall {
			out = append(out, ev(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{}"}}]},"finish_reason":null}`))
			finish = "tool_calls"
		}
		out = append(out, ev(`{"index":0,"delta":{},"finish_reason":"`+finish+`"}`))
		if includeUsage {
			out = append(out, "data: "+head+fmt.Sprintf(`"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, u.in, u.out, u.in+u.out)+"\n\n")
		}
		return append(out, "data: [DONE]\n\n")
	case wire.Responses:
		seq := 0
		ev := func(typ, rest string) string {
			s := fmt.Sprintf("event: %s\ndata: {\"type\":%q,\"sequence_number\":%d,%s}\n\n", typ, typ, seq, rest)
			seq++
			return s
		}
		resp := func(status, output, usage string) string {
			return fmt.Sprintf(`"response":{"id":"resp_%d","object":"response","created_at":1700000000,"status":%q,"model":%s,"output":[%s],"parallel_tool_calls":true,"tool_choice":"auto","tools":[],"usage":%s}`, n, status, js(model), output, usage)
		}
		item := fmt.Sprintf(`"item_id":"msg_%d","output_index":0,"content_index":0`, n)
		out = append(out, ev("response.created", resp("in_progress", "", "null")), ev("response.in_progress", resp("in_progress", "", "null")),
			ev("response.output_item.added", `"output_index":0,"item":`+respMessage(n, "", "in_progress")),
			ev("response.content_part.added", item+`,"part":{"type":"output_text","text":"","annotations":[]}`))
		for _, w := range words {
			out = append(out, ev("response.output_text.delta", item+`,"delta":`+js(w)+`,"logprobs":[]`))
		}
		full := strings.Join(words, "")
		out = append(out, ev("response.output_text.done", item+`,"text":`+js(full)+`,"logprobs":[]`),
			ev("response.content_part.done", item+`,"part":{"type":"output_text","text":`+js(full)+`,"annotations":[]}`),
			ev("response.output_item.done", `"output_index":0,"item":`+respMessage(n, full, "completed")))
		if a.ToolCall {
			out = append(out, ev("response.output_item.added", `"output_index":1,"item":`+strings.Replace(respTool, `"completed"`, `"in_progress"`, 1)),
				ev("response.output_item.done", `"output_index":1,"item":`+respTool))
		}
		us := fmt.Sprintf(`{"input_tokens":%d,"input_tokens_details":{"cached_tokens":0},"output_tokens":%d,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":%d}`, u.in, u.out, u.in+u.out)
		return append(out, ev("response.completed", resp("completed", respOutput(n, a, full, "completed"), us)))
	}
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	out = append(out,
		ev("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_%d","type":"message","role":"assistant","model":%s,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":1}}}`, n, js(model), u.in)),
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
		ev("ping", `{"type":"ping"}`))
	for _, w := range words {
		out = append(out, ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+js(w)+`}}`))
	}
	out = append(out, ev("content_block_stop", `{"type":"content_block_stop","index":0}`))
	stop := "end_turn"
	if a.ToolCall {
		stop = "tool_use"
		out = append(out, ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"lookup","input":{}}}`),
			ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{}"}}`),
			ev("content_block_stop", `{"type":"content_block_stop","index":1}`))
	}
	return append(out,
		ev("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, stop, u.out)),
		ev("message_stop", `{"type":"message_stop"}`))
}
