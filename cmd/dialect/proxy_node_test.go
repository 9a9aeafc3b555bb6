package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/internal/wire"
	"github.com/pattern-dialect/dialect/internal/wire/wiretest"
	"github.com/pattern-dialect/dialect/turn"
)

// npmClients installs testdata/npm-clients (the official OpenAI and
// Anthropic Node SDKs, pinned) into dir with a cache of its own, or skips
// the test when node, npm or the registry is unavailable (CI has no node).
func npmClients(t *testing.T, dir string) {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: skipping the tests with the official Node SDKs", tool)
		}
	}
	for _, f := range []string{"package.json", "client.mjs"} {
		b, err := os.ReadFile(filepath.Join("testdata", "npm-clients", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(dir, ".npm-cache"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm install failed: %v: %s", err, out)
	}
}

// startProxy runs `dialect proxy` with args in front of upstream and
// returns its base URL; the proxy stops (and must exit 0) when the test
// ends.
func startProxy(t *testing.T, upstream string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr lockedBuffer
	done := make(chan int, 1)
	argv := append([]string{"proxy", "--listen", "127.0.0.1:0", "--upstream", upstream, "--db", filepath.Join(t.TempDir(), "proxy.db")}, args...)
	go func() { done <- runMain(ctx, &stdio{in: strings.NewReader(""), out: io.Discard, err: &stderr}, argv) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("proxy exit %d: %s", code, stderr.String())
			}
		case <-time.After(15 * time.Second):
			t.Error("proxy did not stop")
		}
	})
	addr := regexp.MustCompile(`listening on (http://\S+),`)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if m := addr.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("proxy did not start: %s", stderr.String())
		}
	}
}

// nodeScript answers by the model's name: "m" acts once, then answers
// with the result; "fail" fails every request with 503; "fail-later"
// acts, then fails the turn that would give the model the results.
func nodeScript(s wiretest.Seen) wiretest.Answer {
	last := s.Messages[len(s.Messages)-1].Text
	later := strings.HasPrefix(last, turn.Header)
	switch {
	case s.Model == "fail" || s.Model == "fail-later" && later:
		return wiretest.Answer{Status: 503}
	case later:
		_, out, _ := strings.Cut(last, "→ ok\n")
		return wiretest.Answer{Text: "The answer is " + strings.TrimSpace(out) + "."}
	}
	return wiretest.Answer{Text: "Let me compute that.\n/calc 6 * 7\n"}
}

// nodeResult is what client.mjs printed.
type nodeResult struct {
	Text          string `json:"text"`
	Input, Output int
	Error         *struct {
		Status              int
		Message, Code, Type string
		SDK                 string
	}
}

// TestProxyNodeSDKs drives `dialect proxy --loop 3 --instructions` with
// the official Node SDKs (openai: chat completions and responses;
// @anthropic-ai/sdk: messages), streamed and not, in front of the
// scripted servers, and checks what each SDK made of the answer: one
// message holding both turns' text with the results carried between
// them, the usage of both turns summed, and upstream errors as the
// upstream wrote them.
func TestProxyNodeSDKs(t *testing.T) {
	dir := t.TempDir()
	npmClients(t, dir)
	srv := wiretest.New(t, nodeScript)
	base := startProxy(t, srv.URL, "--loop", "3", "--instructions")
	ask := func(t *testing.T, api wire.API, stream bool, model string) nodeResult {
		t.Helper()
		u := base + "/v1"
		if api == wire.Messages {
			u = base // the Anthropic SDK adds /v1 itself
		}
		mode := map[bool]string{true: "stream", false: "json"}[stream]
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, "node", filepath.Join(dir, "client.mjs"), api.String(), mode, u, model).CombinedOutput()
		if err != nil {
			t.Fatalf("node: %v\n%s", err, out)
		}
		var r nodeResult
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("client printed %s: %v", out, err)
		}
		return r
	}
	for _, api := range []wire.API{wire.Chat, wire.Responses, wire.Messages} {
		for _, stream := range []bool{false, true} {
			t.Run(api.String()+map[bool]string{true: "/stream", false: "/json"}[stream], func(t *testing.T) {
				before := len(srv.Requests())
				r := ask(t, api, stream, "m")
				reqs := srv.Requests()[before:]
				if r.Error != nil || len(reqs) != 2 {
					t.Fatalf("%d upstream requests; client: %+v %+v", len(reqs), r, r.Error)
				}
				results := reqs[1].Messages[len(reqs[1].Messages)-1].Text
				want := "Let me compute that.\n/calc 6 * 7\n" + turn.Carried(results) + "The answer is 42."
				if r.Text != want || !strings.Contains(results, "/calc 6 * 7 → ok\n  42") {
					t.Errorf("the client read\n%q\nwant\n%q", r.Text, want)
				}
				var in, out int
				for _, q := range reqs {
					i, o := wiretest.Usage(q, nodeScript(q))
					in, out = in+i, out+o
					if !strings.Contains(q.System, "# Actions") || q.Stream != stream {
						t.Errorf("upstream request: instructions %v, stream %v", strings.Contains(q.System, "# Actions"), q.Stream)
					}
				}
				if r.Input != in || r.Output != out {
					t.Errorf("usage %d in, %d out; the two turns used %d, %d", r.Input, r.Output, in, out)
				}

				// An error on the first turn reaches the client as the
				// upstream wrote it.
				r = ask(t, api, stream, "fail")
				wantCode := map[wire.API]string{wire.Chat: "scripted_503", wire.Responses: "scripted_503", wire.Messages: ""}[api]
				if r.Error == nil || r.Error.Status != 503 || r.Error.Message != "scripted failure 503" || r.Error.Code != wantCode {
					t.Errorf("first-turn error: %+v", r)
				}
				if api == wire.Messages && r.Error != nil && r.Error.Type != "api_error" {
					t.Errorf("first-turn error type %q", r.Error.Type)
				}

				// An error on a later turn: the upstream's status and body
				// when not streamed, the API's error event when streamed.
				r = ask(t, api, stream, "fail-later")
				if r.Error == nil || !strings.Contains(r.Error.Message, "scripted failure 503") || !stream && r.Error.Status != 503 {
					t.Errorf("later-turn error: %+v %+v", r, r.Error)
				}
			})
		}
	}
}
