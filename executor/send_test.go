package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
)

// The command target receives exactly the intent JSON on stdin and its
// arguments exactly as configured: hostile text is never interpreted.
func TestSendCommandNoInjection(t *testing.T) {
	dir := t.TempDir()
	pwned := filepath.Join(dir, "pwned")
	out := filepath.Join(dir, "record.json")
	hostile := []string{
		"$(touch " + pwned + ")",
		"; rm -rf " + dir + " ; touch " + pwned,
		"`touch " + pwned + "`",
		`'single' "double" \back`,
		"| touch " + pwned,
		"&& touch " + pwned,
		"$HOME $PATH *",
		"{content}",
		"to={target}",
	}
	s, err := NewSender(SendOptions{
		Targets: map[string]TargetConfig{"hook": {Type: "command", Command: helperArgv(t, "record", append([]string{out}, hostile...)...)}},
		Routes:  map[string]string{"*": "hook"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := intent.Send{Domain: "agent", Target: "anchor; touch " + pwned, Content: "$(touch " + pwned + ") `id` \"q\" 'q' \\ \n\x00 ünïcode", Via: "tell"}
	r, err := s.Send(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	rec := readRecord(t, out)
	want, _ := intent.Marshal(in)
	if rec.Stdin != string(want) {
		t.Errorf("stdin = %q, want the exact intent JSON %q", rec.Stdin, want)
	}
	wantArgv := slices.Clone(hostile)
	wantArgv[7] = strings.ReplaceAll(in.Content, "\x00", "") // argv cannot carry NUL
	wantArgv[8] = "to=" + in.Target
	if !slices.Equal(rec.Argv, wantArgv) {
		t.Errorf("argv = %q\nwant   %q", rec.Argv, wantArgv)
	}
	if _, err := os.Stat(pwned); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a hostile argument was executed: %v", err)
	}
	for _, kv := range rec.Env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(baseEnv, name) {
			t.Errorf("the command received %s, which is not in the allowed environment", name)
		}
	}
	if r.Text != "sent to @agent @anchor; touch "+pwned+" (hook): recorded" {
		t.Errorf("text = %q", r.Text)
	}
	var decoded intent.Send
	if err := json.Unmarshal([]byte(rec.Stdin), &decoded); err != nil || decoded.Content != in.Content || decoded.Target != in.Target {
		t.Errorf("stdin decodes to %+v, %v", decoded, err)
	}
}

func TestSendCommandFailures(t *testing.T) {
	t.Setenv("EXECUTOR_SECRET", "s3cret")
	tests := []struct {
		name    string
		target  TargetConfig
		code    codes.Code
		mention string
	}{
		{"exit status", TargetConfig{Type: "command", Command: helperArgv(t, "fail")}, codes.CommandFailed, "exited with status 3: …eeee"},
		{"the reason is at the end of stderr", TargetConfig{Type: "command", Command: helperArgv(t, "complain")}, codes.CommandFailed,
			"exited with status 3: notify: loading config | notify: connecting | notify: no such channel"},
		{"missing program", TargetConfig{Type: "command", Command: []string{"/nonexistent/program"}}, codes.CommandFailed, "could not run"},
		{"timeout", TargetConfig{Type: "command", Command: helperArgv(t, "sleep"), Timeout: Duration{200 * time.Millisecond}}, codes.Timeout, "too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewSender(SendOptions{Targets: map[string]TargetConfig{"x": tt.target}, Routes: map[string]string{"*": "x"}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = s.Send(context.Background(), intent.Send{Domain: "agent", Content: "hi"})
			if codes.Of(err) != tt.code || !strings.Contains(err.Error(), tt.mention) {
				t.Fatalf("err = %v, want %s mentioning %q", err, tt.code, tt.mention)
			}
			if strings.ContainsRune(err.Error(), 0x1b) {
				t.Errorf("stderr escapes reach the error: %q", err)
			}
			if len(err.Error()) > 700 {
				t.Errorf("error is %d bytes; stderr is not bounded", len(err.Error()))
			}
			if time.Since(start) > 5*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			var ce *CommandError
			if tt.name == "exit status" && (!errors.As(err, &ce) || ce.ExitCode != 3) {
				t.Errorf("no *CommandError with status 3 in %v", err)
			}
		})
	}
}

func TestSendCommandEnvPassThrough(t *testing.T) {
	t.Setenv("EXECUTOR_SECRET", "s3cret")
	t.Setenv("EXECUTOR_ALLOWED", "yes")
	out := filepath.Join(t.TempDir(), "rec.json")
	s, err := NewSender(SendOptions{
		Targets: map[string]TargetConfig{"c": {Type: "command", Command: helperArgv(t, "record", out), Env: []string{"EXECUTOR_ALLOWED"}}},
		Routes:  map[string]string{"*": "c"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Send(context.Background(), intent.Send{Domain: "x", Content: "y"}); err != nil {
		t.Fatal(err)
	}
	env := strings.Join(readRecord(t, out).Env, "\n")
	if !strings.Contains(env, "EXECUTOR_ALLOWED=yes") || strings.Contains(env, "s3cret") {
		t.Errorf("env = %q", env)
	}
}

func TestSendStdoutAndFile(t *testing.T) {
	var buf bytes.Buffer
	path := filepath.Join(t.TempDir(), "sub", "sent.jsonl")
	s, err := NewSender(SendOptions{
		Targets: map[string]TargetConfig{"log": {Type: "file", Path: path}},
		Routes:  map[string]string{"user": "stdout", "agent": "log"},
	}, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Send(context.Background(), intent.Send{Domain: "user", Content: "hello \x1b]0;evil\x07there\x1b[2J"}); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "[@user] hello there\n" {
		t.Errorf("stdout = %q", got)
	}
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Send(context.Background(), intent.Send{Domain: "agent", Target: "anchor", Content: strings.Repeat("x", 5000)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 20 {
		t.Fatalf("%d lines, want 20", len(lines))
	}
	for _, l := range lines {
		var line struct {
			Time   time.Time       `json:"time"`
			Intent json.RawMessage `json:"intent"`
		}
		if err := json.Unmarshal([]byte(l), &line); err != nil || line.Time.IsZero() {
			t.Fatalf("bad line %q: %v", l[:60], err)
		}
		in, err := intent.Decode(line.Intent)
		if err != nil || in.(intent.Send).Target != "anchor" {
			t.Fatalf("line intent: %v %v", in, err)
		}
	}
}

func TestSendFileErrors(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "plainfile")
	os.WriteFile(blocker, nil, 0o600)
	s, err := NewSender(SendOptions{
		Targets: map[string]TargetConfig{"bad": {Type: "file", Path: filepath.Join(blocker, "sub", "x.jsonl")}},
		Routes:  map[string]string{"*": "bad"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Send(context.Background(), intent.Send{Domain: "x", Content: "y"})
	if codes.Of(err) != codes.DeliveryFailed || !strings.Contains(err.Error(), "could not deliver to bad") {
		t.Errorf("err = %v", err)
	}
	home, _ := os.UserHomeDir()
	if p, _ := expandHome("~/a/b"); p != filepath.Join(home, "a", "b") {
		t.Errorf("expandHome = %q", p)
	}
	if p, _ := expandHome("/abs/~/x"); p != "/abs/~/x" {
		t.Errorf("expandHome abs = %q", p)
	}
}

func TestSendWebhook(t *testing.T) {
	t.Setenv("EXECUTOR_TOKEN", "tok123")
	var mu sync.Mutex
	var got []byte
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		got, _ = io.ReadAll(r.Body)
		auth = r.Header.Get("Authorization")
		switch r.URL.Path {
		case "/down":
			http.Error(w, "service down", http.StatusServiceUnavailable)
		case "/slow":
			time.Sleep(500 * time.Millisecond)
		default:
			if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
				http.Error(w, "bad request", 400)
				return
			}
			w.Write([]byte(`{"ok":true}`))
		}
	}))
	defer srv.Close()
	s, err := NewSender(SendOptions{
		Targets: map[string]TargetConfig{
			"hook": {Type: "webhook", URL: srv.URL + "/hook", Headers: map[string]string{"Authorization": "Bearer ${EXECUTOR_TOKEN}"}},
			"down": {Type: "webhook", URL: srv.URL + "/down"},
			"slow": {Type: "webhook", URL: srv.URL + "/slow", Timeout: Duration{100 * time.Millisecond}},
		},
		Routes: map[string]string{"channel": "hook", "channel:ops": "down", "channel:slow": "slow"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := intent.Send{Domain: "channel", Target: "general", Content: "deploy done", Via: "post"}
	r, err := s.Send(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := intent.Marshal(in)
	mu.Lock()
	if !bytes.Equal(got, want) || auth != "Bearer tok123" {
		t.Errorf("webhook got %q auth %q", got, auth)
	}
	mu.Unlock()
	if d := r.Data.(SendData); d.Status != 200 || d.Response != `{"ok":true}` || d.Target != "hook" {
		t.Errorf("data = %+v", d)
	}

	chat, err := NewSender(SendOptions{
		Targets: map[string]TargetConfig{"slack": {Type: "webhook", URL: srv.URL + "/s", Body: "slack"}, "discord": {Type: "webhook", URL: srv.URL + "/d", Body: "discord"}},
		Routes:  map[string]string{"slack": "slack", "discord": "discord"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for domain, want := range map[string]string{"slack": `{"text":"a \"quoted\" note"}`, "discord": `{"content":"a \"quoted\" note"}`} {
		if _, err := chat.Send(context.Background(), intent.Send{Domain: domain, Content: `a "quoted" note`}); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		if string(got) != want {
			t.Errorf("%s body = %s, want %s", domain, got, want)
		}
		mu.Unlock()
	}

	_, err = s.Send(context.Background(), intent.Send{Domain: "channel", Target: "ops", Content: "x"})
	var se *StatusError
	if codes.Of(err) != codes.HTTPStatus || !errors.As(err, &se) || se.Status != 503 || !strings.Contains(err.Error(), "service down") || strings.Contains(se.Body, "\n") {
		t.Fatalf("non-2xx: %v", err)
	}
	_, err = s.Send(context.Background(), intent.Send{Domain: "channel", Target: "slow", Content: "x"})
	if codes.Of(err) != codes.Timeout {
		t.Fatalf("slow webhook: %v", err)
	}
}

func TestSendRouting(t *testing.T) {
	s, err := NewSender(SendOptions{
		Targets: map[string]TargetConfig{
			"a": {Type: "stdout"}, "b": {Type: "stdout"}, "bluesky": {Type: "stdout"}, "any": {Type: "stdout"},
		},
		Routes: map[string]string{"agent:anchor": "a", "agent": "b", "*": "any"},
	}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ domain, target, want string }{
		{"agent", "anchor", "a"},
		{"agent", "@anchor", "a"},
		{"AGENT", "Anchor", "a"},
		{"agent", "other", "b"},
		{"Agent", "", "b"},
		{"bluesky", "", "bluesky"},
		{"discord", "x", "any"},
	} {
		got, ok := s.Route(intent.Send{Domain: tt.domain, Target: tt.target})
		if !ok || got != tt.want {
			t.Errorf("Route(%s, %s) = %q, want %q", tt.domain, tt.target, got, tt.want)
		}
	}
	def, _ := NewSender(SendOptions{}, io.Discard)
	if _, err := def.Send(context.Background(), intent.Send{Domain: "bluesky", Content: "x"}); codes.Of(err) != codes.NotConfigured {
		t.Errorf("unrouted domain: %v", err)
	}
	if _, err := def.Send(context.Background(), intent.Send{Domain: "user", Content: " "}); codes.Of(err) != codes.MissingArg {
		t.Errorf("empty content: %v", err)
	}
}

func TestSendConfigErrors(t *testing.T) {
	for key, o := range map[string]SendOptions{
		"send.targets.x.type":    {Targets: map[string]TargetConfig{"x": {Type: "smoke"}}},
		"send.targets.x.path":    {Targets: map[string]TargetConfig{"x": {Type: "file"}}},
		"send.targets.x.url":     {Targets: map[string]TargetConfig{"x": {Type: "webhook", URL: "ftp://x"}}},
		"send.targets.x.body":    {Targets: map[string]TargetConfig{"x": {Type: "webhook", URL: "http://x", Body: "xml"}}},
		"send.targets.x.command": {Targets: map[string]TargetConfig{"x": {Type: "command"}}},
		"send.routes":            {Routes: map[string]string{"user": "nowhere"}},
	} {
		_, err := NewSender(o, nil)
		if got := configKey(err); got != key {
			t.Errorf("%s: error %v at key %q", key, err, got)
		}
	}
}

// configKey is the [exec] key a *ConfigError names, or "".
func configKey(err error) string {
	var ce *ConfigError
	if errors.As(err, &ce) {
		return ce.Key
	}
	return ""
}
