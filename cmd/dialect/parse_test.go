package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func parseRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runMain(context.Background(), &stdio{in: strings.NewReader(""), out: &out, err: &errb}, append([]string{"parse"}, args...))
	return code, out.String(), errb.String()
}

// parseTestConfig writes a dialect.toml with custom verbs, one of them
// with a grammar file beside it, and returns its path.
func parseTestConfig(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "grammars"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "grammars", "papers.agr"), []byte(
		`<Start> = papers about $(terms:wildcard) -> { terms, domains: ["archival"] };`+"\n"), 0o644))
	cfg := `
[dialect.verbs.recall]
extra_aliases = ["memorize", "jot down"]

[dialect.verbs.notify]
aliases = ["alert", "ping", "heads up"]
maps_to = "send"
default_target = { type = "agent", id = "anchor" }
description = "Quick notification to the coordinator"
examples = ["/notify something weird happened"]

[dialect.verbs.shame]
aliases = ["call out", "roast"]
maps_to = "send"
default_target = { type = "bluesky" }
template = "shame post template: {content}"
requires_permission = true

[dialect.verbs.papers]
maps_to = "search"
grammar = { file = "grammars/papers.agr", start = "Start" }
`
	path := filepath.Join(dir, "dialect.toml")
	must(os.WriteFile(path, []byte(cfg), 0o644))
	return path
}

func TestParseCmdJSON(t *testing.T) {
	cfg := parseTestConfig(t)
	for _, tt := range []struct {
		text, want string
		exit       int
	}{
		{`/recall what is due?`, `{"verb":"recall","intent":{"kind":"recall","op":"search","query":"what is due?"},"code":"","message":"","token":"recall","read_only":true}`, 0},
		{`/recall project_notes`, `{"verb":"recall","intent":{"kind":"recall","op":"read","block":"project_notes"},"code":"","message":"","token":"recall","read_only":true}`, 0},
		{`/jot down + "buy milk"`, `{"verb":"recall","intent":{"kind":"recall","op":"insert","content":"buy milk"},"code":"","message":"","token":"jot down","read_only":false}`, 0},
		{`/search deadlines in archivs`, `{"verb":"search","intent":null,"code":"UNKNOWN_MODIFIER","message":"/search in archivs — did you mean 'in archival'?","token":"search","pos":14}`, 1},
		{`/fetch`, `{"verb":"fetch","intent":null,"code":"MISSING_ARG","message":"/fetch needs a URL.","token":"fetch"}`, 1},
		{`/context human "old" -> "new"`, `{"verb":"context","intent":{"kind":"context","op":"replace","block":"human","old":"old","new":"new"},"code":"","message":"","token":"context","read_only":false}`, 0},
		{`/remember human + "tea"`, `{"verb":null,"intent":null,"code":"AMBIGUOUS_VERB","message":"I couldn't tell if you meant /recall or /context — which one?","token":"remember","candidates":["recall","context"]}`, 1},
		{`/remember the launch date`, `{"verb":"recall","intent":{"kind":"recall","op":"search","query":"the launch date"},"code":"","message":"","token":"remember","read_only":true}`, 0},
		{`/frobnicate x`, `{"verb":null,"intent":null,"code":"UNKNOWN_VERB"`, 1},
		{`/recall x ?akc`, `{"verb":"recall","intent":null,"code":"PERMISSION_MARKER_INVALID","message":"?akc is not a permission marker (., ?, ?ask, !, ?public, ?private)","token":"recall"}`, 1},
		{`/heads up partner seems stressed`, `{"verb":"notify","intent":{"kind":"custom","verb":"notify","maps_to":"send","args":{"content":"partner seems stressed"},"target":{"type":"agent","id":"anchor"},"inner":{"kind":"send","domain":"agent","target":"anchor","content":"partner seems stressed"}},"code":"","message":"","token":"heads up","read_only":false}`, 0},
		{`/roast "spam" !`, `{"verb":"shame","intent":{"kind":"custom","verb":"shame","maps_to":"send","args":{"content":"spam"},"template_applied":"shame post template: spam","target":{"type":"bluesky"},"inner":{"kind":"send","domain":"bluesky","content":"shame post template: spam"}},"code":"","message":"","token":"roast","read_only":false}`, 0},
		{`/papers papers about parsing`, `{"verb":"papers","intent":{"kind":"custom","verb":"papers","maps_to":"search","args":{"domains":["archival"],"terms":"parsing"},"inner":{"kind":"search","terms":"parsing","domains":["archival"]}},"code":"","message":"","token":"papers","read_only":true}`, 0},
		{`/search budget -> /send @user @last.output`, `{"verb":"search","intent":{"kind":"search","terms":"budget"},"code":"","message":"","token":"search","chain":"/send @user @last.output","read_only":true}`, 0},
		{`calc 20% of 350`, `{"verb":"calc","intent":{"kind":"calc","expr":"20% of 350"},"code":"","message":"","token":"calc","read_only":true}`, 0},
		{`/get project_notes`, `{"verb":"recall","intent":{"kind":"recall","op":"read","block":"project_notes"},"code":"","message":"","token":"get","read_only":true}`, 0},
		{`/search budget > two weeks`, `{"verb":"search","intent":null,"code":"MALFORMED_SYNTAX","message":"/search: \"two\" at column 10 is not a number of time units (> 2 weeks)","token":"search","pos":10}`, 1},
		{`/usr/bin/env`, `{"verb":null,"intent":null,"code":"MALFORMED_SYNTAX"`, 1},
	} {
		code, out, errs := parseRun(t, tt.text, "--json", "--config", cfg, "--block", "project_notes")
		if code != tt.exit || !strings.HasPrefix(strings.TrimSpace(out), tt.want) {
			t.Errorf("parse %q: exit %d (want %d)\n got %s want %s\n%s", tt.text, code, tt.exit, out, tt.want, errs)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Errorf("parse %q: output is not JSON: %v", tt.text, err)
		}
	}
}

func TestParseCmdHuman(t *testing.T) {
	code, out, _ := parseRun(t, "/calc 1 + 1", "--config", parseTestConfig(t))
	if code != 0 || out != "/calc → {\"kind\":\"calc\",\"expr\":\"1 + 1\"}\n" {
		t.Errorf("exit %d: %q", code, out)
	}
	code, out, _ = parseRun(t, "/fetch", "--config", parseTestConfig(t))
	if code != 1 || out != "MISSING_ARG: /fetch needs a URL.\n" {
		t.Errorf("exit %d: %q", code, out)
	}
}

func TestParseCmdUsage(t *testing.T) {
	if code, _, _ := parseRun(t); code != 2 {
		t.Errorf("no text: exit %d, want 2", code)
	}
	bad := filepath.Join(t.TempDir(), "dialect.toml")
	os.WriteFile(bad, []byte("[dialect.verbs.x]\nmaps_to = \"teleport\"\n"), 0o644)
	code, _, errs := parseRun(t, "/x y", "--config", bad)
	if code != 2 || !strings.Contains(errs, "dialect.verbs.x.maps_to") {
		t.Errorf("bad config: exit %d: %s", code, errs)
	}
	missing := filepath.Join(t.TempDir(), "dialect.toml")
	os.WriteFile(missing, []byte("[dialect.verbs.x]\nmaps_to = \"search\"\ngrammar = { file = \"nope.agr\", start = \"Start\" }\n"), 0o644)
	code, _, errs = parseRun(t, "/x y", "--config", missing)
	if code != 2 || !strings.Contains(errs, "nope.agr does not exist") || !strings.Contains(errs, ":3:") {
		t.Errorf("missing grammar: exit %d: %s", code, errs)
	}
}
