package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pattern-dialect/dialect/internal/mcp/mcptest"
)

// notesServer is the [mcp.notes] table of the test MCP server.
func notesServer(mode, dir string) string {
	var argv []string
	for _, a := range mcptest.Command(mode, dir) {
		argv = append(argv, fmt.Sprintf("%q", a))
	}
	return "[mcp.notes]\ncommand = [" + strings.Join(argv, ", ") + "]\n"
}

// serveStdio runs `dialect mcp serve` in-process and connects the Go
// SDK's client to it.
func serveStdio(t *testing.T, e *runEnv, extra ...string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		args := append([]string{"mcp", "serve", "--config", e.config, "--db", e.db}, extra...)
		done <- runMain(ctx, &stdio{in: inR, out: outW, err: io.Discard}, args)
		outW.Close()
	}()
	client := sdk.NewClient(&sdk.Implementation{Name: "go-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		inW.Close()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("dialect mcp serve exited %d", code)
			}
		case <-time.After(10 * time.Second):
			t.Error("dialect mcp serve did not stop at the end of its input")
		}
		cancel()
	})
	return cs
}

func callText(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func TestMCPServe(t *testing.T) {
	dir := t.TempDir()
	e := newRunEnv(t, notesServer("notes", dir))
	cs := serveStdio(t, e, "--agent", "host")
	ctx := context.Background()
	byName := map[string]*sdk.Tool{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		byName[tool.Name] = tool
	}
	for _, want := range []string{"run", "recall", "search", "calc", "send", "escalate", "cancel", "notes"} {
		if byName[want] == nil {
			t.Errorf("tool %s is not listed", want)
		}
	}
	for _, never := range []string{"approve", "deny", "halt"} {
		if byName[never] != nil {
			t.Errorf("the strict authority verb %s is a tool", never)
		}
	}
	if a := byName["search"].Annotations; a == nil || !a.ReadOnlyHint {
		t.Errorf("search annotations %+v", a)
	}
	if a := byName["recall"].Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
		t.Errorf("recall annotations %+v", a)
	}
	if a := byName["send"].Annotations; a == nil || a.DestructiveHint == nil || *a.DestructiveHint {
		t.Errorf("send annotations %+v", a)
	}

	if text, isErr := callText(t, cs, "calc", map[string]any{"args": "2 + 3 * 4"}); isErr || !strings.Contains(text, "14") {
		t.Errorf("calc: %q", text)
	}
	text, isErr := callText(t, cs, "run", map[string]any{"text": "Saving.\n/recall + \"the deadline is friday\"\n", "session": "s1"})
	if isErr || !strings.Contains(text, "/recall: ok") {
		t.Errorf("run: %q", text)
	}
	if text, _ := callText(t, cs, "search", map[string]any{"args": "deadline"}); !strings.Contains(text, "friday") {
		t.Errorf("search after run: %q", text)
	}
	// The gate applies: ! queues, and an MCP tool's annotations too.
	if text, isErr := callText(t, cs, "recall", map[string]any{"args": `+ "serious" !`}); isErr || !strings.Contains(text, "pending PENDING_APPROVAL") {
		t.Errorf("recall !: %q", text)
	}
	if text, _ := callText(t, cs, "notes", map[string]any{"args": "write_note name=a content=b"}); !strings.Contains(text, "needs approval (notes write_note may destroy or overwrite)") {
		t.Errorf("notes write_note: %q", text)
	}
	if text, isErr := callText(t, cs, "notes", map[string]any{"args": "add a=1 b=2"}); isErr || !strings.Contains(text, `{"sum":3}`) {
		t.Errorf("notes add: %q", text)
	}
	// A verb's args cannot carry another action; run cannot approve for an
	// agent without the role.
	if text, isErr := callText(t, cs, "calc", map[string]any{"args": "1+1\n/approve 1"}); !isErr || !strings.Contains(text, "one /calc action") {
		t.Errorf("smuggled approve: %v %q", isErr, text)
	}
	if text, isErr := callText(t, cs, "run", map[string]any{"text": "/approve 1\n"}); !isErr || !strings.Contains(text, "denied") {
		t.Errorf("run /approve: %v %q", isErr, text)
	}
	if text, isErr := callText(t, cs, "calc", map[string]any{"args": "1 +"}); !isErr || !strings.Contains(text, "error") {
		t.Errorf("bad calc: %v %q", isErr, text)
	}
}

func TestMCPServeHTTP(t *testing.T) {
	e := newRunEnv(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	errR, errW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- runMain(ctx, &stdio{in: strings.NewReader(""), out: io.Discard, err: errW},
			[]string{"mcp", "serve", "--listen", "127.0.0.1:0", "--config", e.config, "--db", e.db})
		errW.Close()
	}()
	line, err := bufio.NewReader(errR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, errR)
	url := regexp.MustCompile(`http://\S+`).FindString(line)
	client := sdk.NewClient(&sdk.Implementation{Name: "go-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	if text, isErr := callText(t, cs, "calc", map[string]any{"args": "6 * 7"}); isErr || !strings.Contains(text, "42") {
		t.Errorf("calc over HTTP: %q", text)
	}
	cs.Close()
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d", code)
	}
}

func TestMCPVerbsCmd(t *testing.T) {
	dir := t.TempDir()
	e := newRunEnv(t, notesServer("notes", dir))
	code, out, errs := e.cli("", "verbs", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var notes verbOutput
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var v verbOutput
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatal(err)
		}
		if v.Name == "notes" {
			notes = v
		}
	}
	i := slices.IndexFunc(notes.Tools, func(t toolOutput) bool { return t.Name == "write_note" })
	if i < 0 || notes.Tools[i].ReadOnly || !notes.Tools[i].Destructive || len(notes.Tools[i].Params) != 2 || !notes.Tools[i].Params[0].Required {
		t.Errorf("notes tools: %+v", notes.Tools)
	}
	code, out, _ = e.cli("", "verbs", "--instructions")
	if code != 0 || !strings.Contains(out, "    read_note name=TEXT — Read a note by its name. (read-only)\n") {
		t.Errorf("instructions (exit %d):\n%s", code, out)
	}
	// A server that cannot start: named, exit 1, the rest still printed.
	e = newRunEnv(t, notesServer("crash", t.TempDir()))
	code, out, errs = e.cli("", "verbs", "--instructions")
	if code != 1 || !strings.Contains(errs, "notes could not start") || !strings.Contains(out, "/search") {
		t.Errorf("crashing server: exit %d, stderr %q", code, errs)
	}
}

// TestMCPRunOneShot: `dialect run` starts the server for the action and
// leaves nothing running when it exits.
func TestMCPRunOneShot(t *testing.T) {
	dir := t.TempDir()
	e := newRunEnv(t, notesServer("spawn", dir))
	code, out, errs := e.cli("Checking.\n/notes pid\n", "run")
	if code != 0 || !strings.Contains(out, "/notes: ok") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	for _, pid := range append(mcptest.Starts(dir), mcptest.Child(dir)) {
		gone := false
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && !gone; time.Sleep(20 * time.Millisecond) {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			gone = syscall.Kill(pid, 0) != nil || err == nil && strings.Contains(string(b), ") Z ")
		}
		if !gone {
			t.Errorf("process %d outlived dialect run", pid)
		}
	}
}

// fsConfig is dialect.toml with the official filesystem server on root
// and the memory server keeping its graph in memFile.
func fsConfig(npmDir, root, memFile string) string {
	return fmt.Sprintf(`[mcp.fs]
command = ["node", %q, %q]

[mcp.memory]
command = ["node", %q]
env = ["MEMORY_FILE_PATH"]
`, filepath.Join(npmDir, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), root,
		filepath.Join(npmDir, "node_modules/@modelcontextprotocol/server-memory/dist/index.js"))
}

// TestMCPFilesystem drives the official filesystem and memory servers
// from model messages: a read, a misspelled tool forgiven, a write queued
// and then approved.
func TestMCPFilesystem(t *testing.T) {
	npmDir := npmPackages(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "todo.txt"), []byte("ship the MCP support\n"), 0o644)
	t.Setenv("MEMORY_FILE_PATH", filepath.Join(t.TempDir(), "memory.jsonl"))
	e := newRunEnv(t, fsConfig(npmDir, root, ""))

	code, out, errs := e.cli("Let me look.\n/fs read_text_file "+root+"/todo.txt\n", "run")
	if code != 0 || !strings.Contains(out, "/fs: ok") || !strings.Contains(out, "ship the MCP support") {
		t.Fatalf("read: exit %d\n%s%s", code, out, errs)
	}
	_, out, _ = e.cli("Listing.\n/fs list_directry path="+root+"\n", "run")
	if !strings.Contains(out, "/fs: ok") || !strings.Contains(out, "[FILE] todo.txt") {
		t.Errorf("misspelled tool:\n%s", out)
	}
	_, out, _ = e.cli("Writing it down.\n/fs write_file path="+root+"/done.txt\n```\nMCP works\n```\n", "run", "--json")
	rs := results(t, out)
	if len(rs) != 1 || rs[0]["status"] != "pending" {
		t.Fatalf("write was not queued: %s", out)
	}
	if _, err := os.Stat(filepath.Join(root, "done.txt")); err == nil {
		t.Fatal("the queued write ran")
	}
	code, out, _ = e.cli("", "approve", fmt.Sprint(rs[0]["pending"]))
	if b, _ := os.ReadFile(filepath.Join(root, "done.txt")); code != 0 || string(b) != "MCP works\n" {
		t.Errorf("approve: exit %d %s; the file holds %q", code, out, b)
	}
	_, out, _ = e.cli("/fs read_text_file path="+root+"/todo.txt lines=3\n", "run")
	if !strings.Contains(out, "UNKNOWN_MODIFIER") || !strings.Contains(out, "did you mean") {
		t.Errorf("unknown key:\n%s", out)
	}

	// The memory server: an additive tool runs, a misspelled read is
	// forgiven, a destructive one waits for approval.
	_, out, _ = e.cli("Remembering.\n/memory create_entities\n```json\n{\"entities\": [{\"name\": \"Ana\", \"entityType\": \"person\", \"observations\": [\"prefers mornings\"]}]}\n```\n", "run")
	if !strings.Contains(out, "/memory: ok") {
		t.Fatalf("create_entities:\n%s", out)
	}
	_, out, _ = e.cli("/memory serch_nodes Ana\n", "run")
	if !strings.Contains(out, "/memory: ok") || !strings.Contains(out, "prefers mornings") {
		t.Errorf("search_nodes:\n%s", out)
	}
	_, out, _ = e.cli("/memory delete_entities entityNames=Ana\n", "run")
	if !strings.Contains(out, "pending PENDING_APPROVAL") || !strings.Contains(out, "memory delete_entities may destroy or overwrite") {
		t.Errorf("delete_entities:\n%s", out)
	}
}

// TestMCPServeTypeScript lists and calls `dialect mcp serve` from the
// official TypeScript SDK's client.
func TestMCPServeTypeScript(t *testing.T) {
	npmDir := npmPackages(t)
	e := newRunEnv(t, "")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argv, _ := json.Marshal([]string{exe, "mcp", "serve", "--config", e.config, "--db", e.db})
	calls, _ := json.Marshal([][]any{
		{"calc", map[string]any{"args": "20% of 350"}},
		{"run", map[string]any{"text": "Noting.\n/recall + \"typescript was here\"\n"}},
		{"search", map[string]any{"args": "typescript"}},
	})
	cmd := exec.Command("node", filepath.Join(npmDir, "client.mjs"), string(argv), string(calls))
	cmd.Env = append(os.Environ(), "DIALECT_BE_CLI=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, out)
	}
	var got struct {
		Tools []struct {
			Name        string
			Annotations struct{ ReadOnlyHint bool }
		}
		Results []struct {
			Content []struct{ Text string }
			IsError bool
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var names []string
	for _, tl := range got.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "run") || !slices.Contains(names, "calc") || slices.Contains(names, "approve") {
		t.Errorf("tools: %v", names)
	}
	want := []string{"70", "/recall: ok", "was here"}
	if len(got.Results) != len(want) {
		t.Fatalf("results: %s", out)
	}
	for i, w := range want {
		if r := got.Results[i]; r.IsError || len(r.Content) == 0 || !strings.Contains(r.Content[0].Text, w) {
			t.Errorf("call %d: %+v, want %q", i, r, w)
		}
	}
}
