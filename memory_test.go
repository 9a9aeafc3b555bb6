package dialect

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/fuzzy"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/store"
)

// one runs a one-action message as agent in session s1 and returns its
// result.
func one(t *testing.T, rt *Runtime, agent, action string) Result {
	t.Helper()
	res, err := rt.Run(context.Background(), Message{Text: "Doing it.\n" + action + "\n", Agent: agent, Model: "m", Session: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 {
		t.Fatalf("%q gave %d results", action, len(res))
	}
	return res[0]
}

func TestRecallHistoryReadRestore(t *testing.T) {
	rt := openRuntime(t, "")
	one(t, rt, "scout", `/recall plan + "deadline is Monday"`)
	one(t, rt, "scout", `/recall plan + "budget approved"`)
	r := one(t, rt, "anchor", "/recall patch plan\n```diff\n@@ -1,2 +1,2 @@\n-deadline is Monday\n+deadline is Friday\n budget approved\n```")
	if r.Status != StatusOK {
		t.Fatalf("patch: %+v", r)
	}
	r = one(t, rt, "scout", "/recall history plan")
	for _, want := range []string{"plan: 3 versions (current v3)", "v1", "scout", "anchor", "patch", `+1 -0 lines: + "budget approved"`, `+1 -1 lines: + "deadline is Friday"`} {
		if !strings.Contains(r.Output, want) {
			t.Errorf("history lacks %q:\n%s", want, r.Output)
		}
	}
	if r.Intent.(intent.Recall).Op != intent.RecallHistory {
		t.Errorf("/recall history searched: %+v", r.Intent)
	}
	if r = one(t, rt, "scout", "/recall read plan v1"); !strings.HasSuffix(r.Output, "\ndeadline is Monday") || !strings.Contains(r.Output, "by scout") {
		t.Errorf("read v1: %q", r.Output)
	}
	if r = one(t, rt, "scout", "/recall plan v2"); !strings.HasSuffix(r.Output, "deadline is Monday\nbudget approved") {
		t.Errorf("NAME v2 reads version 2: %q", r.Output)
	}
	if r = one(t, rt, "scout", "/recall restore plan v1"); r.Status != StatusOK || !strings.Contains(r.Output, "restored plan to v1 as v4; v2 to v3 stay") {
		t.Errorf("restore: %+v", r)
	}
	if r = one(t, rt, "scout", "/recall plan"); !strings.Contains(r.Output, "(v4):\ndeadline is Monday") {
		t.Errorf("after restore: %q", r.Output)
	}
	if r = one(t, rt, "scout", "/recall read plan v9"); r.Code != codes.NotFound || !strings.Contains(r.Output, "versions v1 to v4, not v9") {
		t.Errorf("a missing version: %+v", r)
	}
	one(t, rt, "scout", "/recall -plan")
	if r = one(t, rt, "scout", "/recall read plan"); r.Code != codes.NotFound || !strings.Contains(r.Output, "/recall restore plan v4 brings it back") {
		t.Errorf("a deleted block: %+v", r)
	}
	if r = one(t, rt, "scout", "/recall restore plan v4"); r.Status != StatusOK {
		t.Errorf("restoring a deleted block: %+v", r)
	}
}

func TestBlockLimits(t *testing.T) {
	rt := openRuntime(t, "[memory]\nworking_limit = 30\narchival_limit = 40\n[memory.limits]\ntiny = 5\n")
	ok := one(t, rt, "scout", `/context human + "likes tea"`)
	if ok.Status != StatusOK {
		t.Fatal(ok)
	}
	for _, tt := range []struct{ action, says string }{
		{`/context human + "and a very long story about coffee"`, `working block "human" would be 44 characters; its limit is 30`},
		{`/recall + "` + strings.Repeat("x", 41) + `"`, "the new archival entry would be 41 characters; its limit is 40"},
		{`/recall tiny + "123456"`, `archival block "tiny" would be 6 characters; its limit is 5`},
	} {
		r := one(t, rt, "scout", tt.action)
		if r.Code != codes.BlockFull || !strings.Contains(r.Output, tt.says) || !strings.Contains(r.Output, "nothing was written") {
			t.Errorf("%s: %+v", tt.action, r)
		}
	}
	st, _ := rt.Store(context.Background())
	if b, _ := st.Get(context.Background(), store.Working, "human"); b.Version != 1 || b.Content != "likes tea" {
		t.Errorf("a refused write changed the block: %+v", b)
	}
	if names, _ := st.HistoryNames(context.Background(), store.Archival); len(names) != 0 {
		t.Errorf("refused writes left history: %v", names)
	}
	if _, err := ParseConfig("x.toml", []byte("[memory]\nworking_limit = -1\n")); err == nil {
		t.Error("a negative limit was accepted")
	}
}

func TestFiltersDoWhatTheInstructionsSay(t *testing.T) {
	rt := openRuntime(t, "")
	one(t, rt, "scout", `/recall + "shipped the release #release"`)
	one(t, rt, "scout", `/recall + "shipped the hotfix" #ops *apollo`)
	one(t, rt, "scout", `/recall + "shipped nothing today"`)
	for _, tt := range []struct {
		action string
		want   []string // found
		absent []string
	}{
		{"/search shipped #nothing", nil, []string{"release", "hotfix", "today"}},
		{"/search shipped #release", []string{"the release"}, []string{"hotfix", "today"}},
		{"/recall shipped #ops", []string{"hotfix"}, []string{"release", "today"}},
		{"/search shipped *apollo", []string{"hotfix"}, []string{"release", "today"}},
		{"/search shipped *gemini", nil, []string{"release", "hotfix", "today"}},
		{"/recall #release", []string{"the release"}, []string{"hotfix"}},
		{"/search shipped @2099-01-01", nil, []string{"release", "hotfix", "today"}},
		{"/search shipped @7d #ops", []string{"hotfix"}, []string{"release", "today"}},
		{"/search shipped ^1", nil, nil},
	} {
		r := one(t, rt, "scout", tt.action)
		if r.Status != StatusOK {
			t.Fatalf("%s: %+v", tt.action, r)
		}
		mem, _, _ := strings.Cut(r.Output, "conversations:")
		for _, w := range tt.want {
			if !strings.Contains(mem, w) {
				t.Errorf("%s did not find %q:\n%s", tt.action, w, r.Output)
			}
		}
		for _, w := range tt.absent {
			if strings.Contains(mem, w) {
				t.Errorf("%s found %q:\n%s", tt.action, w, r.Output)
			}
		}
	}
	if r := one(t, rt, "scout", "/search shipped ^1 in archival"); strings.Count(r.Output, "\n- ") != 1 {
		t.Errorf("^1 listed more than one:\n%s", r.Output)
	}
	r := one(t, rt, "scout", "/search shipped #ops &json in archival")
	var found struct {
		Memory []struct{ Name, Content string }
	}
	if err := json.Unmarshal([]byte(r.Output), &found); err != nil || len(found.Memory) != 1 || found.Memory[0].Content != "shipped the hotfix" {
		t.Errorf("&json: %v %s", err, r.Output)
	}
	if r := one(t, rt, "scout", "/search shipped &brief in archival"); strings.Contains(r.Output, "[shipped]") || !strings.Contains(r.Output, "(v1, ") {
		t.Errorf("&brief: %s", r.Output)
	}
	if r := one(t, rt, "scout", "/search shipped &md"); r.Code != codes.UnknownModifier {
		t.Errorf("an unknown format: %+v", r)
	}
}

func TestConversationSearchFindsProseNotActions(t *testing.T) {
	rt := openRuntime(t, "")
	run(t, rt, "We finally shipped the release on Tuesday. #launch\n/recall + \"zebra crossing notes\"\n")
	r := one(t, rt, "scout", "/search zebra in conversations")
	if !strings.Contains(r.Output, "conversations: 0 found") {
		t.Errorf("conversation search returned the action line:\n%s", r.Output)
	}
	r = one(t, rt, "scout", "/search tuesday in conversations")
	if !strings.Contains(r.Output, "conversations: 1 found") || strings.Contains(r.Output, "/recall") {
		t.Errorf("conversation search did not find the prose:\n%s", r.Output)
	}
	if r = one(t, rt, "scout", "/search tuesday #launch in conversations"); !strings.Contains(r.Output, "1 found") {
		t.Errorf("a message's hashtag does not label it:\n%s", r.Output)
	}
	if r = one(t, rt, "scout", "/search tuesday #other in conversations"); !strings.Contains(r.Output, "0 found") {
		t.Errorf("a tag filter did not narrow conversations:\n%s", r.Output)
	}
}

func TestReferencesResolveEverywhere(t *testing.T) {
	rt := openRuntime(t, "")
	ctx := context.Background()
	fresh := func(action string) Result {
		res, err := rt.Run(ctx, Message{Text: "Now.\n" + action + "\n", Session: "fresh-" + action})
		if err != nil {
			t.Fatal(err)
		}
		return res[0]
	}
	for _, action := range []string{"/recall @last.output", "/search @last.output", "/calc @last * 2", "/web reviews of @last.output",
		"/fetch @last.output", "/context human \"@last.output\" -> \"x\"", "/recall read @last.output"} {
		if r := fresh(action); r.Code != codes.InvalidReference {
			t.Errorf("%s in a fresh session: %s %q, want INVALID_REFERENCE", action, r.Code, r.Output)
		}
	}
	one(t, rt, "scout", `/recall + "tuesday standup moved"`)
	one(t, rt, "scout", "/calc 2 + 3")
	if r := one(t, rt, "scout", "/calc @last.output * 10"); r.Output != "50" {
		t.Errorf("a reference in calc: %+v", r)
	}
	one(t, rt, "scout", `/recall + "standup"`)
	one(t, rt, "scout", `/calc 1`)
	if r := one(t, rt, "scout", "/recall @last.output"); r.Intent.(intent.Recall).Query != "1" {
		t.Errorf("a reference in a recall search was not substituted: %+v", r.Intent)
	}
}

func TestReplaceOfAbsentTextIsNotFound(t *testing.T) {
	rt := openRuntime(t, "")
	one(t, rt, "scout", `/context human + "likes tea"`)
	r := one(t, rt, "scout", `/context human "coffee" -> "cocoa"`)
	if r.Code != codes.NotFound || !strings.Contains(r.Output, `"coffee" is not in working memory human`) {
		t.Errorf("absent text: %+v", r)
	}
	if r = one(t, rt, "scout", `/context nobody "a" -> "b"`); r.Code != codes.NotFound {
		t.Errorf("absent block: %+v", r)
	}
}

func TestWebsearchIsWeb(t *testing.T) {
	rt := openRuntime(t, "")
	// A compound of a multi-word name is that name, not a guess.
	for _, tok := range []string{"websearch", "web-search", "web_search", "WebSearch", "searchweb"} {
		if res := rt.Resolve(tok); res.Verb != "web" || res.Tier > fuzzy.TierCase {
			t.Errorf("/%s resolves to /%s (%s), want /web exactly", tok, res.Verb, res.Tier)
		}
	}
	if res := rt.Resolve("lookup"); res.Verb != "search" {
		t.Errorf("a compound never takes another verb's alias: lookup → /%s", res.Verb)
	}
	r := one(t, rt, "scout", "/websearch go 1.26 release notes")
	if r.Verb != "web" || r.Code != codes.NotConfigured {
		t.Errorf("/websearch ran as /%s: %+v", r.Verb, r)
	}
}

func TestStandingRulesAreNarrow(t *testing.T) {
	rt := openRuntime(t, "")
	ctx := context.Background()
	// The case: one denial of a ?ask search, always.
	q := one(t, rt, "worker", "/recall important ?ask")
	if q.Status != StatusPending {
		t.Fatal(q)
	}
	rule, err := rt.RuleFor(ctx, q.Pending, store.Deny)
	if err != nil || rule.Agent != "worker" || rule.Verb != "recall" || rule.Op != "search" || rule.Args != "*" {
		t.Fatalf("RuleFor = %+v, %v", rule, err)
	}
	if _, err := rt.Deny(ctx, q.Pending, "owner", "no digging", &rule); err != nil {
		t.Fatal(err)
	}
	if r := one(t, rt, "worker", `/recall + "important fact"`); r.Status != StatusOK {
		t.Errorf("a denied search denies inserts: %+v", r)
	}
	r := one(t, rt, "worker", "/recall important")
	if r.Status != StatusDenied || !strings.Contains(r.Output, `owner said: "no digging"`) {
		t.Errorf("the rule's denial does not give the owner's reason: %+v", r)
	}
	if r := one(t, rt, "scout", "/recall important"); r.Status != StatusOK {
		t.Errorf("the rule covers another agent: %+v", r)
	}
	// A one-off denial reaches the agent's session as @last.output.
	q = one(t, rt, "worker", `/recall notes + "x" ?ask`)
	if _, err := rt.Deny(ctx, q.Pending, "owner", "not that block", nil); err != nil {
		t.Fatal(err)
	}
	st, _ := rt.Store(ctx)
	if o, _ := st.LastOutput(ctx, "s1"); !strings.Contains(o.Output, "was denied by owner: not that block") {
		t.Errorf("the denial is not the session's last output: %+v", o)
	}
	// An approval of a block operation covers that block only.
	q = one(t, rt, "worker", `/recall notes + "y" !`)
	rule, _ = rt.RuleFor(ctx, q.Pending, store.Allow)
	if rule.Op != "append" || rule.Args != "notes" {
		t.Errorf("append rule = %+v", rule)
	}
	if _, err := rt.Approve(ctx, q.Pending, "owner", &rule); err != nil {
		t.Fatal(err)
	}
	st.SaveRule(ctx, store.Rule{Agent: "*", Verb: "recall", Op: "append", Target: "*", Args: "*", Decision: store.Deny})
	if r := one(t, rt, "worker", `/recall notes + "z"`); r.Status != StatusOK {
		t.Errorf("the narrow allow does not beat the broad deny: %+v", r)
	}
	if r := one(t, rt, "worker", `/recall other + "z"`); r.Status != StatusDenied {
		t.Errorf("the allow for notes covers other blocks: %+v", r)
	}
}

func TestCheckRule(t *testing.T) {
	rt := openRuntime(t, "[dialect.verbs.jot]\nmaps_to = \"recall\"\n")
	for _, tt := range []struct {
		in   store.Rule
		want string // String() of the result, or "error: ..." substring
	}{
		{store.Rule{Decision: store.Deny, Verb: "tell"}, "deny agent=* verb=send op=* target=* args=*"}, // a rule on /tell is a rule on sends,
		{store.Rule{Decision: store.Allow, Verb: "jot", Op: "insert", Agent: "scout"}, "allow agent=scout verb=recall op=insert target=* args=*"},
		{store.Rule{Decision: store.Allow, Verb: "Search", Target: "@Bluesky"}, "allow agent=* verb=search op=* target=bluesky args=*"},
		{store.Rule{Decision: store.Allow, Verb: "fetch", Op: "-"}, `allow agent=* verb=fetch op="" target=* args=*`},
		{store.Rule{Decision: store.Allow, Verb: "recal"}, "error: did you mean /recall?"},
		{store.Rule{Decision: store.Allow, Verb: "recall", Op: "inser"}, "error: no operation"},
		{store.Rule{Decision: store.Allow, Verb: "calc", Op: "add"}, "error: does one thing"},
		{store.Rule{Decision: store.Allow, Verb: "approve"}, "error: authority roles"},
		{store.Rule{Decision: store.Allow, Agent: "a*"}, "error: not an agent name"},
		{store.Rule{Decision: "maybe"}, "error: allows or denies"},
	} {
		got, err := rt.CheckRule(tt.in)
		s := got.String()
		if err != nil {
			s = "error: " + err.Error()
		}
		wantErr, isErr := strings.CutPrefix(tt.want, "error: ")
		if isErr != (err != nil) || !strings.Contains(s, wantErr) {
			t.Errorf("CheckRule(%+v) = %s, want %s", tt.in, s, tt.want)
		}
	}
}
