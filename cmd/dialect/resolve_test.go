package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func runResolveCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runMain(context.Background(), &stdio{in: strings.NewReader(""), out: &out, err: &errb}, append([]string{"resolve"}, args...))
	return code, out.String(), errb.String()
}

func TestResolveCmdJSON(t *testing.T) {
	code, out, errs := runResolveCmd(t, "serch", "/recalled", "aprove", "remember", "sеarch", "--json", "Search")
	if code != 1 {
		t.Fatalf("exit %d (stderr %q), want 1: some words do not resolve", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 6 {
		t.Fatalf("got %d lines, want 6:\n%s", len(lines), out)
	}
	type obj struct {
		Input      string            `json:"input"`
		Verb       *string           `json:"verb"`
		Tier       string            `json:"tier"`
		Score      float64           `json:"score"`
		Candidates []json.RawMessage `json:"candidates"`
		Code       string            `json:"code"`
	}
	want := []struct {
		input, verb, tier, code string
		cands                   int
	}{
		{"serch", "search", "edit", "", 0},
		{"/recalled", "recall", "morph", "", 0},
		{"aprove", "", "", "UNKNOWN_VERB", 1},
		{"remember", "", "", "AMBIGUOUS_VERB", 2},
		{"sеarch", "", "", "MIXED_SCRIPT", 0},
		{"Search", "search", "case", "", 0},
	}
	for i, line := range lines {
		var o obj
		var raw map[string]any
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		for _, k := range []string{"input", "verb", "tier", "score", "candidates", "code"} {
			if _, ok := raw[k]; !ok {
				t.Errorf("line %d lacks %q: %s", i+1, k, line)
			}
		}
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatal(err)
		}
		w := want[i]
		gotVerb := ""
		if o.Verb != nil {
			gotVerb = *o.Verb
		}
		if o.Input != w.input || gotVerb != w.verb || o.Tier != w.tier || o.Code != w.code || len(o.Candidates) != w.cands {
			t.Errorf("line %d = %s, want %+v", i+1, line, w)
		}
		if w.verb == "" && raw["verb"] != nil {
			t.Errorf("line %d: verb must be null: %s", i+1, line)
		}
	}
}

func TestResolveCmdText(t *testing.T) {
	code, out, _ := runResolveCmd(t, "searching")
	if code != 0 || !strings.Contains(out, "searching\tsearch\tmorph") {
		t.Errorf("exit %d, output %q", code, out)
	}
	code, out, _ = runResolveCmd(t, "dney")
	if code != 1 || !strings.Contains(out, "did you mean /deny?") {
		t.Errorf("exit %d, output %q", code, out)
	}
}

func TestResolveCmdEscapes(t *testing.T) {
	_, out, _ := runResolveCmd(t, "ev\x1b[2Jil")
	if strings.Contains(out, "\x1b") || !strings.Contains(out, `ev\x1b[2Jil`) {
		t.Errorf("control characters reach the terminal: %q", out)
	}
}

func TestResolveCmdUsage(t *testing.T) {
	if code, _, errs := runResolveCmd(t); code != 2 || !strings.Contains(errs, "usage:") {
		t.Errorf("no words: exit %d, stderr %q", code, errs)
	}
	if code, _, _ := runResolveCmd(t, "--nope", "x"); code != 2 {
		t.Errorf("bad flag: exit %d", code)
	}
}
