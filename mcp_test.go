package dialect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/internal/mcp/mcptest"
	"github.com/pattern-dialect/dialect/store"
)

// notesTOML configures the test MCP server as /notes, with more TOML
// after its table.
func notesTOML(mode, dir, more string) string {
	var argv []string
	for _, a := range mcptest.Command(mode, dir) {
		argv = append(argv, fmt.Sprintf("%q", a))
	}
	return "[mcp.notes]\ncommand = [" + strings.Join(argv, ", ") + "]\n" + more
}

func TestMCPConfigErrors(t *testing.T) {
	cases := []struct {
		name, toml string
		line, col  int
		key, says  string
	}{
		{"bad approve", "[mcp.fs]\ncommand = [\"x\"]\n  approve = \"some\"\n", 3, 3, "mcp.fs.approve", "not destructive, writes, all or none"},
		{"bad tool approve", "[mcp.fs]\ncommand = [\"x\"]\n[mcp.fs.tools.write_file]\napprove = \"never\"\n", 4, 1, "mcp.fs.tools.write_file.approve", "never"},
		{"both", "[mcp.fs]\ncommand = [\"x\"]\nurl = \"https://x\"\n", 1, 1, "mcp.fs", "exactly one of command"},
		{"neither", "\n[mcp.fs]\napprove = \"all\"\n", 2, 1, "mcp.fs", "exactly one of command"},
		{"bad url", "[mcp.fs]\nurl = \"ftp://x\"\n", 2, 1, "mcp.fs.url", "http"},
		{"bad name", "[mcp.Fs]\ncommand = [\"x\"]\n", 1, 1, "mcp.Fs", "name is its verb"},
		{"unknown key", "[mcp.fs]\ncommand = [\"x\"]\nenvs = [\"A\"]\n", 3, 1, "mcp.fs.envs", "unknown key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig("d.toml", []byte(c.toml))
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v", err)
			}
			if ce.Line != c.line || ce.Column != c.col || ce.Key != c.key || !strings.Contains(ce.Msg, c.says) {
				t.Errorf("got %s (line %d col %d key %s), want %d:%d %s %q", ce, ce.Line, ce.Column, ce.Key, c.line, c.col, c.key, c.says)
			}
		})
	}
	// Names taken by a built-in verb or a tool are found by Open.
	for _, c := range []struct{ toml, says string }{
		{"[mcp.search]\ncommand = [\"x\"]\n", "/search is a built-in verb"},
		{"[exec.tools.fs]\ncommand = [\"x\"]\n\n[mcp.fs]\ncommand = [\"y\"]\n", "also a tool"},
	} {
		cfg, err := ParseConfig("d.toml", []byte(c.toml))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Open(context.Background(), cfg)
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(ce.Msg, c.says) || ce.Line == 0 {
			t.Errorf("%q: got %v", c.toml, err)
		}
	}
}

func TestMCPRun(t *testing.T) {
	dir := t.TempDir()
	rt := openRuntime(t, notesTOML("notes", dir, ""))
	if len(mcptest.Starts(dir)) != 0 {
		t.Fatal("Open started the server")
	}
	os.WriteFile(filepath.Join(dir, "plan.txt"), []byte("ship friday"), 0o644)

	res := run(t, rt, "Checking.\n/notes raed_note plan\n")
	if res[0].Status != StatusOK || res[0].Output != "ship friday" || res[0].Verb != "notes" {
		t.Fatalf("read: %+v", res[0])
	}
	if cu, ok := res[0].Intent.(intent.Custom); !ok || cu.Tool != "read_note" || !cu.ReadOnlyHint {
		t.Errorf("intent %#v", res[0].Intent)
	}

	// A destructive tool (no annotations: MCP's default) is queued, and
	// approving it runs exactly the call queued.
	res = run(t, rt, "Saving.\n/notes write_note name=plan\n```\nship monday\n```\n")
	if res[0].Status != StatusPending || res[0].Code != codes.PendingApproval || !strings.Contains(res[0].Output, "notes write_note may destroy or overwrite") {
		t.Fatalf("write: %+v", res[0])
	}
	if slices.Contains(mcptest.Calls(dir), "write_note") {
		t.Fatal("the queued call ran")
	}
	list, err := rt.PendingActions(context.Background(), false)
	if err != nil || len(list) != 1 || list[0].Verb != "notes" || list[0].Target != "mcp:notes/write_note" {
		t.Fatalf("queue: %+v %v", list, err)
	}
	got, err := rt.Approve(context.Background(), res[0].Pending, "owner", nil)
	if err != nil || got.Status != StatusOK || got.Output != "wrote plan (12 bytes)" {
		t.Fatalf("approve: %+v %v", got, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "plan.txt")); string(b) != "ship monday\n" {
		t.Errorf("the note holds %q", b)
	}

	// An additive tool runs; so does a failing read-only one, as a failure.
	res = run(t, rt, "/notes append_note name=plan content=\"and test\"\n/notes fail\n/notes frobnicate\n")
	if res[0].Status != StatusOK {
		t.Errorf("append: %+v", res[0])
	}
	if res[1].Status != StatusError || res[1].Code != codes.ToolFailed || !strings.Contains(res[1].Output, "the disk is on fire") {
		t.Errorf("fail: %+v", res[1])
	}
	if res[2].Code != codes.UnknownVerb || !strings.Contains(res[2].Output, `no tool "frobnicate"`) {
		t.Errorf("unknown tool: %+v", res[2])
	}
	if n := len(mcptest.Starts(dir)); n != 1 {
		t.Errorf("%d starts", n)
	}
}

func TestMCPGate(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, more, marker, action string
		want                       Status
	}{
		{"read-only runs", "", "", "read_note plan", StatusOK},
		{"additive runs", "", "", "append_note name=plan content=x", StatusOK},
		{"destructive asks", "", "", "write_note name=plan content=x", StatusPending},
		{"writes asks additive", "approve = \"writes\"\n", "", "append_note name=plan content=x", StatusPending},
		{"all asks read-only", "approve = \"all\"\n", "", "read_note plan", StatusPending},
		{"none runs destructive", "approve = \"none\"\n", "", "write_note name=plan content=x", StatusOK},
		{"tool override", "[mcp.notes.tools.read_note]\napprove = \"all\"\n", "", "read_note plan", StatusPending},
		{"tool override off", "[mcp.notes.tools.write_note]\napprove = \"none\"\n", "", "write_note name=plan content=x", StatusOK},
		{"marker ? reads", "", "?", "read_note plan", StatusOK},
		{"marker ? additive", "", "?", "append_note name=plan content=x", StatusPending},
		{"marker !", "", "!", "read_note plan", StatusPending},
		{"target server", "\n[permission]\ntargets = [\"mcp:notes\"]\n", "", "read_note plan", StatusPending},
		{"target tool", "\n[permission]\ntargets = [\"mcp:notes/read_note\"]\n", "", "read_note plan", StatusPending},
		{"target other tool", "\n[permission]\ntargets = [\"mcp:notes/read\"]\n", "", "read_note plan", StatusOK},
		{"target all mcp", "\n[permission]\ntargets = [\"mcp\"]\n", "", "read_note plan", StatusPending},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "plan.txt"), []byte("x"), 0o644)
			rt := openRuntime(t, notesTOML("notes", dir, c.more))
			action := "/notes " + c.action
			if c.marker != "" {
				action += " " + c.marker
			}
			res := run(t, rt, action+"\n")
			if res[0].Status != c.want {
				t.Errorf("%s: %s %s %s", action, res[0].Status, res[0].Code, res[0].Output)
			}
		})
	}
	t.Run("standing rules", func(t *testing.T) {
		dir := t.TempDir()
		rt := openRuntime(t, notesTOML("notes", dir, ""))
		st, _ := rt.Store(ctx)
		res := run(t, rt, "/notes write_note name=a content=1\n")
		rule, err := rt.RuleFor(ctx, res[0].Pending, store.Allow)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rt.Approve(ctx, res[0].Pending, "owner", &rule); err != nil {
			t.Fatal(err)
		}
		if res = run(t, rt, "/notes write_note name=b content=2\n"); res[0].Status != StatusOK {
			t.Errorf("after approve --always: %+v", res[0])
		}
		if _, err := st.SaveRule(ctx, store.Rule{Agent: "scout", Verb: "notes", Op: "*", Target: "*", Args: "*", Decision: store.Deny, By: "owner"}); err != nil {
			t.Fatal(err)
		}
		if res = run(t, rt, "/notes read_note a\n"); res[0].Status != StatusDenied {
			t.Errorf("a deny rule for the server: %+v", res[0])
		}
	})
}

// TestMCPEarly: a read-only tool is eligible for streaming early
// execution; a destructive one waits for the end of the message.
func TestMCPEarly(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "plan.txt"), []byte("x"), 0o644)
	rt := openRuntime(t, notesTOML("notes", dir, "[detect]\nearly_execution = true\nconfirm_tokens = 5\n"))
	for _, c := range []struct {
		action string
		early  bool
	}{{"/do /notes read_note plan", true}, {"/do /notes append_note name=plan content=y", false}} {
		before := len(mcptest.Calls(dir))
		s := rt.NewStream(context.Background(), Message{Agent: "scout"}, nil)
		s.WriteString(c.action + "\nand then some more words to pass the window of confirmation tokens here\n")
		ran := false
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if ran = len(mcptest.Calls(dir)) > before; ran || !c.early {
				break
			}
		}
		if !c.early {
			time.Sleep(300 * time.Millisecond)
			ran = len(mcptest.Calls(dir)) > before
		}
		res, err := s.Close()
		if err != nil || res[0].Status != StatusOK {
			t.Fatalf("%s: %+v %v", c.action, res, err)
		}
		if ran != c.early {
			t.Errorf("%s: ran before the message ended = %v", c.action, ran)
		}
	}
}

func TestMCPCloseStopsServers(t *testing.T) {
	dir := t.TempDir()
	cfg, err := ParseConfig("t.toml", []byte(notesTOML("spawn", dir, "")))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store.Path = filepath.Join(t.TempDir(), "d.db")
	rt, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := rt.Run(context.Background(), Message{Text: "/notes pid\n"})
	if err != nil || res[0].Status != StatusOK {
		t.Fatalf("%+v %v", res, err)
	}
	var pid int
	fmt.Sscan(res[0].Output, &pid)
	child := mcptest.Child(dir)
	rt.Close()
	for _, p := range []int{pid, child} {
		gone := false
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && !gone; time.Sleep(20 * time.Millisecond) {
			gone = syscall.Kill(p, 0) != nil || isZombie(p)
		}
		if !gone {
			t.Errorf("process %d outlived the runtime", p)
		}
	}
}

func isZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && strings.Contains(string(b), ") Z ")
}

func TestMCPInstructions(t *testing.T) {
	dir := t.TempDir()
	rt := openRuntime(t, notesTOML("notes", dir, ""))
	var b bytes.Buffer
	if err := rt.Instructions(context.Background(), &b, ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"/notes — the tools of the MCP server notes\n  forms: /notes TOOL ARGUMENTS\n",
		"    read_note name=TEXT — Read a note by its name. (read-only)\n",
		"    write_note name=TEXT content=TEXT — Create or overwrite a note. (asks approval)\n",
		"    append_note name=TEXT content=TEXT — Add a line to a note.\n",
		"    tag name=TEXT tags=A,B [color=TEXT] [pin=true|false] — Tag a note. (asks approval)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("instructions lack %q:\n%s", want, b.String())
		}
	}
	// A server that cannot start is named in the text and the error.
	rt = openRuntime(t, notesTOML("crash", t.TempDir(), ""))
	b.Reset()
	err := rt.Instructions(context.Background(), &b, "")
	if err == nil || !strings.Contains(err.Error(), "notes could not start") || !strings.Contains(b.String(), "tools: unavailable (the MCP server notes could not start") {
		t.Errorf("got %v:\n%s", err, b.String())
	}
}
