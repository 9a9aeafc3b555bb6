package middleware

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/internal/wire/wiretest"
)

// fakeUpstream is an OpenAI-compatible chat completions server for tests.
// The assistant answers with the text of the last user message, so a test
// chooses the model's output by what it sends. The model name picks a
// behaviour:
//
//	"bytes"       SSE written and flushed one byte at a time
//	"hang"        SSE: the first two events, then nothing until the client goes
//	"err-NNN"     status NNN with an OpenAI error body
//	anything else JSON, or SSE with one event per word
type fakeUpstream struct {
	*httptest.Server
	mu        sync.Mutex
	requests  []*http.Request // as received, bodies read into bodies
	bodies    [][]byte
	cancelled chan struct{} // closed when a "hang" request's context ends
	once      sync.Once
}

func newFakeUpstream(t *testing.T) *fakeUpstream {
	t.Helper()
	u := &fakeUpstream{cancelled: make(chan struct{})}
	u.Server = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.Close)
	return u
}

// errorBody is the OpenAI error body the fake sends with status code.
func errorBody(code int) string {
	return fmt.Sprintf(`{"error":{"message":"fake failure %d","type":"invalid_request_error","param":null,"code":"fake_%d"}}`, code, code)
}

func (u *fakeUpstream) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.requests = append(u.requests, r)
	u.bodies = append(u.bodies, body)
	u.mu.Unlock()
	if r.URL.Path == "/v1/models" {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[]}`)
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	text := req.Messages[len(req.Messages)-1].Content
	var code int
	if _, err := fmt.Sscanf(req.Model, "err-%d", &code); err == nil {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req-err")
		w.WriteHeader(code)
		io.WriteString(w, errorBody(code))
		return
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, completionJSON(req.Model, text))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl := w.(http.Flusher)
	events := sseEvents(req.Model, text)
	switch req.Model {
	case "bytes":
		all := strings.Join(events, "")
		for i := 0; i < len(all); i++ {
			if _, err := io.WriteString(w, all[i:i+1]); err != nil {
				return
			}
			fl.Flush()
		}
	case "hang":
		for _, e := range events[:3] { // role chunk, then two words
			io.WriteString(w, e)
		}
		fl.Flush()
		select {
		case <-r.Context().Done():
			u.once.Do(func() { close(u.cancelled) })
		case <-time.After(30 * time.Second):
		}
	default:
		for _, e := range events {
			if _, err := io.WriteString(w, e); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

// completionJSON is a non-streaming chat completion answering text.
func completionJSON(model, text string) string {
	c, _ := json.Marshal(text)
	return `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"` + model +
		`","choices":[{"index":0,"message":{"role":"assistant","content":` + string(c) +
		`,"refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}`
}

// sseEvents is a streamed chat completion answering text, one event per
// word (spaces and newlines go with the word before them), then a finish
// chunk and [DONE].
func sseEvents(model, text string) []string {
	head := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"` + model + `",`
	ev := func(choice string) string {
		return "data: " + head + `"choices":[` + choice + "]}\n\n"
	}
	out := []string{ev(`{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}`)}
	for _, w := range wiretest.Words(text) {
		c, _ := json.Marshal(w)
		out = append(out, ev(`{"index":0,"delta":{"content":`+string(c)+`},"finish_reason":null}`))
	}
	out = append(out, ev(`{"index":0,"delta":{},"finish_reason":"stop"}`), "data: [DONE]\n\n")
	return out
}
