package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/internal/mcp/mcptest"
	"github.com/pattern-dialect/dialect/verbs"
)

func TestMain(m *testing.M) {
	mcptest.Main()
	os.Exit(m.Run())
}

// notes returns a manager with the test server as /notes, its registry
// and the server's directory.
func notes(t *testing.T, mode string, edit func(*Server)) (*Manager, *verbs.Registry, string) {
	t.Helper()
	dir := t.TempDir()
	s := Server{Name: "notes", Command: mcptest.Command(mode, dir)}
	if edit != nil {
		edit(&s)
	}
	m, err := New([]Server{s}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	r, err := verbs.NewRegistryWith(nil, verbs.Options{Verbs: m.Definitions()})
	if err != nil {
		t.Fatal(err)
	}
	return m, r, dir
}

// run parses and executes one action of /notes, as the pipeline does
// without the gate.
func run(ctx context.Context, r *verbs.Registry, args, block string) (intent.Custom, verbs.Output, error) {
	in := verbs.Input{Args: args}
	if block != "" {
		in.Content, in.Kind = block, verbs.Fenced
	}
	it, err := r.Parse(ctx, "notes", in)
	if err != nil {
		return intent.Custom{}, verbs.Output{}, err
	}
	cu := it.(intent.Custom)
	out, err := r.Execute(ctx, verbs.Call{Verb: "notes", Runs: r.Runs("notes", it), Intent: it})
	return cu, out, err
}

func TestCallTools(t *testing.T) {
	_, r, dir := notes(t, "notes", nil)
	ctx := context.Background()
	if len(mcptest.Starts(dir)) != 0 {
		t.Fatal("the server started before any action needed it")
	}
	it, out, err := run(ctx, r, "write_note name=plan", "ship on friday")
	if err != nil {
		t.Fatal(err)
	}
	if it.Tool != "write_note" || it.ReadOnlyHint || !it.Destructive || out.Text != "wrote plan (14 bytes)" {
		t.Errorf("write_note: %+v %q", it, out.Text)
	}
	it, out, err = run(ctx, r, "raed_note plan", "")
	if err != nil || it.Tool != "read_note" || !it.ReadOnlyHint || out.Text != "ship on friday" {
		t.Errorf("read_note: %+v %q %v", it, out.Text, err)
	}
	it, _, err = run(ctx, r, `append_note {"name": "plan", "content": "and test"}`, "")
	if err != nil || it.ReadOnlyHint || it.Destructive {
		t.Errorf("append_note: %+v %v (destructiveHint false is not destructive)", it, err)
	}
	_, out, err = run(ctx, r, "add a=2 b=3.5", "")
	if err != nil || out.Text != `{"sum":5.5}` {
		t.Errorf("add: %q %v (structured content, compact)", out.Text, err)
	}
	if d, ok := out.Data.(Data); !ok || d.Structured == nil || d.Tool != "add" {
		t.Errorf("add data: %#v", out.Data)
	}
	_, out, err = run(ctx, r, "tag name=plan tags=a,b pin=yes color=RED", "")
	if err != nil || out.Text != "plan: tags=a|b pin=true color=red" {
		t.Errorf("tag: %q %v", out.Text, err)
	}
	_, out, err = run(ctx, r, "picture", "")
	if err != nil || out.Text != "here it is\n[image, image/png, 2.0 KB]" {
		t.Errorf("picture: %q %v", out.Text, err)
	}
	_, _, err = run(ctx, r, "fail", "")
	var ce *codes.Error
	if !errors.As(err, &ce) || ce.Code != codes.ToolFailed || !strings.Contains(ce.Msg, "the disk is on fire") || !strings.Contains(ce.Msg, "notes fail") {
		t.Errorf("fail: %v", err)
	}
	_, _, err = run(ctx, r, "read_note nosuch", "")
	if !errors.As(err, &ce) || ce.Code != codes.ToolFailed || !strings.Contains(ce.Msg, `no note "nosuch"`) {
		t.Errorf("read_note nosuch: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "plan.txt")); string(b) != "ship on fridayand test\n" {
		t.Errorf("the note holds %q", b)
	}
	if n := len(mcptest.Starts(dir)); n != 1 {
		t.Errorf("the server started %d times; it is kept for the manager's life", n)
	}
}

// alive reports whether process pid exists (and is not a zombie of ours).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err != nil || !strings.Contains(string(b), ") Z ")
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !alive(pid) {
			return
		}
	}
	t.Errorf("process %d is still running", pid)
}

func TestCloseStopsServer(t *testing.T) {
	m, r, dir := notes(t, "notes", nil)
	_, out, err := run(context.Background(), r, "pid", "")
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscan(out.Text, &pid)
	if pid == 0 || !alive(pid) {
		t.Fatalf("no live server: %q", out.Text)
	}
	m.Close()
	waitGone(t, pid)
	if _, _, err := run(context.Background(), r, "pid", ""); err == nil {
		t.Error("an action after Close ran")
	}
	if n := len(mcptest.Starts(dir)); n != 1 {
		t.Errorf("%d starts", n)
	}
}

func TestRestartAfterCrash(t *testing.T) {
	_, r, dir := notes(t, "notes", nil)
	ctx := context.Background()
	if _, _, err := run(ctx, r, "pid", ""); err != nil {
		t.Fatal(err)
	}
	first := mcptest.Starts(dir)[0]
	syscall.Kill(first, syscall.SIGKILL)
	waitGone(t, first)
	var err error
	for range 50 { // the session notices the end of its input
		if _, _, err = run(ctx, r, "pid", ""); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	if s := mcptest.Starts(dir); len(s) != 2 {
		t.Errorf("starts %v: a dead server is started again", s)
	}
}

func TestStartFailures(t *testing.T) {
	ctx := context.Background()
	t.Run("crash", func(t *testing.T) {
		_, r, _ := notes(t, "crash", nil)
		_, _, err := run(ctx, r, "pid", "")
		var ce *codes.Error
		if !errors.As(err, &ce) || ce.Code != codes.ServerFailed || !strings.Contains(ce.Msg, "the MCP server notes could not start") ||
			!strings.Contains(ce.Msg, "cannot open the database") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("hang", func(t *testing.T) {
		_, r, dir := notes(t, "hang", func(s *Server) { s.StartTimeout = 300 * time.Millisecond })
		start := time.Now()
		_, _, err := run(ctx, r, "pid", "")
		var ce *codes.Error
		if !errors.As(err, &ce) || ce.Code != codes.Timeout || !strings.Contains(ce.Msg, "the MCP server notes did not start within 300ms") {
			t.Fatalf("got %v", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %s", d)
		}
		pids := mcptest.Starts(dir)
		if len(pids) != 1 {
			t.Fatalf("starts %v", pids)
		}
		waitGone(t, pids[0])
		// Within RetryAfter the failure is answered at once.
		start = time.Now()
		if _, _, err := run(ctx, r, "pid", ""); err == nil || time.Since(start) > 200*time.Millisecond {
			t.Errorf("second try: %v after %s", err, time.Since(start))
		}
	})
	t.Run("action deadline", func(t *testing.T) {
		_, r, _ := notes(t, "hang", nil)
		actx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, _, err := run(actx, r, "pid", "")
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
			t.Errorf("got %v after %s", err, time.Since(start))
		}
	})
	t.Run("missing program", func(t *testing.T) {
		_, r, _ := notes(t, "notes", func(s *Server) { s.Command = []string{"/nonexistent/mcp-server"} })
		_, _, err := run(ctx, r, "pid", "")
		var ce *codes.Error
		if !errors.As(err, &ce) || ce.Code != codes.ServerFailed || !strings.Contains(ce.Error(), "/nonexistent/mcp-server") {
			t.Errorf("got %v", err)
		}
	})
}

// TestConcurrentStart: actions arriving together share one start.
func TestConcurrentStart(t *testing.T) {
	_, r, dir := notes(t, "notes", nil)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			_, _, err := run(context.Background(), r, "add a=1 b=1", "")
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := len(mcptest.Starts(dir)); n != 1 {
		t.Errorf("%d starts for 8 concurrent actions", n)
	}
}

func TestHTTPServer(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	var auth []string
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcptest.Server(dir) }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	t.Setenv("MCPTEST_TOKEN", "s3cret")
	m, err := New([]Server{{Name: "notes", URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer ${MCPTEST_TOKEN}"}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	r, err := verbs.NewRegistryWith(nil, verbs.Options{Verbs: m.Definitions()})
	if err != nil {
		t.Fatal(err)
	}
	if _, out, err := run(context.Background(), r, "write_note name=a content=hello", ""); err != nil || !strings.Contains(out.Text, "wrote a") {
		t.Fatalf("%q %v", out.Text, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) == 0 || auth[0] != "Bearer s3cret" {
		t.Errorf("Authorization headers %q", auth)
	}
}

func TestApprovalPolicy(t *testing.T) {
	s := &server{cfg: Server{Name: "fs", Approve: ApproveDestructive, Tools: map[string]string{"append": ApproveAll, "wipe": ApproveNone}}}
	ro := intent.Custom{Tool: "read", ReadOnlyHint: true}
	add := intent.Custom{Tool: "add"}
	del := intent.Custom{Tool: "del", Destructive: true}
	cases := []struct {
		policy string
		it     intent.Custom
		asks   bool
	}{
		{ApproveDestructive, ro, false}, {ApproveDestructive, add, false}, {ApproveDestructive, del, true},
		{ApproveWrites, ro, false}, {ApproveWrites, add, true}, {ApproveWrites, del, true},
		{ApproveAll, ro, true}, {ApproveNone, del, false},
		{ApproveDestructive, intent.Custom{Tool: "append"}, true},
		{ApproveDestructive, intent.Custom{Tool: "wipe", Destructive: true}, false},
	}
	for _, c := range cases {
		s.cfg.Approve = c.policy
		if why := s.approval(c.it); (why != "") != c.asks {
			t.Errorf("%s %+v: %q", c.policy, c.it, why)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	cases := []struct {
		s   Server
		key string
	}{
		{Server{Name: "Fs", Command: []string{"x"}}, "Fs"},
		{Server{Name: "fs"}, "fs"},
		{Server{Name: "fs", Command: []string{"x"}, URL: "http://x"}, "fs"},
		{Server{Name: "fs", URL: "ftp://x"}, "fs.url"},
		{Server{Name: "fs", Command: []string{"x"}, Approve: "some"}, "fs.approve"},
		{Server{Name: "fs", Command: []string{"x"}, Tools: map[string]string{"w": "never"}}, "fs.tools.w.approve"},
		{Server{Name: "fs", Command: []string{"x"}, Headers: map[string]string{"a": "b"}}, "fs.headers"},
		{Server{Name: "fs", Command: []string{""}}, "fs.command"},
	}
	for _, c := range cases {
		_, err := New([]Server{c.s}, Options{})
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Key != c.key {
			t.Errorf("%+v: got %v, want key %s", c.s, err, c.key)
		}
	}
}

// TestCloseKillsGroup: what a stdio server spawned (npx starts node) goes
// with it.
func TestCloseKillsGroup(t *testing.T) {
	m, r, dir := notes(t, "spawn", nil)
	if _, _, err := run(context.Background(), r, "pid", ""); err != nil {
		t.Fatal(err)
	}
	child := mcptest.Child(dir)
	if child == 0 || !alive(child) {
		t.Fatal("the server's child is not running")
	}
	m.Close()
	waitGone(t, child)
}

// TestCloseDuringStart: a server still starting when the manager closes
// (a one-shot `dialect run` whose action timed out) is stopped before
// Close returns.
func TestCloseDuringStart(t *testing.T) {
	m, r, dir := notes(t, "spawn-hang", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, _, err := run(ctx, r, "pid", ""); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "still starting") {
		t.Fatalf("got %v", err)
	}
	for deadline := time.Now().Add(5 * time.Second); len(mcptest.Starts(dir)) == 0 || mcptest.Child(dir) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server did not start")
		}
	}
	m.Close()
	// Signals take a moment to land; a start left running would take a
	// second or more (the SDK's terminate delay) to kill them.
	time.Sleep(200 * time.Millisecond)
	for _, pid := range []int{mcptest.Starts(dir)[0], mcptest.Child(dir)} {
		if alive(pid) {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			t.Errorf("process %d outlived Close: %s", pid, b)
		}
	}
}
