package dialect

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/failures"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/internal/stress"
	"github.com/pattern-dialect/dialect/store"
)

func openRuntime(t *testing.T, toml string) *Runtime {
	t.Helper()
	cfg, err := ParseConfig("test.toml", []byte(toml))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store.Path = filepath.Join(t.TempDir(), "run.db")
	rt, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

func run(t *testing.T, rt *Runtime, text string) []Result {
	t.Helper()
	res, err := rt.Run(context.Background(), Message{Text: text, Agent: "scout", Model: "m1", Session: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestRunMemoryRoundTrip(t *testing.T) {
	rt := openRuntime(t, "")
	res := run(t, rt, "I'll note that.\n/recall project_notes + \"deadline is Friday\"\n")
	if len(res) != 1 || res[0].Status != StatusOK || res[0].Verb != "recall" {
		t.Fatalf("append: %+v", res)
	}
	res = run(t, rt, "Let me check.\n/recall project_notes\n")
	if res[0].Status != StatusOK || !strings.Contains(res[0].Output, "deadline is Friday") {
		t.Fatalf("read by exact block name: %+v", res[0])
	}
	if r, ok := res[0].Intent.(intent.Recall); !ok || r.Op != intent.RecallRead {
		t.Errorf("intent = %#v, want a recall read", res[0].Intent)
	}
	res = run(t, rt, "Looking.\n/serch friday\n")
	if res[0].Verb != "search" || res[0].Status != StatusOK || !strings.Contains(res[0].Output, "project_notes") {
		t.Errorf("misspelled search: %+v", res[0])
	}
	res = run(t, rt, "Saving the result.\n/recall log + @last.output\n")
	if res[0].Status != StatusOK {
		t.Fatalf("reference: %+v", res[0])
	}
	b, err := mustStore(t, rt).Get(context.Background(), store.Archival, "log")
	if err != nil || !strings.Contains(b.Content, "project_notes") {
		t.Errorf("@last.output was not substituted: %q %v", b.Content, err)
	}
}

func TestRunNeverExecutes(t *testing.T) {
	rt := openRuntime(t, "")
	for _, msg := range []string{
		"I could /recall + \"x\" but let's think first...",
		"Let me check that.\n/recall + \"x\"\nActually wait, you just told me.",
		"/do /recall + \"x\"\nHmm, scratch that, wrong label.",
		"```\n/recall + \"x\"\n```",
		"See `/recall + \"x\"` for details.",
		"Paths like\n/etc/hosts\n",
		"/recall + \"x\"\n/cancel",
	} {
		for _, r := range run(t, rt, msg) {
			if r.Status == StatusOK && r.Verb == "recall" {
				t.Errorf("%q: executed %+v", msg, r)
			}
		}
	}
	if names, _ := mustStore(t, rt).Names(context.Background(), store.Archival); len(names) != 0 {
		t.Errorf("memory was written: %v", names)
	}
}

func TestRunStrictAndFailuresLogged(t *testing.T) {
	rt := openRuntime(t, "")
	res := run(t, rt, "Approving.\n/aprove 1\n")
	if res[0].Status != StatusError || res[0].Code != "UNKNOWN_VERB" || res[0].Verb != "" {
		t.Fatalf("near miss of approve: %+v", res[0])
	}
	if !strings.Contains(res[0].Output, "approve") {
		t.Errorf("message does not suggest the exact spelling: %q", res[0].Output)
	}
	run(t, rt, "I mention /aprove in passing.")
	n, err := mustStore(t, rt).Failures().Count(context.Background(), failures.Filter{})
	if err != nil || n != 1 {
		t.Errorf("failure rows = %d (%v), want 1: mentions are not failures", n, err)
	}
}

func TestRunApprovalFlow(t *testing.T) {
	ctx := context.Background()
	rt := openRuntime(t, "[agents.anchor]\nauthority = [\"approve\", \"deny\"]\n")
	res := run(t, rt, "Serious one.\n/recall + \"launch codes\" !\n")
	if res[0].Status != StatusPending || res[0].Pending == 0 {
		t.Fatalf("! did not queue: %+v", res[0])
	}
	id := res[0].Pending
	if names, _ := mustStore(t, rt).Names(ctx, store.Archival); len(names) != 0 {
		t.Fatal("a queued action ran")
	}
	// An agent without the role cannot approve it.
	res = run(t, rt, "/approve "+itoa(id)+"\n")
	if res[0].Status != StatusDenied {
		t.Fatalf("scout approved without the role: %+v", res[0])
	}
	// Not even an agent with the role may approve what it queued itself.
	own, _ := rt.Run(ctx, Message{Text: "Mine.\n/recall + \"self\" !\n", Agent: "anchor"})
	self, _ := rt.Run(ctx, Message{Text: "/approve " + itoa(own[0].Pending) + "\n", Agent: "anchor"})
	if self[0].Status != StatusDenied || self[0].Code != "PERMISSION_DENIED" {
		t.Fatalf("anchor approved its own action: %+v", self[0])
	}
	out, err := rt.Run(ctx, Message{Text: "/approve " + itoa(id) + "\n", Agent: "anchor", Session: "s2"})
	if err != nil || out[0].Status != StatusOK {
		t.Fatalf("anchor approve: %+v %v", out, err)
	}
	if names, _ := mustStore(t, rt).Names(ctx, store.Archival); len(names) != 1 {
		t.Errorf("approved action did not run: %v", names)
	}
	if _, err := rt.Approve(ctx, id, "owner", nil); err == nil {
		t.Error("an action was approved twice")
	}

	res = run(t, rt, "Again.\n/recall + \"other\" ?ask\n")
	id2 := res[0].Pending
	if _, err := rt.Deny(ctx, id2, "owner", "no", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Approve(ctx, id2, "owner", nil); codes.Of(err) != codes.AlreadyDecided {
		t.Errorf("approving a denied action: %v", err)
	}
	if names, _ := mustStore(t, rt).Names(ctx, store.Archival); len(names) != 1 {
		t.Errorf("denied action ran: %v", names)
	}
}

func TestRunHalt(t *testing.T) {
	rt := openRuntime(t, "[agents.boss]\nauthority = [\"halt\"]\n")
	res, err := rt.Run(context.Background(), Message{Text: "Stopping.\n/halt \"loop\" !\n/recall + \"after\"\n", Agent: "boss"})
	if !errors.Is(err, ErrHalted) {
		t.Fatalf("err = %v, want ErrHalted (%+v)", err, res)
	}
	if res[1].Status != StatusSkipped {
		t.Errorf("action after halt: %+v", res[1])
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestRunSettlesClaimedAliases(t *testing.T) {
	rt := openRuntime(t, "")
	for _, tt := range []struct{ msg, verb string }{
		{"Noting.\n/remember human \"old name\" -> \"new name\"\n", "context"},
		{"Noting.\n/remember + \"met Ana\"\n", "recall"},
		{"Noting.\n/remembered + \"met Bo\"\n", "recall"},
		{"Noting.\n/remeber human \"Bo\" -> \"Bob\"\n", "context"},
	} {
		res := run(t, rt, tt.msg)
		if len(res) != 1 || res[0].Verb != tt.verb || res[0].Status == StatusSkipped {
			t.Errorf("%q: %+v, want settled as %s", tt.msg, res, tt.verb)
		}
	}
	res := run(t, rt, "Searching.\n/search in archival budget\n")
	if len(res) != 1 || res[0].Token != "search" {
		t.Fatalf("multi-word extension by edit distance: %+v", res)
	}
	if s, ok := res[0].Intent.(intent.Search); !ok || len(s.Domains) != 1 || s.Domains[0] != "archival" {
		t.Errorf("search in archival = %#v", res[0].Intent)
	}
}

func TestRunCustomAuthorityVerbNeedsTheRole(t *testing.T) {
	rt := openRuntime(t, `
[dialect.verbs.greenlight]
aliases = ["lgtm"]
maps_to = "approve"

[dialect.verbs.stopall]
maps_to = "halt"

[agents.boss]
authority = ["approve", "halt"]
`)
	ctx := context.Background()
	res := run(t, rt, "Queue it.\n/recall + \"x\" !\n")
	id := itoa(res[0].Pending)
	res = run(t, rt, "/lgtm "+id+"\n") // agent scout holds no role
	if res[0].Status != StatusDenied || res[0].Code != "PERMISSION_DENIED" {
		t.Fatalf("a custom verb mapped to approve ran without the role: %+v", res[0])
	}
	out, err := rt.Run(ctx, Message{Text: "/greenlight " + id + "\n", Agent: "boss"})
	if err != nil || out[0].Status != StatusOK {
		t.Fatalf("boss approving through the custom verb: %+v %v", out, err)
	}
	out, err = rt.Run(ctx, Message{Text: "Done.\n/stopall \"enough\" !\n/recall + \"after\"\n", Agent: "boss"})
	if !errors.Is(err, ErrHalted) || out[1].Status != StatusSkipped {
		t.Errorf("a custom verb mapped to halt did not halt: %+v %v", out, err)
	}
}

func mustStore(t testing.TB, rt *Runtime) store.Store {
	t.Helper()
	st, err := rt.Store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestRunPatchHonoursTheTimeout: a patch whose search outlasts the action
// timeout stops with TIMEOUT (the action's time ran out, the model made no
// mistake), and the block is unchanged. How soon the patcher stops is
// patch's TestApplyContextDeadline; this checks the runtime gives it the
// action's context and reports what happened. The timeout is set from how
// long reading the action takes on this machine, now (a race-detector
// build reads it far slower), so that reading fits in it and the search,
// which grows with the square of the hunks, does not.
func TestRunPatchHonoursTheTimeout(t *testing.T) {
	block, diff, _ := stress.ChainPatch(16000) // hunks²/2 checks: far longer than reading the action
	text := "Patching.\n/recall patch big\n```diff\n" + diff + "```\n"
	ctx := context.Background()
	cfg := "[detect]\nmax_action_bytes = 16000000\n[store]\nlog_messages = false\n"
	probe := openRuntime(t, cfg)
	start := time.Now()
	if r := probe.Parse(ctx, strings.TrimPrefix(text, "Patching.\n"), blockSet{"big"}); r.Code != "" {
		t.Fatalf("the action does not parse: %s %s", r.Code, r.Output)
	}
	timeout := 4*time.Since(start) + 100*time.Millisecond
	rt := openRuntime(t, fmt.Sprintf("%s[run]\naction_timeout = %q\n", cfg, timeout))
	st := mustStore(t, rt)
	if _, err := store.Put(ctx, st, store.Archival, "big", block); err != nil {
		t.Fatal(err)
	}
	res := run(t, rt, text)
	if res[0].Code != codes.Timeout || res[0].Stage != "execute" {
		t.Fatalf("timeout %v: %s %s %.200s", timeout, res[0].Code, res[0].Stage, res[0].Output)
	}
	b, err := st.Get(ctx, store.Archival, "big")
	if err != nil || b.Content != block || b.Version != 1 {
		t.Errorf("the block changed: v%d %v", b.Version, err)
	}
}

// blockSet is a verbs.Blocks that has the blocks named.
type blockSet []string

func (b blockSet) HasBlock(_ context.Context, name string) (bool, error) {
	return slices.Contains(b, name), nil
}
