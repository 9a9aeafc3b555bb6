package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pattern-dialect/dialect/internal/mcp/mcptest"
)

// TestMain lets the test binary act as the dialect command when
// DIALECT_BE_CLI is set, so that tests can run real processes of it.
// It can also be an MCP server (mcptest) for the tests of [mcp] servers.
func TestMain(m *testing.M) {
	mcptest.Main()
	if os.Getenv("DIALECT_BE_CLI") == "1" {
		os.Exit(runMain(context.Background(), &stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}, os.Args[1:]))
	}
	code := m.Run()
	removeNPM()
	os.Exit(code)
}

// runEnv isolates a test: its own database, no configuration file but
// the one given.
type runEnv struct {
	t      *testing.T
	db     string
	config string
}

func newRunEnv(t *testing.T, toml string) *runEnv {
	t.Helper()
	dir := t.TempDir()
	e := &runEnv{t: t, db: filepath.Join(dir, "d.db"), config: filepath.Join(dir, "dialect.toml")}
	if err := os.WriteFile(e.config, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

// cli runs dialect in-process with the env's database and config.
func (e *runEnv) cli(stdin string, args ...string) (int, string, string) {
	e.t.Helper()
	full := append([]string{args[0], "--config", e.config, "--db", e.db}, args[1:]...)
	return runCLI(e.t, stdin, full...)
}

// results decodes `dialect run --json` output.
func results(t *testing.T, out string) []map[string]any {
	t.Helper()
	var rs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("bad JSON line %q: %v", l, err)
		}
		for _, k := range []string{"verb", "intent", "status", "output"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("result lacks %q: %s", k, l)
			}
		}
		rs = append(rs, m)
	}
	return rs
}

func TestRunCmdNeverExecutes(t *testing.T) {
	e := newRunEnv(t, "")
	for _, msg := range []string{
		"I could /recall + \"x\" but let's think first...",
		"Let me check that.\n/recall + \"x\"\nActually wait, you just told me.",
		"/do /recall + \"x\"\nHmm, scratch that, wrong label.",
		"```\n/recall + \"x\"\n```\n",
		"Use `/recall + \"x\"` to save.",
		"Paths: /usr/bin/env and /etc/hosts:3 and a/b and 1/2.\n",
		"https://x.y/recall + \"x\"\n",
		"\\/recall + \"x\"\n",
		"Saving.\n/recall + \"x\"\n/cancel\n",
		"Approving.\n/aprove 1\n",
		"Stop.\n/halt \"now\" !\n",
	} {
		code, out, errs := e.cli(msg, "run", "--json")
		if want := map[bool]int{true: 1, false: 0}[strings.Contains(msg, "/aprove")]; code != want {
			t.Fatalf("%q: exit %d, want %d: %s", msg, code, want, errs)
		}
		for _, r := range results(t, out) {
			if r["status"] == "ok" && r["verb"] != "cancel" {
				t.Errorf("%q executed: %v", msg, r)
			}
		}
	}
	code, out, _ := e.cli("Look.\n/recall x\n", "run", "--json")
	if rs := results(t, out); code != 0 || len(rs) != 1 || !strings.Contains(rs[0]["output"].(string), "0 found") {
		t.Errorf("memory is not empty after the never-execute cases: %s", out)
	}
}

func TestRunCmdApproval(t *testing.T) {
	e := newRunEnv(t, "")
	code, out, _ := e.cli("Posting this.\n/recall pledge + \"we ship friday\" !\n", "run", "--json")
	rs := results(t, out)
	if code != 0 || len(rs) != 1 || rs[0]["status"] != "pending" {
		t.Fatalf("! did not queue: %s", out)
	}
	id := fmt.Sprint(rs[0]["pending"])

	code, out, _ = e.cli("", "pending")
	if code != 0 || !strings.Contains(out, "#"+id) || !strings.Contains(out, "we ship friday") {
		t.Fatalf("pending does not show #%s:\n%s", id, out)
	}
	_, out, _ = e.cli("Look.\n/recall pledge\n", "run", "--json")
	if strings.Contains(out, "we ship friday") {
		t.Fatal("the queued action ran before approval")
	}
	code, out, errs := e.cli("", "approve", id)
	if code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("approve: exit %d\n%s\n%s", code, out, errs)
	}
	_, out, _ = e.cli("Look.\n/recall pledge\n", "run", "--json")
	if !strings.Contains(out, "we ship friday") {
		t.Errorf("the approved action did not run: %s", out)
	}
	if code, _, _ := e.cli("", "approve", id); code == 0 {
		t.Error("approving twice succeeded")
	}

	_, out, _ = e.cli("Also.\n/recall other + \"secret\" ?ask\n", "run", "--json")
	id2 := fmt.Sprint(results(t, out)[0]["pending"])
	if code, out, errs := e.cli("", "deny", id2, "not", "now"); code != 0 {
		t.Fatalf("deny: %d %s %s", code, out, errs)
	}
	if code, _, _ := e.cli("", "approve", id2); code == 0 {
		t.Error("a denied action was approved")
	}
	_, out, _ = e.cli("Look.\n/recall other\n", "run", "--json")
	if strings.Contains(out, "secret") {
		t.Errorf("the denied action ran: %s", out)
	}
	_, out, _ = e.cli("", "pending")
	if !strings.Contains(out, "no actions are waiting") {
		t.Errorf("queue not empty:\n%s", out)
	}
}

func TestRunCmdFetchLoopbackRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><body><main><h1>Secret admin page</h1></main></body></html>")
	}))
	defer srv.Close()
	msg := "Let me read it.\n/fetch " + srv.URL + "\n"
	code, out, _ := newRunEnv(t, "").cli(msg, "run", "--json")
	rs := results(t, out)
	if code != 1 || len(rs) != 1 || rs[0]["status"] != "error" || rs[0]["code"] != "BLOCKED_ADDRESS" || strings.Contains(out, "Secret admin") {
		t.Errorf("fetch to 127.0.0.1 was not refused: %s", out)
	}
	_, out, _ = newRunEnv(t, "[exec.fetch]\nallow_private = true\n").cli(msg, "run", "--json")
	if rs := results(t, out); rs[0]["status"] != "ok" || !strings.Contains(out, "Secret admin") {
		t.Errorf("allow_private did not allow it: %s", out)
	}
}

func TestRunCmdCommandTargetExactJSON(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "got.json")
	pwned := filepath.Join(dir, "pwned")
	// The target command copies its stdin to a file; its argv carries the
	// hostile content as one argument, which it writes next to it.
	script := filepath.Join(dir, "sink.sh")
	os.WriteFile(script, []byte("#!/bin/sh\ncat > \""+got+"\"\nprintf '%s' \"$1\" > \""+got+".arg\"\necho delivered\n"), 0o755)
	toml := fmt.Sprintf("[exec.send.targets.sink]\ntype = \"command\"\ncommand = [%q, \"{content}\"]\n\n[exec.send.routes]\n\"agent\" = \"sink\"\n", script)
	hostile := "$(touch " + pwned + "); `touch " + pwned + "` ; rm -rf / | \"quoted\" 'single'"
	msg := "Telling anchor.\n/send @agent @anchor \"" + strings.ReplaceAll(hostile, `"`, `\"`) + "\"\n"
	code, out, errs := newRunEnv(t, toml).cli(msg, "run", "--json")
	rs := results(t, out)
	if code != 0 || len(rs) != 1 || rs[0]["status"] != "ok" {
		t.Fatalf("send: exit %d %s %s", code, out, errs)
	}
	data, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(rs[0]["intent"])
	var a, b any
	json.Unmarshal(data, &a)
	json.Unmarshal(want, &b)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("target got\n%s\nwant the intent\n%s", data, want)
	}
	if !bytes.Contains(data, []byte(`rm -rf /`)) {
		t.Errorf("content not delivered verbatim: %s", data)
	}
	arg, _ := os.ReadFile(got + ".arg")
	if string(arg) != hostile {
		t.Errorf("argv element = %q, want the content verbatim %q", arg, hostile)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("a shell command was injected")
	}
}

func TestRunCmdConcurrentProcesses(t *testing.T) {
	e := newRunEnv(t, "")
	const procs, each = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var in strings.Builder
			for i := range each {
				fmt.Fprintf(&in, `{"id":%d,"text":"Saving.\n/recall shared + \"p%d-%d\"\n","agent":"a%d"}`+"\n", i, p, i, p)
			}
			cmd := exec.Command(os.Args[0], "run", "--jsonl", "--config", e.config, "--db", e.db)
			cmd.Env = append(os.Environ(), "DIALECT_BE_CLI=1")
			cmd.Stdin = strings.NewReader(in.String())
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("process %d: %v\n%s", p, err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	_, out, _ := e.cli("Read.\n/recall shared\n", "run", "--json")
	rs := results(t, out)
	text := rs[0]["output"].(string)
	for p := range procs {
		for i := range each {
			if !strings.Contains(text, fmt.Sprintf("p%d-%d\n", p, i)) && !strings.HasSuffix(text, fmt.Sprintf("p%d-%d", p, i)) {
				t.Errorf("lost p%d-%d", p, i)
			}
		}
	}
	if !strings.Contains(text, fmt.Sprintf("(v%d)", procs*each)) {
		t.Errorf("block is not at version %d: %.80s", procs*each, text)
	}
}

func TestRunCmdWebhookAndWebProvider(t *testing.T) {
	var mu sync.Mutex
	var hooked []byte
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		hooked = b
		mu.Unlock()
		fmt.Fprint(w, "ok")
	}))
	defer hook.Close()
	search := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("q") != "go 1.26 release" {
			http.Error(w, "bad query "+r.URL.RawQuery, 400)
			return
		}
		fmt.Fprint(w, `{"results":[{"title":"Go 1.26 is released","url":"https://go.dev/blog/go1.26","snippet":"The Go team..."}]}`)
	}))
	defer search.Close()
	toml := fmt.Sprintf(`
[exec.send.targets.anchor]
type = "webhook"
url = %q

[exec.send.routes]
"agent:anchor" = "anchor"

[exec.web]
url = "%s/search?q={query}"
`, hook.URL, search.URL)
	e := newRunEnv(t, toml)
	code, out, errs := e.cli("Telling anchor and looking it up.\n/send @agent @anchor \"build is green\"\n/web go 1.26 release\n", "run", "--json")
	rs := results(t, out)
	if code != 0 || len(rs) != 2 {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	if rs[0]["status"] != "ok" {
		t.Errorf("webhook send: %v", rs[0])
	}
	mu.Lock()
	got := hooked
	mu.Unlock()
	want, _ := json.Marshal(rs[0]["intent"])
	var a, b any
	json.Unmarshal(got, &a)
	json.Unmarshal(want, &b)
	if fmt.Sprint(a) != fmt.Sprint(b) || !bytes.Contains(got, []byte("build is green")) {
		t.Errorf("webhook got %s, want the intent %s", got, want)
	}
	if rs[1]["status"] != "ok" || !strings.Contains(rs[1]["output"].(string), "Go 1.26 is released") {
		t.Errorf("web provider: %v", rs[1])
	}
}

// TestPeopleSeeNoBidiControls: what a person reads — results, the
// approval queue, memory read back — shows bidirectional controls and
// other invisible format characters escaped, as ESC and CR are: the
// person approving "pay ‮0001$ ot bob‬" sees the override, not its effect.
func TestPeopleSeeNoBidiControls(t *testing.T) {
	e := newRunEnv(t, "")
	evil := "pay \u202e0001$ ot bob\u202c \u2066x\u2069 \u200b \x1b[31m"
	if code, _, errs := e.cli("Saving.\n/recall note + \""+evil+"\"\n", "run"); code != 0 {
		t.Fatalf("store: %d %s", code, errs)
	}
	_, out, _ := e.cli("Reading.\n/recall read note\n", "run")
	_, _, _ = e.cli("Asking.\n/recall note2 + \""+evil+"\" !\n", "run")
	_, pend, _ := e.cli("", "pending")
	_, found, _ := e.cli("Looking.\n/search pay\n", "run")
	for name, text := range map[string]string{"run": out, "pending": pend, "search": found} {
		for _, r := range []rune{0x202e, 0x202c, 0x2066, 0x2069, 0x200b, 0x1b} {
			if strings.ContainsRune(text, r) {
				t.Errorf("%s shows U+%04X raw:\n%q", name, r, text)
			}
		}
		if !strings.Contains(text, `\u202e`) {
			t.Errorf("%s does not show the override escaped:\n%s", name, text)
		}
	}
}
