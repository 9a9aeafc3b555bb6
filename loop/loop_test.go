package loop_test

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/internal/wire"
	"github.com/pattern-dialect/dialect/internal/wire/wiretest"
	"github.com/pattern-dialect/dialect/loop"
	"github.com/pattern-dialect/dialect/turn"
)

func openRuntime(t testing.TB, toml string) *dialect.Runtime {
	t.Helper()
	cfg, err := dialect.ParseConfig("test.toml", []byte(toml))
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

// calcScript acts once (a calculation), then answers with what the
// results turn said.
func calcScript(s wiretest.Seen) wiretest.Answer {
	last := s.Messages[len(s.Messages)-1].Text
	if strings.HasPrefix(last, turn.Header) {
		_, out, _ := strings.Cut(last, "→ ok\n")
		return wiretest.Answer{Text: "The answer is " + strings.TrimSpace(out) + "."}
	}
	return wiretest.Answer{Text: "Let me compute that.\n/calc 6 * 7\n"}
}

func TestRunOverEachAPI(t *testing.T) {
	for _, api := range []loop.API{loop.ChatCompletions, loop.Responses, loop.Messages} {
		t.Run(string(api), func(t *testing.T) {
			rt := openRuntime(t, "")
			srv := wiretest.New(t, calcScript)
			var shown strings.Builder
			var turns []loop.Turn
			var results []dialect.Result
			m := &loop.HTTP{API: api, BaseURL: srv.URL + "/v1", Model: "scripted", APIKey: "k"}
			out, err := loop.Run(context.Background(), rt, m, []loop.Message{{Role: loop.User, Text: "What is 6 times 7?"}}, loop.Options{
				System: "You are terse.", HideActions: true,
				OnText:   func(s string) { shown.WriteString(s) },
				OnTurn:   func(t loop.Turn) { turns = append(turns, t) },
				OnResult: func(r dialect.Result) { results = append(results, r) },
			})
			if err != nil {
				t.Fatal(err)
			}
			if out.Stop != loop.StopDone || out.Text() != "The answer is 42." || len(turns) != 2 || len(results) != 1 {
				t.Fatalf("stop %s, text %q, %d turns, %d results", out.Stop, out.Text(), len(turns), len(results))
			}
			if got := shown.String(); got != "Let me compute that.\nThe answer is 42." {
				t.Fatalf("shown %q", got)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			for i, r := range reqs {
				if !strings.HasPrefix(r.System, "You are terse.\n\n# Actions") || !r.Stream {
					t.Fatalf("request %d: system %.40q, stream %v", i, r.System, r.Stream)
				}
			}
			want := []wire.Msg{{Role: "user", Text: "What is 6 times 7?"}, {Role: "assistant", Text: "Let me compute that.\n/calc 6 * 7\n"}, {Role: "user", Text: turns[0].ResultsText}}
			if got := reqs[1].Messages; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
				t.Fatalf("second request's conversation: %+v", got)
			}
			if len(out.Messages) != 4 || out.Usage.Output == 0 || out.Usage.Input == 0 {
				t.Fatalf("outcome: %d messages, usage %+v", len(out.Messages), out.Usage)
			}
			if api == loop.ChatCompletions && reqs[0].Header.Get("Authorization") != "Bearer k" ||
				api == loop.Messages && reqs[0].Header.Get("X-Api-Key") != "k" {
				t.Fatal("no key sent")
			}
		})
	}
}

func TestRunTurnLimit(t *testing.T) {
	rt := openRuntime(t, "")
	srv := wiretest.New(t, func(wiretest.Seen) wiretest.Answer { return wiretest.Answer{Text: "/calc 1 + 1\n"} })
	out, err := loop.Run(context.Background(), rt, &loop.HTTP{API: loop.ChatCompletions, BaseURL: srv.URL}, []loop.Message{{Role: loop.User, Text: "go"}}, loop.Options{MaxTurns: 3})
	if err != nil {
		t.Fatal(err)
	}
	if out.Stop != loop.StopTurns || len(out.Turns) != 3 || len(srv.Requests()) != 3 {
		t.Fatalf("stop %s after %d turns, %d requests", out.Stop, len(out.Turns), len(srv.Requests()))
	}
	if last := out.Messages[len(out.Messages)-1]; last.Role != loop.User || !strings.HasPrefix(last.Text, turn.Header) {
		t.Fatalf("the last results are not kept: %+v", last)
	}
}

func TestRunTokenBudget(t *testing.T) {
	rt := openRuntime(t, "")
	srv := wiretest.New(t, func(wiretest.Seen) wiretest.Answer { return wiretest.Answer{Text: "/calc 1 + 1\n"} })
	out, err := loop.Run(context.Background(), rt, &loop.HTTP{API: loop.Messages, BaseURL: srv.URL}, []loop.Message{{Role: loop.User, Text: "go"}}, loop.Options{MaxTokens: 1})
	if err != nil {
		t.Fatal(err)
	}
	if out.Stop != loop.StopTokens || len(out.Turns) != 1 {
		t.Fatalf("stop %s after %d turns", out.Stop, len(out.Turns))
	}
}

func TestRunModelErrorKeepsTurnsSoFar(t *testing.T) {
	rt := openRuntime(t, "")
	srv := wiretest.New(t, func(s wiretest.Seen) wiretest.Answer {
		if len(s.Messages) > 1 {
			return wiretest.Answer{Status: 503}
		}
		return wiretest.Answer{Text: "/calc 2 + 2\n"}
	})
	out, err := loop.Run(context.Background(), rt, &loop.HTTP{API: loop.Responses, BaseURL: srv.URL}, []loop.Message{{Role: loop.User, Text: "go"}}, loop.Options{})
	var se *loop.StatusError
	if !errors.As(err, &se) || se.StatusCode != 503 || !strings.Contains(string(se.Body), "scripted failure 503") {
		t.Fatalf("err %v", err)
	}
	if out.Stop != loop.StopError || len(out.Turns) != 1 || out.Turns[0].Results[0].Output != "4" {
		t.Fatalf("outcome %+v", out)
	}
}

func TestRunToolCallsStop(t *testing.T) {
	rt := openRuntime(t, "")
	srv := wiretest.New(t, func(wiretest.Seen) wiretest.Answer { return wiretest.Answer{Text: "/calc 1 + 1\n", ToolCall: true} })
	for _, api := range []loop.API{loop.ChatCompletions, loop.Responses, loop.Messages} {
		out, err := loop.Run(context.Background(), rt, &loop.HTTP{API: api, BaseURL: srv.URL}, []loop.Message{{Role: loop.User, Text: "go"}}, loop.Options{})
		if err != nil || out.Stop != loop.StopToolCalls {
			t.Fatalf("%s: stop %s, err %v", api, out.Stop, err)
		}
	}
}

// A cancelled context ends the loop with the turns so far and the
// context's error.
func TestRunCancelled(t *testing.T) {
	rt := openRuntime(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	m := loop.ModelFunc(func(ctx context.Context, req loop.Request, w io.Writer) (loop.Reply, error) {
		io.WriteString(w, "/calc 3 + 3\n")
		cancel() // the person gives up while the model answers
		return loop.Reply{Text: "/calc 3 + 3\n"}, nil
	})
	out, err := loop.Run(ctx, rt, m, []loop.Message{{Role: loop.User, Text: "go"}}, loop.Options{})
	if !errors.Is(err, context.Canceled) || len(out.Turns) != 1 {
		t.Fatalf("err %v, %d turns", err, len(out.Turns))
	}
	if r := out.Turns[0].Results[0]; r.Status != dialect.StatusError || r.Code != "CANCELLED" {
		t.Fatalf("the action after the cancel: %+v", r)
	}
}
