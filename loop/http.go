package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/pattern-dialect/dialect/internal/wire"
	"github.com/tidwall/gjson"
)

// API names a wire format HTTP speaks.
type API string

// The APIs HTTP speaks.
const (
	ChatCompletions API = "chat"      // OpenAI Chat Completions: POST {base}/chat/completions
	Responses       API = "responses" // OpenAI Responses: POST {base}/responses
	Messages        API = "messages"  // Anthropic Messages: POST {base}/messages
)

// HTTP is a Model over an API's HTTP interface, streaming (SSE). It needs
// no SDK: the requests and events are the documented JSON.
type HTTP struct {
	API     API
	BaseURL string // the API base as the SDKs take it, e.g. http://127.0.0.1:11434/v1 or https://api.anthropic.com/v1
	Model   string
	// APIKey is sent as "Authorization: Bearer" (OpenAI) or "x-api-key"
	// (Anthropic); empty sends none.
	APIKey string
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
	// Header is added to every request (anthropic-version defaults to
	// 2023-06-01 for Messages).
	Header http.Header
	// Extra members of every request body: temperature, max_tokens...
	Extra map[string]any
}

// StatusError is a non-2xx answer of the API; Body is its body, as it came
// (at most 64 KiB).
type StatusError struct {
	StatusCode int
	Body       []byte
}

func (e *StatusError) Error() string {
	msg := gjson.GetBytes(e.Body, "error.message").String()
	if msg == "" {
		msg = strings.TrimSpace(string(e.Body))
	}
	return fmt.Sprintf("model API answered %d %s: %s", e.StatusCode, http.StatusText(e.StatusCode), msg)
}

// maxEvent is the largest SSE event read.
const maxEvent = 8 << 20

// Reply implements Model.
func (h *HTTP) Reply(ctx context.Context, req Request, text io.Writer) (Reply, error) {
	api, err := wire.Parse(string(h.API))
	if err != nil {
		return Reply{}, err
	}
	msgs := make([]wire.Msg, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = wire.Msg{Role: m.Role, Text: m.Text}
	}
	body := wire.NewRequest(api, h.Model, req.System, msgs, h.Extra).Body()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(h.BaseURL, "/")+api.Path(), bytes.NewReader(body))
	if err != nil {
		return Reply{}, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	if api == wire.Messages {
		hr.Header.Set("anthropic-version", "2023-06-01")
		if h.APIKey != "" {
			hr.Header.Set("x-api-key", h.APIKey)
		}
	} else if h.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+h.APIKey)
	}
	for k, vs := range h.Header {
		hr.Header[k] = vs
	}
	c := h.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(hr)
	if err != nil {
		return Reply{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return Reply{}, &StatusError{StatusCode: resp.StatusCode, Body: b}
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// A server that ignored "stream": read the whole reply.
		b, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
		if err != nil {
			return Reply{}, err
		}
		rp, err := wire.ReadReply(api, b)
		if err != nil {
			return Reply{}, fmt.Errorf("model API: %w", err)
		}
		io.WriteString(text, rp.Text)
		return Reply{Text: rp.Text, ToolCalls: rp.ToolCalls, Usage: usageOf(api, rp.Usage)}, nil
	}
	var out Reply
	var b strings.Builder
	var usage json.RawMessage
	er := wire.NewEventReader(resp.Body, maxEvent)
	for {
		ev, err := er.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Reply{}, err
		}
		in := wire.Classify(api, ev)
		if in.Err {
			return Reply{}, fmt.Errorf("model API sent an error event: %s", bytes.TrimSpace(ev.Data))
		}
		if in.Text != "" {
			b.WriteString(in.Text)
			text.Write([]byte(in.Text))
		}
		out.ToolCalls = out.ToolCalls || in.ToolCalls
		if in.Usage != nil {
			if api == wire.Messages {
				usage = wire.AddUsage(usage, in.Usage) // message_start's input, message_delta's output
			} else {
				usage = in.Usage
			}
		}
		if in.Done {
			break
		}
	}
	out.Text = b.String()
	out.Usage = usageOf(api, usage)
	return out, nil
}

// usageOf reads an API's usage object.
func usageOf(api wire.API, u json.RawMessage) Usage {
	g := gjson.ParseBytes(u)
	if api == wire.Chat {
		return Usage{Input: int(g.Get("prompt_tokens").Int()), Output: int(g.Get("completion_tokens").Int())}
	}
	return Usage{Input: int(g.Get("input_tokens").Int()), Output: int(g.Get("output_tokens").Int())}
}
