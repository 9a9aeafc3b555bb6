package dialect

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/store"
)

// gateRuntime opens a runtime whose every delivery is appended to a file,
// so that a test sees exactly what the executor reached. It returns the
// runtime and a function that reads the deliveries so far.
func gateRuntime(t testing.TB, toml string) (*Runtime, func() []delivered) {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "sent.jsonl")
	toml += "\n[exec.send.targets.file]\ntype = \"file\"\npath = \"" + out + "\"\n\n[exec.send.routes]\n\"*\" = \"file\"\n"
	cfg, err := ParseConfig("gate.toml", []byte(toml))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store.Path = filepath.Join(dir, "gate.db")
	rt, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt, func() []delivered { return readDeliveries(t, out) }
}

// delivered is one line a file target wrote: the send intent it got.
type delivered struct {
	Domain, Target, Content string
}

func readDeliveries(t testing.TB, path string) []delivered {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []delivered
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l struct {
			Intent delivered `json:"intent"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		out = append(out, l.Intent)
	}
	return out
}

func runAs(t testing.TB, rt *Runtime, agent, text string) Result {
	t.Helper()
	res, err := rt.Run(context.Background(), Message{Text: "Doing it.\n" + text + "\n", Agent: agent})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 {
		t.Fatalf("%q: %d results", text, len(res))
	}
	return res[0]
}

// TestGateTargetCase: a permission target and a standing rule name a
// target whatever case and "@" the model writes it with, as routes do.
func TestGateTargetCase(t *testing.T) {
	rt, sent := gateRuntime(t, "[permission]\ntargets = [\"agent:anchor\"]\n")
	for _, line := range []string{
		`/send @agent @ANCHOR "x"`, `/send @Agent @Anchor "x"`, `/send @AGENT @anchor "x"`,
		`/tell @ANCHOR "x"`, `/tell @anchor "x"`, `/send @agent @aNcHoR "x" .`,
	} {
		if r := runAs(t, rt, "worker", line); r.Status != StatusPending {
			t.Errorf("%s: %s %s %s, want pending", line, r.Status, r.Code, r.Output)
		}
	}
	if d := sent(); len(d) != 0 {
		t.Fatalf("delivered without approval: %+v", d)
	}
	// A deny rule made for one spelling stops every spelling.
	pend, _ := mustStore(t, rt).PendingList(context.Background(), store.StatusPending)
	rule, err := rt.RuleFor(context.Background(), pend[0].ID, store.Deny)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Deny(context.Background(), pend[0].ID, "owner", "no", &rule); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{`/send @agent @ANCHOR "y"`, `/tell @Anchor "y"`, `/send @AGENT @anchor "y"`} {
		if r := runAs(t, rt, "worker", line); r.Status != StatusDenied {
			t.Errorf("%s after deny --always: %s %s, want denied", line, r.Status, r.Output)
		}
	}
	// Approving runs the call that was queued: to the folded target.
	rt2, sent2 := gateRuntime(t, "[permission]\ntargets = [\"AGENT:Anchor\"]\n")
	r := runAs(t, rt2, "worker", `/send @Agent @ANCHOR "hello"`)
	if r.Status != StatusPending {
		t.Fatalf("an upper-case permission target: %+v", r)
	}
	if res, err := rt2.Approve(context.Background(), r.Pending, "owner", nil); err != nil || res.Status != StatusOK {
		t.Fatalf("approve: %+v %v", res, err)
	}
	if d := sent2(); len(d) != 1 || d[0] != (delivered{"agent", "anchor", "hello"}) {
		t.Errorf("delivered %+v, want the folded agent:anchor", d)
	}
}

// TestGateDomainCoversTargets: a listed domain covers every target in it,
// written with any verb that delivers there.
func TestGateDomainCoversTargets(t *testing.T) {
	rt, sent := gateRuntime(t, "[permission]\ntargets = [\"bluesky\", \"@Discord\"]\n")
	for _, line := range []string{
		`/send @bluesky @someone "x"`, `/send @bluesky "x"`, `/send @BlueSky @Someone "x"`,
		`/post @bluesky "x"`, `/send @discord @general "x"`, `/post @DISCORD "x"`,
	} {
		if r := runAs(t, rt, "worker", line); r.Status != StatusPending {
			t.Errorf("%s: %s %s, want pending", line, r.Status, r.Output)
		}
	}
	if r := runAs(t, rt, "worker", `/send @agent @bluesky "not the domain"`); r.Status != StatusOK {
		t.Errorf("an agent named bluesky is not the bluesky domain: %s %s", r.Status, r.Output)
	}
	if d := sent(); len(d) != 1 {
		t.Errorf("deliveries %+v, want only the agent's", d)
	}
}

// TestGateWrittenTarget: a custom verb with a default target is gated on
// the target actually written when one is.
func TestGateWrittenTarget(t *testing.T) {
	rt, sent := gateRuntime(t, `
[dialect.verbs.shout]
maps_to = "send"
default_target = { type = "agent", id = "anchor" }

[permission]
targets = ["agent:eve"]
`)
	for _, line := range []string{`/shout @agent @eve "x"`, `/shout @agent @EVE "x"`, `/shout @Agent @Eve "x"`} {
		if r := runAs(t, rt, "worker", line); r.Status != StatusPending {
			t.Errorf("%s: %s %s, want pending (written target eve)", line, r.Status, r.Output)
		}
	}
	if r := runAs(t, rt, "worker", `/shout "to the default"`); r.Status != StatusOK {
		t.Errorf("the default target: %s %s", r.Status, r.Output)
	}
	if d := sent(); len(d) != 1 || d[0].Target != "anchor" {
		t.Errorf("deliveries %+v, want one to anchor", d)
	}
}

// TestGateVerbPermissionCoversWhatRunsThroughIt: requires_permission on
// send covers its shorthands and the custom verbs mapped to it; a deny
// rule on send to a target stops a shorthand to it.
func TestGateVerbPermissionCoversWhatRunsThroughIt(t *testing.T) {
	rt, sent := gateRuntime(t, `
[dialect.verbs.send]
requires_permission = true

[dialect.verbs.notify]
maps_to = "send"
default_target = { type = "agent", id = "anchor" }

[dialect.verbs.announce]
maps_to = "post"
default_target = { type = "bluesky" }
`)
	for _, line := range []string{
		`/send @user "x"`, `/tell @anchor "x"`, `/post @bluesky "x"`, `/reply "x"`, `/dm "x"`,
		`/notify "x"`, `/announce "x"`, `/TELL @anchor "x"`, `/sned @user "x"`,
	} {
		if r := runAs(t, rt, "worker", line); r.Status != StatusPending {
			t.Errorf("%s: %s %s %s, want pending", line, r.Status, r.Code, r.Output)
		}
	}
	if d := sent(); len(d) != 0 {
		t.Fatalf("delivered without approval: %+v", d)
	}

	rt2, sent2 := gateRuntime(t, "[dialect.verbs.notify]\nmaps_to = \"send\"\ndefault_target = { type = \"agent\", id = \"anchor\" }\n")
	st := mustStore(t, rt2)
	if _, err := st.SaveRule(context.Background(), store.Rule{Agent: "worker", Verb: "send", Op: "*", Target: "agent:anchor", Args: "*", Decision: store.Deny, By: "owner"}); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{`/tell @anchor "x"`, `/send @agent @Anchor "x"`, `/notify "x"`} {
		if r := runAs(t, rt2, "worker", line); r.Status != StatusDenied {
			t.Errorf("%s with a deny rule on send to agent:anchor: %s %s", line, r.Status, r.Output)
		}
	}
	if r := runAs(t, rt2, "worker", `/tell @eve "x"`); r.Status != StatusOK {
		t.Errorf("another target: %s %s", r.Status, r.Output)
	}
	if d := sent2(); len(d) != 1 || d[0].Target != "eve" {
		t.Errorf("deliveries %+v", d)
	}
}

// TestGateAgentNames: an agent name is never a pattern.
func TestGateAgentNames(t *testing.T) {
	rt, _ := gateRuntime(t, "")
	for _, agent := range []string{"*", "a*", "*b", " x", "x y", "ag%", "a/b", "-x", strings.Repeat("a", 65), "é*"} {
		_, err := rt.Run(context.Background(), Message{Text: "/recall + \"x\" !\n", Agent: agent})
		if !errors.Is(err, ErrAgentName) {
			t.Errorf("agent %q: %v, want ErrAgentName", agent, err)
		}
	}
	for _, agent := range []string{"", "worker", "agent-7", "a.b_c", "X9"} {
		if _, err := rt.Run(context.Background(), Message{Text: "/calc 1\n", Agent: agent}); err != nil {
			t.Errorf("agent %q: %v", agent, err)
		}
	}
	s := rt.NewStream(context.Background(), Message{Agent: "*"}, nil)
	s.WriteString("/recall + \"x\"\n")
	if _, err := s.Close(); !errors.Is(err, ErrAgentName) {
		t.Errorf("a stream for agent *: %v", err)
	}
}

// TestGateUnroutable: a delivery nothing is configured for fails at once,
// before it is queued.
func TestGateUnroutable(t *testing.T) {
	cfg, err := ParseConfig("g.toml", []byte("[permission]\ntargets = [\"bluesky\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store.Path = filepath.Join(t.TempDir(), "g.db")
	rt, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	r := runAs(t, rt, "worker", `/post @bluesky "x"`)
	if r.Status != StatusError || r.Code != codes.NotConfigured || r.Stage != "bind" {
		t.Errorf("unroutable: %s %s %s", r.Status, r.Code, r.Stage)
	}
}
