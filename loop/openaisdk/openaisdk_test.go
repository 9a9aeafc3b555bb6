package openaisdk_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/internal/wire/wiretest"
	"github.com/pattern-dialect/dialect/loop"
	"github.com/pattern-dialect/dialect/loop/openaisdk"
	"github.com/pattern-dialect/dialect/turn"
)

func client(base string) openai.Client {
	return openai.NewClient(option.WithBaseURL(base+"/v1/"), option.WithAPIKey("k"), option.WithMaxRetries(0))
}

// models are the adapters and loop.HTTP over the same API.
func models(base string) []struct {
	name     string
	sdk, raw loop.Model
} {
	return []struct {
		name     string
		sdk, raw loop.Model
	}{
		{"chat", &openaisdk.Chat{Client: client(base), Model: "scripted"}, &loop.HTTP{API: loop.ChatCompletions, BaseURL: base + "/v1", Model: "scripted", APIKey: "k"}},
		{"responses", &openaisdk.Responses{Client: client(base), Model: "scripted"}, &loop.HTTP{API: loop.Responses, BaseURL: base + "/v1", Model: "scripted", APIKey: "k"}},
	}
}

// The adapter sends what loop.HTTP sends and makes the same Reply of the
// same streamed answer: text (also as written), tool calls, usage.
func TestSameAsHTTP(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  loop.Request
		ans  wiretest.Answer
	}{
		{"first turn", loop.Request{System: "Be terse.", Messages: []loop.Message{{Role: loop.User, Text: "What is 6 times 7?"}}},
			wiretest.Answer{Text: "Let me compute that.\n/calc 6 * 7\n"}},
		{"later turn", loop.Request{System: "Be terse.", Messages: []loop.Message{
			{Role: loop.User, Text: "What is 6 times 7?"}, {Role: loop.Assistant, Text: "/calc 6 * 7\n"}, {Role: loop.User, Text: turn.Header + "\n/calc 6 * 7 → ok\n  42\n"}}},
			wiretest.Answer{Text: "It is 42."}},
		{"no system prompt", loop.Request{Messages: []loop.Message{{Role: loop.User, Text: "hi"}}}, wiretest.Answer{Text: "hello there"}},
		{"tool call", loop.Request{Messages: []loop.Message{{Role: loop.User, Text: "look it up"}}}, wiretest.Answer{Text: "Looking.", ToolCall: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := wiretest.New(t, func(wiretest.Seen) wiretest.Answer { return tc.ans })
			for _, m := range models(srv.URL) {
				var sdkText, rawText strings.Builder
				got, err := m.sdk.Reply(context.Background(), tc.req, &sdkText)
				if err != nil {
					t.Fatalf("%s: %v", m.name, err)
				}
				want, err := m.raw.Reply(context.Background(), tc.req, &rawText)
				if err != nil {
					t.Fatalf("%s over HTTP: %v", m.name, err)
				}
				if got != want || sdkText.String() != got.Text || rawText.String() != want.Text {
					t.Errorf("%s: reply %+v (wrote %q), loop.HTTP's %+v (wrote %q)", m.name, got, sdkText.String(), want, rawText.String())
				}
				if got.Text != tc.ans.Text || got.ToolCalls != tc.ans.ToolCall || got.Usage.Input == 0 || got.Usage.Output == 0 {
					t.Errorf("%s: reply %+v for %+v", m.name, got, tc.ans)
				}
			}
			reqs := srv.Requests()
			for i := 0; i+1 < len(reqs); i += 2 {
				a, b := reqs[i], reqs[i+1]
				if a.API != b.API || !a.Stream || !b.Stream || a.Model != b.Model || a.System != b.System || len(a.Messages) != len(b.Messages) {
					t.Fatalf("SDK request %+v\nHTTP request %+v", a, b)
				}
				for k := range a.Messages {
					if a.Messages[k] != b.Messages[k] {
						t.Errorf("message %d: %+v, %+v", k, a.Messages[k], b.Messages[k])
					}
				}
			}
		})
	}
}

func openRuntime(t *testing.T) *dialect.Runtime {
	t.Helper()
	cfg, err := dialect.ParseConfig("test.toml", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store.Path = filepath.Join(t.TempDir(), "t.db")
	rt, err := dialect.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

// calcScript acts once, then answers with what the results turn said.
func calcScript(s wiretest.Seen) wiretest.Answer {
	last := s.Messages[len(s.Messages)-1].Text
	if strings.HasPrefix(last, turn.Header) {
		_, out, _ := strings.Cut(last, "→ ok\n")
		return wiretest.Answer{Text: "The answer is " + strings.TrimSpace(out) + "."}
	}
	return wiretest.Answer{Text: "Let me compute that.\n/calc 6 * 7\n"}
}

// loop.Run over the adapter: the action runs, its result goes back, the
// model answers with it.
func TestRun(t *testing.T) {
	srv := wiretest.New(t, calcScript)
	for _, m := range models(srv.URL) {
		t.Run(m.name, func(t *testing.T) {
			var shown strings.Builder
			out, err := loop.Run(context.Background(), openRuntime(t), m.sdk, []loop.Message{{Role: loop.User, Text: "What is 6 times 7?"}},
				loop.Options{HideActions: true, OnText: func(s string) { shown.WriteString(s) }})
			if err != nil {
				t.Fatal(err)
			}
			if out.Stop != loop.StopDone || out.Text() != "The answer is 42." || len(out.Turns) != 2 || out.Turns[0].Results[0].Output != "42" {
				t.Fatalf("stop %s, text %q, %d turns", out.Stop, out.Text(), len(out.Turns))
			}
			if shown.String() != "Let me compute that.\nThe answer is 42." {
				t.Errorf("shown %q", shown.String())
			}
			if u := out.Usage; u.Input != out.Turns[0].Reply.Usage.Input+out.Turns[1].Reply.Usage.Input || u.Output == 0 {
				t.Errorf("usage %+v", u)
			}
		})
	}
}

// An error answer is the SDK's *openai.Error and runs nothing; an error
// inside the stream is an error too.
func TestErrors(t *testing.T) {
	srv := wiretest.New(t, func(wiretest.Seen) wiretest.Answer { return wiretest.Answer{Status: 429} })
	for _, m := range models(srv.URL) {
		out, err := loop.Run(context.Background(), openRuntime(t), m.sdk, []loop.Message{{Role: loop.User, Text: "hi"}}, loop.Options{})
		var ae *openai.Error
		if !errors.As(err, &ae) || ae.StatusCode != 429 || out.Stop != loop.StopError || len(out.Turns) != 0 {
			t.Errorf("%s: err %v, stop %s, %d turns", m.name, err, out.Stop, len(out.Turns))
		}
	}
	for _, tc := range []struct {
		name   string
		model  func(base string) loop.Model
		events string
		want   error
	}{
		{"chat", func(base string) loop.Model { return &openaisdk.Chat{Client: client(base), Model: "m"} },
			"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"/calc 1+1\\n\"}}]}\n\ndata: {\"error\":{\"message\":\"overloaded\"}}\n\n", nil},
		{"responses error event", func(base string) loop.Model { return &openaisdk.Responses{Client: client(base), Model: "m"} },
			"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"/calc 1+1\\n\",\"sequence_number\":1}\n\nevent: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"overloaded\",\"sequence_number\":2}\n\n", openaisdk.ErrFailed},
		{"responses failed", func(base string) loop.Model { return &openaisdk.Responses{Client: client(base), Model: "m"} },
			"event: response.failed\ndata: {\"type\":\"response.failed\",\"sequence_number\":1,\"response\":{\"id\":\"r\",\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"overloaded\"}}}\n\n", openaisdk.ErrFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, tc.events)
			}))
			defer up.Close()
			_, err := tc.model(up.URL).Reply(context.Background(), loop.Request{Messages: []loop.Message{{Role: loop.User, Text: "hi"}}}, io.Discard)
			if err == nil || !strings.Contains(err.Error(), "overloaded") || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("err %v", err)
			}
		})
	}
}

// The SDKs stay out of the dialect command: linking them costs it
// start-up time (their package initialisers, about 2.5 ms) and size.
func TestDialectDoesNotLinkSDKs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/pattern-dialect/dialect/cmd/dialect").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/openai/") || strings.HasPrefix(dep, "github.com/anthropics/") || strings.HasPrefix(dep, "github.com/pattern-dialect/dialect/loop/") {
			t.Errorf("cmd/dialect links %s", dep)
		}
	}
}
