package anthropicsdk_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/internal/wire/wiretest"
	"github.com/pattern-dialect/dialect/loop"
	"github.com/pattern-dialect/dialect/loop/anthropicsdk"
	"github.com/pattern-dialect/dialect/turn"
)

func model(base string) *anthropicsdk.Messages {
	c := anthropic.NewClient(option.WithBaseURL(base), option.WithAPIKey("k"), option.WithMaxRetries(0))
	return &anthropicsdk.Messages{Client: c, Model: "scripted"}
}

// The adapter sends what loop.HTTP sends and makes the same Reply of the
// same streamed answer: text (also as written), tool calls, usage (the
// totals of message_delta, not added to message_start's).
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
			raw := &loop.HTTP{API: loop.Messages, BaseURL: srv.URL + "/v1", Model: "scripted", APIKey: "k"}
			var sdkText, rawText strings.Builder
			got, err := model(srv.URL).Reply(context.Background(), tc.req, &sdkText)
			if err != nil {
				t.Fatal(err)
			}
			want, err := raw.Reply(context.Background(), tc.req, &rawText)
			if err != nil {
				t.Fatal(err)
			}
			if got != want || sdkText.String() != got.Text || rawText.String() != want.Text {
				t.Errorf("reply %+v (wrote %q), loop.HTTP's %+v (wrote %q)", got, sdkText.String(), want, rawText.String())
			}
			// The scripted server counts one output token per word and
			// one more, and says 1 in message_start.
			words := len(strings.Fields(tc.ans.Text))
			if got.Text != tc.ans.Text || got.ToolCalls != tc.ans.ToolCall || got.Usage.Input == 0 || got.Usage.Output != words+1 {
				t.Errorf("reply %+v for %+v", got, tc.ans)
			}
			reqs := srv.Requests()
			a, b := reqs[0], reqs[1]
			if !a.Stream || !b.Stream || a.Model != b.Model || a.System != b.System || len(a.Messages) != len(b.Messages) ||
				a.Header.Get("Anthropic-Version") == "" {
				t.Fatalf("SDK request %+v\nHTTP request %+v", a, b)
			}
			for k := range a.Messages {
				if a.Messages[k] != b.Messages[k] {
					t.Errorf("message %d: %+v, %+v", k, a.Messages[k], b.Messages[k])
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

// loop.Run over the adapter: the action runs, its result goes back, the
// model answers with it.
func TestRun(t *testing.T) {
	srv := wiretest.New(t, func(s wiretest.Seen) wiretest.Answer {
		last := s.Messages[len(s.Messages)-1].Text
		if strings.HasPrefix(last, turn.Header) {
			_, out, _ := strings.Cut(last, "→ ok\n")
			return wiretest.Answer{Text: "The answer is " + strings.TrimSpace(out) + "."}
		}
		return wiretest.Answer{Text: "Let me compute that.\n/calc 6 * 7\n"}
	})
	var shown strings.Builder
	out, err := loop.Run(context.Background(), openRuntime(t), model(srv.URL), []loop.Message{{Role: loop.User, Text: "What is 6 times 7?"}},
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
	if reqs := srv.Requests(); !strings.Contains(reqs[0].System, "# Actions") || len(reqs[1].Messages) != 3 {
		t.Errorf("requests %+v", reqs)
	}
}

// An error answer is the SDK's *anthropic.Error and runs nothing; an
// error event inside the stream is an error too.
func TestErrors(t *testing.T) {
	srv := wiretest.New(t, func(wiretest.Seen) wiretest.Answer { return wiretest.Answer{Status: 529} })
	out, err := loop.Run(context.Background(), openRuntime(t), model(srv.URL), []loop.Message{{Role: loop.User, Text: "hi"}}, loop.Options{})
	var ae *anthropic.Error
	if !errors.As(err, &ae) || ae.StatusCode != 529 || out.Stop != loop.StopError || len(out.Turns) != 0 {
		t.Errorf("err %v, stop %s, %d turns", err, out.Stop, len(out.Turns))
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n"+
			"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n")
	}))
	defer up.Close()
	if _, err := model(up.URL).Reply(context.Background(), loop.Request{Messages: []loop.Message{{Role: loop.User, Text: "hi"}}}, io.Discard); err == nil || !strings.Contains(err.Error(), "Overloaded") {
		t.Errorf("error event: %v", err)
	}
}
