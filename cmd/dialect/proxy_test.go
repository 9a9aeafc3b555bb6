package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// lockedBuffer is a bytes.Buffer safe for the proxy's log and the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// proxyTestUpstream answers every chat completion with reply, as JSON or
// as SSE (one event per line of reply).
func proxyTestUpstream(t *testing.T, reply string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model  string `json:"model"`
			Stream bool   `json:"stream"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		c, _ := json.Marshal(reply)
		if req.Model == "broken" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":{"message":"overloaded","type":"server_error","param":null,"code":null}}`)
			return
		}
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}]}`, req.Model, c)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, l := range strings.SplitAfter(reply, "\n") {
			if l == "" {
				continue
			}
			c, _ := json.Marshal(l)
			fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]}\n\n", req.Model, c)
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestProxyCmd(t *testing.T) {
	const reply = "Noted.\n/recall notes + \"deadline friday\"\n"
	up := proxyTestUpstream(t, reply)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr lockedBuffer
	done := make(chan int, 1)
	db := filepath.Join(t.TempDir(), "proxy.db")
	go func() {
		done <- runMain(ctx, &stdio{in: strings.NewReader(""), out: io.Discard, err: &stderr},
			[]string{"proxy", "--listen", "127.0.0.1:0", "--upstream", up.URL, "--db", db, "--agent", "scout", "--hide-actions"})
	}()
	addr := regexp.MustCompile(`listening on (http://\S+),`)
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == ""; time.Sleep(5 * time.Millisecond) {
		if m := addr.FindStringSubmatch(stderr.String()); m != nil {
			base = m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("proxy did not start: %s", stderr.String())
		}
	}
	client := openai.NewClient(option.WithBaseURL(base+"/v1/"), option.WithAPIKey("k"), option.WithMaxRetries(0))
	params := openai.ChatCompletionNewParams{Model: "m1", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}}
	var resp *http.Response
	got, err := client.Chat.Completions.New(ctx, params, option.WithResponseInto(&resp))
	if err != nil {
		t.Fatal(err)
	}
	if got.Choices[0].Message.Content != "Noted.\n" {
		t.Errorf("hidden JSON content %q", got.Choices[0].Message.Content)
	}
	if !strings.Contains(resp.Header.Get("X-Dialect-Results"), `"status":"ok"`) {
		t.Errorf("results header %q", resp.Header.Get("X-Dialect-Results"))
	}
	s := client.Chat.Completions.NewStreaming(ctx, params)
	var text strings.Builder
	for s.Next() {
		if ch := s.Current(); len(ch.Choices) > 0 {
			text.WriteString(ch.Choices[0].Delta.Content)
		}
	}
	if s.Err() != nil || text.String() != "Noted.\n" {
		t.Errorf("stream %q %v", text.String(), s.Err())
	}
	params.Model = "broken"
	if _, err := client.Chat.Completions.New(ctx, params); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("upstream error: %v", err)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d: %s", code, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("proxy did not stop")
	}
	// One JSON line per result, and one for the upstream error.
	var results, errs int
	outputs := []string{}
	for _, l := range strings.Split(stderr.String(), "\n") {
		if !strings.HasPrefix(l, "{") {
			continue
		}
		var e struct {
			Agent  string `json:"agent"`
			Result *struct {
				Verb, Status, Output string
			} `json:"result"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if e.Agent != "scout" {
			t.Errorf("agent in %s", l)
		}
		if e.Result != nil {
			results++
			outputs = append(outputs, e.Result.Output)
		}
		if e.Error != "" {
			errs++
		}
	}
	if results != 2 || errs != 1 || outputs[0] != "appended to notes (now v1)" || outputs[1] != "appended to notes (now v2)" {
		t.Errorf("log: %d results %q, %d errors:\n%s", results, outputs, errs, stderr.String())
	}
}

func TestProxyCmdUsage(t *testing.T) {
	for _, args := range [][]string{
		{"proxy"},
		{"proxy", "--upstream", "ftp://x"},
		{"proxy", "--upstream", "http://127.0.0.1:1", "extra"},
	} {
		var stderr bytes.Buffer
		if code := runMain(context.Background(), &stdio{in: strings.NewReader(""), out: io.Discard, err: &stderr}, args); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, code, stderr.String())
		}
	}
}
