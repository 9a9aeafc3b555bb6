package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMemoryCmdInspectAndRestore is a person's session: an agent changes
// a block; the person lists memory, reads the history, reads an old
// version, restores it, deletes the block and brings it back.
func TestMemoryCmdInspectAndRestore(t *testing.T) {
	e := newRunEnv(t, "")
	for _, msg := range []string{
		"Noting.\n/recall plan + \"deadline is Monday\" #release\n",
		"Noting.\n/recall plan + \"budget approved\"\n",
		"Fixing.\n/recall patch plan\n```diff\n@@ -1,2 +1,2 @@\n-deadline is Monday\n+deadline is Friday\n budget approved\n```\n",
		"Context.\n/context human + \"likes tea\"\n",
	} {
		if code, out, errs := e.cli(msg, "run", "--agent", "scout"); code != 0 {
			t.Fatalf("%q: exit %d %s %s", msg, code, out, errs)
		}
	}
	code, out, _ := e.cli("", "memory", "ls")
	if code != 0 || !strings.Contains(out, "archival  plan") || !strings.Contains(out, "working   human") || !strings.Contains(out, "#release") {
		t.Errorf("memory ls:\n%s", out)
	}
	code, out, _ = e.cli("", "memory", "ls", "--json", "--kind", "working")
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(out, `"name":"human"`) {
		t.Errorf("memory ls --json --kind working:\n%s", out)
	}
	_, out, _ = e.cli("", "memory", "history", "plan")
	for _, want := range []string{"plan: 3 versions (current v3)", "scout", "patch", `+ "deadline is Friday"`} {
		if !strings.Contains(out, want) {
			t.Errorf("history lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = e.cli("", "memory", "history", "plan", "--json")
	var vs []struct {
		Version            int
		Op, Agent, Summary string
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var v struct {
			Version            int
			Op, Agent, Summary string
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("history --json: %v: %s", err, l)
		}
		vs = append(vs, v)
	}
	if len(vs) != 3 || vs[2].Op != "patch" || vs[2].Agent != "scout" {
		t.Errorf("history --json = %+v", vs)
	}
	_, out, _ = e.cli("", "memory", "show", "plan", "--version", "1")
	if !strings.HasSuffix(out, "\ndeadline is Monday\n") {
		t.Errorf("show --version 1:\n%s", out)
	}
	code, out, _ = e.cli("", "memory", "restore", "plan", "1", "--as", "ana")
	if code != 0 || !strings.Contains(out, "restored plan to v1 as v4") {
		t.Fatalf("restore: %d %s", code, out)
	}
	_, out, _ = e.cli("", "memory", "show", "plan", "--json")
	var b struct {
		Version int
		Content string
		Tags    []string
	}
	json.Unmarshal([]byte(out), &b)
	if b.Version != 4 || b.Content != "deadline is Monday" || fmt.Sprint(b.Tags) != "[release]" {
		t.Errorf("after restore: %+v", b)
	}
	_, out, _ = e.cli("", "memory", "history", "plan")
	if !strings.Contains(out, "ana") || !strings.Contains(out, "restore v1") {
		t.Errorf("the restore is not in the history with its author:\n%s", out)
	}
	if code, out, _ := e.cli("", "memory", "rm", "plan"); code != 0 || !strings.Contains(out, "dialect memory restore plan 4 brings it back") {
		t.Errorf("rm: %d %s", code, out)
	}
	if code, _, errs := e.cli("", "memory", "show", "plan"); code != 1 || !strings.Contains(errs, "was deleted in v5") {
		t.Errorf("show of a deleted block: %d %s", code, errs)
	}
	if code, _, _ := e.cli("", "memory", "restore", "plan", "4"); code != 0 {
		t.Error("restoring a deleted block failed")
	}
	// The agent sees what the person did.
	_, out, _ = e.cli("Checking.\n/recall plan\n", "run")
	if !strings.Contains(out, "(v6 #release):") || !strings.Contains(out, "deadline is Monday") {
		t.Errorf("the agent reads:\n%s", out)
	}
	for _, bad := range [][]string{{"memory"}, {"memory", "frob"}, {"memory", "restore", "plan", "x"}, {"memory", "ls", "--kind", "core"}, {"memory", "show"}} {
		if code, _, _ := e.cli("", bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
	if code, _, _ := e.cli("", "memory", "show", "nothing"); code != 1 {
		t.Errorf("show of no block: exit %d", code)
	}
}

func TestMemoryCmdExportImport(t *testing.T) {
	e := newRunEnv(t, "")
	for _, msg := range []string{
		"a\n/recall plan + \"ship \\\"friday\\\" ✓ <b>\" #release *apollo\n",
		"b\n/recall gone + \"old\"\n",
		"c\n/recall -gone\n",
		"d\n/context human + \"likes tea\"\n",
	} {
		if code, out, errs := e.cli(msg, "run", "--agent", "scout"); code != 0 {
			t.Fatalf("%q: %d %s %s", msg, code, out, errs)
		}
	}
	code, first, errs := e.cli("", "memory", "export")
	if code != 0 || strings.Count(first, "\n") != 3 || !strings.Contains(errs, "3 blocks") {
		t.Fatalf("export: %d\n%s\n%s", code, first, errs)
	}
	file := filepath.Join(t.TempDir(), "mem.jsonl")
	os.WriteFile(file, []byte(first), 0o644)
	other := newRunEnv(t, "")
	if code, out, errs := other.cli("", "memory", "import", file); code != 0 || !strings.Contains(out, "imported 3 blocks") {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	_, second, _ := other.cli("", "memory", "export")
	if first != second {
		t.Errorf("export → import → export differs:\n%s\n---\n%s", first, second)
	}
	if code, _, errs := other.cli("", "memory", "import", file); code != 1 || !strings.Contains(errs, "nothing was imported") {
		t.Errorf("importing taken names: %d %s", code, errs)
	}
	broken := filepath.Join(t.TempDir(), "broken.jsonl")
	os.WriteFile(broken, []byte(strings.Replace(first, `"versions"`, `"verzions"`, 1)), 0o644)
	fresh := newRunEnv(t, "")
	if code, _, errs := fresh.cli("", "memory", "import", broken); code != 1 || !strings.Contains(errs, "line 1") {
		t.Errorf("a broken file: %d %s", code, errs)
	}
	if _, out, _ := fresh.cli("", "memory", "ls"); !strings.Contains(out, "no memory blocks") {
		t.Errorf("a broken import wrote something:\n%s", out)
	}
	// From stdin too.
	if code, _, errs := fresh.cli(first, "memory", "import", "-"); code != 0 {
		t.Errorf("import -: %d %s", code, errs)
	}
}

func TestRulesCmd(t *testing.T) {
	e := newRunEnv(t, "")
	_, out, _ := e.cli("Checking.\n/recall important ?ask\n", "run", "--json", "--agent", "worker")
	id := fmt.Sprint(results(t, out)[0]["pending"])
	code, out, errs := e.cli("", "deny", id, "no", "digging", "--always", "--dry-run")
	if code != 0 || !strings.Contains(errs, "standing rule for #"+id+": deny agent=worker verb=recall op=search") || strings.Contains(out, "denied") {
		t.Fatalf("--dry-run: %d %s %s", code, out, errs)
	}
	code, out, errs = e.cli("", "deny", id, "no", "digging", "--always")
	if code != 0 || !strings.Contains(errs, "standing rule for #"+id) || !strings.Contains(out, `saved standing rule #1: deny agent=worker verb=recall op=search target="" args=* note="no digging"`) {
		t.Fatalf("deny --always: %d\n%s\n%s", code, out, errs)
	}
	_, out, _ = e.cli("Saving.\n/recall + \"important fact\"\n", "run", "--json", "--agent", "worker")
	if rs := results(t, out); rs[0]["status"] != "ok" {
		t.Errorf("the rule for a search denies an insert: %v", rs[0])
	}
	code, out, _ = e.cli("Looking.\n/recall important\n", "run", "--json", "--agent", "worker")
	if rs := results(t, out); code != 0 || rs[0]["status"] != "denied" || !strings.Contains(rs[0]["output"].(string), `owner said: "no digging"`) {
		t.Errorf("the search is not denied with the reason: %d %v", code, rs[0])
	}
	code, out, _ = e.cli("", "rules")
	if code != 0 || !strings.Contains(out, "#1") || !strings.Contains(out, "no digging") || !strings.Contains(out, "search") {
		t.Errorf("rules:\n%s", out)
	}
	if code, out, _ = e.cli("", "rules", "add", "allow", "--agent", "worker", "--verb", "fetch", "--args", "https://go.dev/*", "--json"); code != 0 || !strings.Contains(out, `"args":"https://go.dev/*"`) {
		t.Errorf("rules add: %d %s", code, out)
	}
	if code, _, errs := e.cli("", "rules", "add", "allow", "--verb", "recal"); code != 2 || !strings.Contains(errs, "did you mean /recall?") {
		t.Errorf("a misspelled verb: %d %s", code, errs)
	}
	if code, out, _ := e.cli("", "rules", "rm", "1"); code != 0 || !strings.Contains(out, "removed standing rule #1") {
		t.Errorf("rules rm: %d %s", code, out)
	}
	if code, _, _ := e.cli("", "rules", "rm", "1"); code != 1 {
		t.Errorf("removing a removed rule: exit %d", code)
	}
	_, out, _ = e.cli("Looking.\n/recall important\n", "run", "--json", "--agent", "worker")
	if rs := results(t, out); rs[0]["status"] != "ok" {
		t.Errorf("a removed rule still denies: %v", rs[0])
	}
	_, out, _ = e.cli("", "rules", "--json")
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, `"verb":"fetch"`) {
		t.Errorf("rules --json:\n%s", out)
	}
	// Approve --always with a pattern a person widened on purpose.
	_, out, _ = e.cli("Fetching.\n/recall notes + \"x\" !\n", "run", "--json", "--agent", "scout")
	id = fmt.Sprint(results(t, out)[0]["pending"])
	code, out, errs = e.cli("", "approve", id, "--always", "--args", "*")
	if code != 0 || !strings.Contains(errs, "args=*") || !strings.Contains(out, "saved standing rule") {
		t.Errorf("approve --always --args: %d %s %s", code, out, errs)
	}
	if code, _, _ := e.cli("", "approve", id, "--args", "*"); code != 2 {
		t.Errorf("--args without --always: exit %d", code)
	}
}

func TestRunCmdResultsAndExitStatus(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "notify.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho 'notify: starting' >&2\necho 'notify: no such channel' >&2\nexit 3\n"), 0o755)
	e := newRunEnv(t, fmt.Sprintf("[exec.send.targets.chan]\ntype = \"command\"\ncommand = [%q]\n[exec.send.routes]\nchannel = \"chan\"\n", script))
	in := `{"id":"m1","text":"Saving.\n/recall + \"x\"\n","agent":"scout","model":"m","session":"s"}` + "\n" +
		`{"id":7,"text":"Telling.\n/send @channel @ops \"deploy\"\n"}` + "\n"
	code, out, _ := e.cli(in, "run", "--jsonl", "--json", "--agent", "default-agent")
	rs := results(t, out)
	if code != 1 || len(rs) != 2 {
		t.Fatalf("exit %d (want 1: an action ended in error):\n%s", code, out)
	}
	if rs[0]["id"] != "m1" || rs[0]["agent"] != "scout" || rs[0]["model"] != "m" || rs[0]["session"] != "s" || rs[1]["id"] != float64(7) || rs[1]["agent"] != "default-agent" {
		t.Errorf("results do not carry their message's id and metadata:\n%s", out)
	}
	o := rs[1]["output"].(string)
	if rs[1]["code"] != "COMMAND_FAILED" || !strings.Contains(o, "exited with status 3") || !strings.Contains(o, "no such channel") {
		t.Errorf("the command's failure lost its cause: %v", rs[1])
	}
	cmd, _ := rs[1]["data"].(map[string]any)["command"].(map[string]any)
	if cmd["exit_code"] != float64(3) || !strings.Contains(fmt.Sprint(cmd["stderr"]), "no such channel") {
		t.Errorf("the cause is not in the data: %v", rs[1]["data"])
	}
	for msg, want := range map[string]int{
		"Fine.\n/recall + \"y\"\n":                0,
		"Queued.\n/recall + \"y\" !\n":            0,
		"Unknown.\n/frobnicate x\n":               1,
		"Patch.\n/recall patch nothing\n":         1,
		"Mention only: I could /frobnicate.\n":    0,
		"Halting.\n/halt \"x\" !\n":               0, // denied: no authority, not an error
		"Two.\n/recall + \"z\"\n/calc 1/0\n":      1,
		"Reconsidered.\n/frobnicate\nActually no": 0,
	} {
		if code, out, _ := e.cli(msg, "run"); code != want {
			t.Errorf("%q: exit %d, want %d\n%s", msg, code, want, out)
		}
	}
}

// TestRunCmdWebhookFailureCause: a webhook's non-2xx status and the start
// of its body reach the result, escaped of control characters.
func TestRunCmdWebhookFailureCause(t *testing.T) {
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		fmt.Fprint(w, "{\"error\": \"channel archived\x1b[31m\",\n \"retry\": false}")
	}))
	defer hook.Close()
	e := newRunEnv(t, fmt.Sprintf("[exec.send.targets.ops]\ntype = \"webhook\"\nurl = %q\n[exec.send.routes]\nchannel = \"ops\"\n", hook.URL))
	code, out, _ := e.cli("Telling.\n/send @channel \"deploy\"\n", "run", "--json")
	rs := results(t, out)
	o := rs[0]["output"].(string)
	if code != 1 || rs[0]["code"] != "HTTP_STATUS" || !strings.Contains(o, "500 Internal Server Error") || !strings.Contains(o, `channel archived`) || strings.ContainsRune(o, 0x1b) || strings.Contains(o, "\n") {
		t.Errorf("the webhook's answer is lost or unescaped: %d %q", code, o)
	}
	h, _ := rs[0]["data"].(map[string]any)["http"].(map[string]any)
	if h["status"] != float64(500) || !strings.Contains(fmt.Sprint(h["body"]), `"retry": false`) {
		t.Errorf("data: %v", rs[0]["data"])
	}
}
