package dialect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/store"
	"github.com/pattern-dialect/dialect/verbs"
)

// instructionConfigs are two configurations side by side: the defaults,
// and one with delivery routes, a web provider, custom verbs and an agent
// holding authority. dir holds the file targets; web is a provider that
// answers every query.
func instructionConfigs(dir, web string) map[string]struct{ toml, agent string } {
	file := func(name string) string {
		return fmt.Sprintf("[exec.send.targets.%s]\ntype = \"file\"\npath = %q\n", name, filepath.Join(dir, name+".jsonl"))
	}
	return map[string]struct{ toml, agent string }{
		"defaults": {"", "scout"},
		"full": {file("anchor") + file("bluesky") + file("thread") + file("mastodon") + `
[exec.send.routes]
user = "stdout"
"agent:anchor" = "anchor"
bluesky = "bluesky"
thread = "thread"
mastodon = "mastodon"

[exec.web]
url = "` + web + `?q={query}"

[agents.anchor]
authority = ["approve", "deny", "escalate", "halt"]

[dialect.verbs.notify]
aliases = ["heads up"]
maps_to = "send"
default_target = { type = "agent", id = "anchor" }
description = "Quick notification to the coordinator"
examples = ["/notify something weird happened", "/heads up partner seems stressed"]

[dialect.verbs.shame]
maps_to = "send"
default_target = { type = "bluesky" }
template = "shame post: {content}"
requires_permission = true
examples = ["/shame spam bots again"]

[dialect.verbs.toot]
maps_to = "post"
default_target = { type = "mastodon" }
examples = ["/toot hello fediverse"]

[dialect.verbs.jot]
maps_to = "recall"
examples = ["/jot + \"call the bank\" #errands"]
`, "anchor"},
	}
}

// seed prepares the scratch store the examples assume: an archival block
// project_notes with two versions, old_notes, a working block human, and
// pending action #12 queued by another agent.
func seed(t *testing.T, rt *Runtime) {
	t.Helper()
	ctx := context.Background()
	st, err := rt.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	must := func(_ store.Block, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(store.Put(ctx, st, store.Archival, "project_notes", "deadline is Monday"))
	must(store.Append(ctx, st, store.Archival, "project_notes", "budget under review"))
	must(store.Put(ctx, st, store.Archival, "old_notes", "stale"))
	must(store.Put(ctx, st, store.Working, "human", "likes tea"))
	for range 12 {
		if _, err := st.Enqueue(ctx, store.Pending{Agent: "other", Verb: "calc", Intent: `{"kind":"calc","expr":"1+1"}`, Raw: "/calc 1+1 !"}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestInstructionExamplesRun: every example the instructions show, for
// both configurations, parses to a verb, and runs against a scratch store
// — deliveries go to files, /web to a local provider — ending ok or queued
// for approval. /fetch examples reach the network, so they are parsed and
// bound only.
func TestInstructionExamplesRun(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"results":[{"title":"Go 1.26","url":"https://go.dev/blog","snippet":"released"}]}`)
	}))
	defer web.Close()
	ctx := context.Background()
	for name, c := range instructionConfigs(t.TempDir(), web.URL) {
		t.Run(name, func(t *testing.T) {
			probe := openRuntime(t, c.toml)
			var text bytes.Buffer
			if err := probe.Instructions(context.Background(), &text, c.agent); err != nil {
				t.Fatal(err)
			}
			examples := probe.Verbs().Examples(probe.scope(c.agent))
			if len(examples) < 15 {
				t.Fatalf("only %d examples", len(examples))
			}
			// One seeded store, copied for each example: every example
			// starts from the same world.
			seeded := filepath.Join(t.TempDir(), "seeded.db")
			cfg, err := ParseConfig("test.toml", []byte(c.toml))
			if err != nil {
				t.Fatal(err)
			}
			cfg.Store.Path = seeded
			first, err := Open(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			seed(t, first)
			first.Close()
			for i, ex := range examples {
				if !strings.Contains(text.String(), strings.ReplaceAll(ex, "\n", "\n       ")) {
					t.Errorf("example %q is not in the instructions", ex)
				}
				data, err := os.ReadFile(seeded)
				if err != nil {
					t.Fatal(err)
				}
				cfg.Store.Path = filepath.Join(t.TempDir(), fmt.Sprintf("ex%d.db", i))
				if err := os.WriteFile(cfg.Store.Path, data, 0o600); err != nil {
					t.Fatal(err)
				}
				rt, err := Open(ctx, cfg)
				if err != nil {
					t.Fatal(err)
				}
				defer rt.Close()
				p := rt.Parse(ctx, strings.TrimPrefix(ex, "/do "), nil)
				if p.Code != "" || p.Verb == "" {
					t.Errorf("example %q does not parse: %s %s", ex, p.Code, p.Output)
					continue
				}
				// An example that names an operation does that operation.
				if f := strings.Fields(ex); len(f) > 1 && p.Verb == "recall" {
					if op, ok := map[string]intent.RecallOp{"history": intent.RecallHistory, "read": intent.RecallRead,
						"restore": intent.RecallRestore, "patch": intent.RecallPatch}[f[1]]; ok && p.Intent.(intent.Recall).Op != op {
						t.Errorf("example %q is read as a recall %s", ex, p.Intent.(intent.Recall).Op)
					}
				}
				if p.Verb == "fetch" {
					if _, err := rt.bind(Message{Agent: c.agent}, p.Verb, p.Intent); err != nil {
						t.Errorf("example %q does not bind: %v", ex, err)
					}
					continue
				}
				res, err := rt.Run(ctx, Message{Text: "Example.\n" + ex + "\n", Agent: c.agent, Session: "example"})
				if err != nil && !(errors.Is(err, ErrHalted) && p.Verb == "halt") {
					t.Errorf("example %q: %v", ex, err)
					continue
				}
				for _, r := range res {
					if r.Status != StatusOK && r.Status != StatusPending {
						t.Errorf("example %q ended %s %s: %s", ex, r.Status, r.Code, r.Output)
					}
				}
			}
		})
	}
}

// TestInstructionsSideBySide: what one configuration has and the other
// lacks is taught in one and not the other.
func TestInstructionsSideBySide(t *testing.T) {
	cs := instructionConfigs(t.TempDir(), "http://127.0.0.1:1/search")
	text := func(name, agent string) string {
		var b bytes.Buffer
		if err := openRuntime(t, cs[name].toml).Instructions(context.Background(), &b, agent); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	bare, full, noRole := text("defaults", "scout"), text("full", "anchor"), text("full", "scout")
	for _, only := range []string{"/web", "/approve 12", "/halt", "/tell @anchor", "/post @bluesky", "/reply", "/notify", "/toot", "/shame"} {
		if strings.Contains(bare, only) || !strings.Contains(full, only) {
			t.Errorf("%q: in the defaults %v, in the full configuration %v", only, strings.Contains(bare, only), strings.Contains(full, only))
		}
	}
	for _, never := range []string{"@thread", "@parent", "@[uri]", "constellation", "+ diff"} {
		if strings.Contains(bare, never) || strings.Contains(full, never) {
			t.Errorf("%q is taught; this runtime cannot resolve or run it", never)
		}
	}
	if strings.Contains(noRole, "/approve") || strings.Contains(noRole, "/halt") || !strings.Contains(noRole, "/web") {
		t.Errorf("an agent without roles is taught authority, or lacks the rest:\n%s", noRole)
	}
	off := openRuntime(t, "[store]\nlog_messages = false\n")
	var b bytes.Buffer
	off.Instructions(context.Background(), &b, "")
	if strings.Contains(b.String(), "@last.message") || strings.Contains(b.String(), "in conversations") {
		t.Errorf("without a conversation log, @last.message and conversation search are taught:\n%s", b.String())
	}
	if err := off.Instructions(context.Background(), &b, "not an agent!"); !errors.Is(err, ErrAgentName) {
		t.Errorf("a bad agent name: %v", err)
	}
	_ = verbs.Scope{}
}
