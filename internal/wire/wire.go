// Package wire reads and edits the three model APIs the dialect speaks:
// OpenAI Chat Completions, OpenAI Responses and Anthropic Messages. It
// knows where each keeps the system prompt, the conversation, the
// assistant's text, tool calls and usage, in whole JSON bodies and in
// their SSE events. The loop's HTTP models and the middleware's loop mode
// share it; it decides nothing about actions.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// API is one of the wire formats.
type API int

// The APIs, by the path their requests are posted to.
const (
	Chat      API = iota + 1 // POST …/chat/completions
	Responses                // POST …/responses
	Messages                 // POST …/messages (Anthropic)
)

// String is the API's short name: chat, responses or messages.
func (a API) String() string {
	switch a {
	case Chat:
		return "chat"
	case Responses:
		return "responses"
	case Messages:
		return "messages"
	}
	return fmt.Sprintf("API(%d)", int(a))
}

// Path is the path the API's requests go to, after the base URL.
func (a API) Path() string {
	switch a {
	case Chat:
		return "/chat/completions"
	case Responses:
		return "/responses"
	}
	return "/messages"
}

// Parse reads an API's short name.
func Parse(name string) (API, error) {
	for _, a := range []API{Chat, Responses, Messages} {
		if a.String() == name {
			return a, nil
		}
	}
	return 0, fmt.Errorf("%q is not an API (chat, responses, messages)", name)
}

// FromPath returns the API a request path is for.
func FromPath(path string) (API, bool) {
	p := strings.TrimSuffix(path, "/")
	for _, a := range []API{Chat, Responses, Messages} {
		if strings.HasSuffix(p, a.Path()) {
			return a, true
		}
	}
	return 0, false
}

// Request is a request body whose members are kept as they came; only
// the members an edit concerns are rewritten (member order may change).
type Request struct {
	API API
	m   map[string]json.RawMessage
}

// ParseRequest reads a request body of api.
func ParseRequest(api API, body []byte) (*Request, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("%s request: %w", api, err)
	}
	if m == nil {
		return nil, fmt.Errorf("%s request: not a JSON object", api)
	}
	return &Request{API: api, m: m}, nil
}

// Msg is one message of a conversation, as text.
type Msg struct {
	Role string // "user" or "assistant"
	Text string
}

// NewRequest builds a streaming request for model with the system prompt
// and the conversation; extra members (max_tokens, temperature...) are
// added as given.
func NewRequest(api API, model, system string, msgs []Msg, extra map[string]any) *Request {
	r := &Request{API: api, m: map[string]json.RawMessage{}}
	r.m["model"] = raw(model)
	r.m["stream"] = raw(true)
	switch api {
	case Responses:
		r.m["input"] = raw([]any{})
	default:
		r.m["messages"] = raw([]any{})
	}
	if api == Messages {
		r.m["max_tokens"] = raw(4096)
	}
	if api == Chat {
		r.m["stream_options"] = raw(map[string]bool{"include_usage": true})
	}
	for k, v := range extra {
		r.m[k] = raw(v)
	}
	if system != "" {
		r.AddSystem(system) // cannot fail on the members set above
	}
	for _, m := range msgs {
		r.appendMsg(m.Role, m.Text)
	}
	return r
}

// Streaming reports whether the request asks for an SSE stream.
func (r *Request) Streaming() bool {
	var s bool
	json.Unmarshal(r.m["stream"], &s)
	return s
}

// Model is the request's model.
func (r *Request) Model() string {
	var s string
	json.Unmarshal(r.m["model"], &s)
	return s
}

// Body encodes the request.
func (r *Request) Body() []byte { return raw(r.m) }

// AddSystem adds text to the system prompt, after what is there: Chat
// Completions' first system or developer message (a new system message
// first when there is none), Responses' instructions, Messages' system.
func (r *Request) AddSystem(text string) error {
	switch r.API {
	case Chat:
		var msgs []map[string]json.RawMessage
		if err := json.Unmarshal(r.m["messages"], &msgs); err != nil {
			return fmt.Errorf("chat request: messages: %w", err)
		}
		if len(msgs) > 0 {
			var role string
			json.Unmarshal(msgs[0]["role"], &role)
			if role == "system" || role == "developer" {
				c, err := appendText(msgs[0]["content"], text)
				if err != nil {
					return fmt.Errorf("chat request: system message: %w", err)
				}
				msgs[0]["content"] = c
				r.m["messages"] = raw(msgs)
				return nil
			}
		}
		msgs = append([]map[string]json.RawMessage{{"role": raw("system"), "content": raw(text)}}, msgs...)
		r.m["messages"] = raw(msgs)
	case Responses:
		c, err := appendText(r.m["instructions"], text)
		if err != nil {
			return fmt.Errorf("responses request: instructions: %w", err)
		}
		r.m["instructions"] = c
	case Messages:
		c, err := appendText(r.m["system"], text)
		if err != nil {
			return fmt.Errorf("messages request: system: %w", err)
		}
		r.m["system"] = c
	}
	return nil
}

// appendText adds text to a content value: a string, an array of text
// parts, or nothing yet.
func appendText(v json.RawMessage, text string) (json.RawMessage, error) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return raw(text), nil
	}
	switch v[0] {
	case '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, err
		}
		if s == "" {
			return raw(text), nil
		}
		return raw(s + "\n\n" + text), nil
	case '[':
		var parts []json.RawMessage
		if err := json.Unmarshal(v, &parts); err != nil {
			return nil, err
		}
		return raw(append(parts, raw(map[string]string{"type": "text", "text": text}))), nil
	}
	return nil, errors.New("neither text nor an array of parts")
}

// AppendTurn adds the assistant's message and then the user's (the
// results turn) at the end of the conversation.
func (r *Request) AppendTurn(assistant, user string) error {
	if err := r.appendMsg("assistant", assistant); err != nil {
		return err
	}
	return r.appendMsg("user", user)
}

func (r *Request) appendMsg(role, text string) error {
	key := "messages"
	if r.API == Responses {
		key = "input"
	}
	var list []json.RawMessage
	v := bytes.TrimSpace(r.m[key])
	switch {
	case len(v) == 0 || string(v) == "null":
	case v[0] == '"': // Responses' input as one user text
		list = []json.RawMessage{raw(map[string]json.RawMessage{"role": raw("user"), "content": v})}
	default:
		if err := json.Unmarshal(v, &list); err != nil {
			return fmt.Errorf("%s request: %s: %w", r.API, key, err)
		}
	}
	r.m[key] = raw(append(list, raw(map[string]string{"role": role, "content": text})))
	return nil
}

// Reply is what a whole (non-streaming) response says.
type Reply struct {
	ID        string
	Model     string
	Text      string          // the assistant's text
	ToolCalls bool            // the model called a tool: the client must act
	Usage     json.RawMessage // the API's usage object, as it came
}

// ReadReply reads a whole response body of api.
func ReadReply(api API, body []byte) (Reply, error) {
	if !gjson.ValidBytes(body) {
		var v any
		err := json.Unmarshal(body, &v)
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return Reply{}, err
	}
	doc := gjson.ParseBytes(body)
	rp := Reply{ID: doc.Get("id").String(), Model: doc.Get("model").String()}
	if u := doc.Get("usage"); u.IsObject() {
		rp.Usage = json.RawMessage(u.Raw)
	}
	var b strings.Builder
	switch api {
	case Chat:
		doc.Get("choices").ForEach(func(_, c gjson.Result) bool {
			if c.Get("index").Int() == 0 {
				b.WriteString(c.Get("message.content").String())
				rp.ToolCalls = len(c.Get("message.tool_calls").Array()) > 0
			}
			return true
		})
	case Responses:
		doc.Get("output").ForEach(func(_, it gjson.Result) bool {
			switch it.Get("type").String() {
			case "message":
				it.Get("content").ForEach(func(_, p gjson.Result) bool {
					if p.Get("type").String() == "output_text" {
						b.WriteString(p.Get("text").String())
					}
					return true
				})
			case "reasoning":
			default:
				rp.ToolCalls = true
			}
			return true
		})
	case Messages:
		doc.Get("content").ForEach(func(_, p gjson.Result) bool {
			switch p.Get("type").String() {
			case "text":
				b.WriteString(p.Get("text").String())
			case "tool_use", "server_tool_use":
				rp.ToolCalls = true
			}
			return true
		})
	}
	rp.Text = b.String()
	return rp, nil
}

// raw encodes v without HTML escaping; v is always encodable here.
func raw(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only maps, slices, strings, numbers and raw JSON reach here
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// Raw encodes v as JSON without HTML escaping.
func Raw(v any) json.RawMessage { return raw(v) }

// AddUsage adds two usage objects member by member: numbers are summed,
// objects added recursively, anything else taken from b. Either may be
// empty.
func AddUsage(a, b json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(a)) == 0 || string(a) == "null" {
		return b
	}
	if len(bytes.TrimSpace(b)) == 0 || string(b) == "null" {
		return a
	}
	dec := func(r json.RawMessage) map[string]any {
		d := json.NewDecoder(bytes.NewReader(r))
		d.UseNumber()
		var m map[string]any
		d.Decode(&m)
		return m
	}
	ma, mb := dec(a), dec(b)
	if ma == nil || mb == nil {
		return b
	}
	return raw(addMaps(ma, mb))
}

func addMaps(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range a {
		out[k] = v
	}
	for k, vb := range b {
		va, ok := out[k]
		if !ok {
			out[k] = vb
			continue
		}
		switch x := vb.(type) {
		case json.Number:
			if y, ok := va.(json.Number); ok {
				xi, e1 := x.Int64()
				yi, e2 := y.Int64()
				if e1 == nil && e2 == nil {
					out[k] = json.Number(fmt.Sprint(xi + yi))
					continue
				}
			}
		case map[string]any:
			if y, ok := va.(map[string]any); ok {
				out[k] = addMaps(y, x)
				continue
			}
		}
		out[k] = vb
	}
	return out
}
