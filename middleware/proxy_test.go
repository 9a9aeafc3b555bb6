package middleware

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/pattern-dialect/dialect"
)

// newProxyServer starts a proxy in front of up.
func newProxyServer(t *testing.T, rt *dialect.Runtime, up *fakeUpstream, opts ...Option) *httptest.Server {
	t.Helper()
	u, err := url.Parse(up.URL)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(NewProxy(rt, u, nil, nil, opts...))
	t.Cleanup(srv.Close)
	return srv
}

func TestProxyForwardsUnchanged(t *testing.T) {
	up := newFakeUpstream(t)
	rt := openRuntime(t, "")
	var col mwCollector
	px := newProxyServer(t, rt, up, OnCompletion(col.add))
	ctx := context.Background()
	for _, base := range []string{up.URL, px.URL} {
		c := openai.NewClient(option.WithBaseURL(base+"/v1/"), option.WithAPIKey("sk-test"), option.WithMaxRetries(0),
			option.WithHeader("X-Custom", "kept"))
		if _, err := c.Chat.Completions.New(ctx, mwParams("m1", "no actions here")); err != nil {
			t.Fatal(err)
		}
	}
	up.mu.Lock()
	defer up.mu.Unlock()
	direct, proxied := up.requests[0], up.requests[1]
	if !bytes.Equal(up.bodies[0], up.bodies[1]) {
		t.Errorf("body changed:\n%s\n%s", up.bodies[0], up.bodies[1])
	}
	if direct.Method != proxied.Method || direct.URL.Path != proxied.URL.Path {
		t.Errorf("%s %s became %s %s", direct.Method, direct.URL.Path, proxied.Method, proxied.URL.Path)
	}
	for _, h := range []string{"Authorization", "X-Custom", "Content-Type", "User-Agent", "X-Stainless-Lang"} {
		if direct.Header.Get(h) != proxied.Header.Get(h) || direct.Header.Get(h) == "" {
			t.Errorf("header %s: %q became %q", h, direct.Header.Get(h), proxied.Header.Get(h))
		}
	}
	if n := len(col.all()); n != 1 {
		t.Errorf("%d completions through the proxy", n)
	}
}

func TestProxyJSONAndSSE(t *testing.T) {
	up := newFakeUpstream(t)
	rt := openRuntime(t, "")
	var col mwCollector
	px := newProxyServer(t, rt, up, OnCompletion(col.add), ResultsEvent())
	client := openai.NewClient(option.WithBaseURL(px.URL+"/v1/"), option.WithAPIKey("k"), option.WithMaxRetries(0),
		option.WithHeader(HeaderAgent, "scout"))
	ref := mwSummary(mwWant(t, msgActions))

	var resp *http.Response
	got, err := client.Chat.Completions.New(context.Background(), mwParams("m1", msgActions), option.WithResponseInto(&resp))
	if err != nil {
		t.Fatal(err)
	}
	if got.Choices[0].Message.Content != msgActions {
		t.Errorf("content %q", got.Choices[0].Message.Content)
	}
	var hdr []dialect.Result
	if err := json.Unmarshal([]byte(resp.Header.Get(HeaderResults)), &hdr); err != nil || mwSummary(hdr) != ref {
		t.Errorf("header %q: %v", resp.Header.Get(HeaderResults), err)
	}

	for _, model := range []string{"words", "bytes"} {
		s := client.Chat.Completions.NewStreaming(context.Background(), mwParams(model, msgActions))
		text, chunks := mwReadStream(t, s)
		if text != msgActions {
			t.Errorf("%s: streamed %q", model, text)
		}
		last := chunks[len(chunks)-1]
		var ev struct {
			Dialect struct {
				Results []dialect.Result `json:"results"`
			} `json:"dialect"`
		}
		if err := json.Unmarshal([]byte(last.RawJSON()), &ev); err != nil || mwSummary(ev.Dialect.Results) != ref {
			t.Errorf("%s: results event %s: %v", model, last.RawJSON(), err)
		}
	}
	cs := col.all()
	if len(cs) != 3 {
		t.Fatalf("%d completions", len(cs))
	}
	for _, c := range cs {
		if c.Err != nil || mwSummary(c.Results) != ref || c.Meta.Agent != "scout" {
			t.Errorf("completion %v %+v %s", c.Err, c.Meta, mwSummary(c.Results))
		}
	}
}

func TestProxyHideActions(t *testing.T) {
	up := newFakeUpstream(t)
	rt := openRuntime(t, "")
	px := newProxyServer(t, rt, up, HideActions())
	client := mwClient(px.URL+"/v1/", http.DefaultTransport)
	const shown = "Here is the plan.\nActually, never mind the notes.\n"
	for _, model := range []string{"words", "bytes"} {
		s := client.Chat.Completions.NewStreaming(context.Background(), mwParams(model, msgHidden))
		if text, _ := mwReadStream(t, s); text != shown {
			t.Errorf("%s: client saw %q", model, text)
		}
	}
	got, err := client.Chat.Completions.New(context.Background(), mwParams("m1", msgHidden))
	if err != nil || got.Choices[0].Message.Content != shown {
		t.Errorf("JSON: %v %q", err, got.Choices[0].Message.Content)
	}
}

func TestProxyUpstreamErrors(t *testing.T) {
	up := newFakeUpstream(t)
	rt := openRuntime(t, "")
	px := newProxyServer(t, rt, up, ResultsEvent(), HideActions())
	client := mwClient(px.URL+"/v1/", http.DefaultTransport)
	for _, code := range []int{400, 404, 429, 500, 502} {
		body := fmt.Sprintf(`{"model":"err-%d","stream":true,"messages":[{"role":"user","content":"x"}]}`, code)
		resp, err := http.Post(px.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != code || string(b) != errorBody(code) || resp.Header.Get("X-Request-Id") != "req-err" {
			t.Errorf("%d: got %d %q", code, resp.StatusCode, b)
		}
		_, err = client.Chat.Completions.New(context.Background(), mwParams(fmt.Sprintf("err-%d", code), "x"))
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != code || apiErr.Message != fmt.Sprintf("fake failure %d", code) {
			t.Errorf("%d: openai-go error %v", code, err)
		}
	}
}

func TestProxyClientCancels(t *testing.T) {
	up := newFakeUpstream(t)
	rt := openRuntime(t, "")
	var col mwCollector
	px := newProxyServer(t, rt, up, OnCompletion(col.add))
	client := mwClient(px.URL+"/v1/", http.DefaultTransport)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := client.Chat.Completions.NewStreaming(ctx, mwParams("hang", "/recall notes + \"secret\"\nand then more"))
	// The upstream holds the rest of the message: these chunks reach the
	// client before the message is complete.
	var text strings.Builder
	for i := 0; i < 3; i++ {
		if !s.Next() {
			t.Fatalf("chunk %d did not arrive while the upstream was still streaming: %v", i, s.Err())
		}
		if ch := s.Current(); len(ch.Choices) > 0 {
			text.WriteString(ch.Choices[0].Delta.Content)
		}
	}
	if text.String() != "/recall notes " {
		t.Errorf("first chunks %q", text.String())
	}
	cancel()
	for s.Next() {
	}
	select {
	case <-up.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream request was not cancelled")
	}
	c := col.one(t)
	if !errors.Is(c.Err, ErrIncomplete) || len(c.Results) != 0 {
		t.Errorf("completion %v %+v", c.Err, c.Results)
	}
}

func TestProxyLogCompletions(t *testing.T) {
	var buf bytes.Buffer
	log := LogCompletions(&buf)
	log(Completion{Meta: dialect.Meta{Agent: "a"}, Path: "/v1/chat/completions", Results: []dialect.Result{{Verb: "recall", Status: dialect.StatusOK}, {Verb: "search", Status: dialect.StatusSkipped}}})
	log(Completion{Path: "/v1/chat/completions", Err: &UpstreamError{StatusCode: 500}})
	log(Completion{Path: "/v1/chat/completions", Results: []dialect.Result{}})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	var l struct {
		Agent  string          `json:"agent"`
		Result *dialect.Result `json:"result"`
		Error  string          `json:"error"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &l); err != nil || l.Result.Verb != "search" || l.Agent != "a" {
		t.Errorf("line 2 %s: %v", lines[1], err)
	}
	l.Result = nil
	if err := json.Unmarshal([]byte(lines[2]), &l); err != nil || l.Result != nil || !strings.Contains(l.Error, "500") {
		t.Errorf("line 3 %s: %v", lines[2], err)
	}
}

// TestProxyKeepAliveStreams sends many streamed requests in a row over
// kept-alive connections: without sizedBody, a late read of the closed
// inbound body made the transport drop the upstream connection in the
// middle of an answer, about once in a hundred requests.
func TestProxyKeepAliveStreams(t *testing.T) {
	up := newFakeUpstream(t)
	rt := openRuntime(t, "")
	px := newProxyServer(t, rt, up)
	long := strings.Repeat("a longer answer streamed one word at a time ", 25)
	n := 300
	if testing.Short() || raceEnabled {
		n = 60
	}
	for i := 0; i < n; i++ {
		body := fmt.Sprintf(`{"model":"m1","stream":true,"messages":[{"role":"user","content":"answer number %d: %s"}]}`, i, long)
		resp, err := http.Post(px.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !bytes.HasSuffix(b, []byte("data: [DONE]\n\n")) {
			t.Fatalf("request %d: %v, body ends %q", i, err, b[max(0, len(b)-40):])
		}
	}
}

func TestProxySizedBody(t *testing.T) {
	rc := &closeCounter{Reader: strings.NewReader("0123456789extra")}
	b := &sizedBody{rc: rc, left: 10}
	got, err := io.ReadAll(b)
	if err != nil || string(got) != "0123456789" {
		t.Errorf("read %q %v", got, err)
	}
	if n, err := b.Read(make([]byte, 4)); n != 0 || err != io.EOF {
		t.Errorf("read after the length: %d %v", n, err)
	}
	b.Close()
	if rc.closed != 1 {
		t.Errorf("closed %d times", rc.closed)
	}
}

type closeCounter struct {
	io.Reader
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }
