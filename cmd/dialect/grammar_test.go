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

func grammarRun(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runMain(context.Background(), &stdio{in: strings.NewReader(stdin), out: &out, err: &errb}, args)
	return code, out.String(), errb.String()
}

func grammarFile(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const grammarCmdSrc = `
import { Cardinal };
<Start> = play $(t:wildcard) by $(a:wildcard) -> { act: "play", t, a }
        | (<Polite>)? stop -> { act: "stop" }
        | wait $(n:<Cardinal>) seconds -> { act: "wait", n };
`

func TestGrammarCmdCheck(t *testing.T) {
	good := grammarFile(t, "good.agr", grammarCmdSrc)
	if code, out, errs := grammarRun(t, "", "grammar", "check", good); code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("check good: code %d, out %q, err %q", code, out, errs)
	}
	bad := grammarFile(t, "bad.agr", "<Start> = play <Missing> -> 1;\n<Other> = $(x:<Nope>);\n")
	code, _, errs := grammarRun(t, "", "grammar", "check", bad)
	if code != 1 {
		t.Fatalf("check bad: code %d, want 1", code)
	}
	for _, want := range []string{"bad.agr:1:16:", "<Missing>", "bad.agr:2:11:", "<Nope>"} {
		if !strings.Contains(errs, want) {
			t.Errorf("check bad: stderr %q lacks %q", errs, want)
		}
	}
	// A quantifier after a rule reference is a warning, not an error.
	q := grammarFile(t, "q.agr", "<Start> = make (big | <Size>?) now -> 1;\n<Size> = quick;\n")
	code, out, errs := grammarRun(t, "", "grammar", "check", q)
	if code != 0 || !strings.Contains(out, "ok") || !strings.Contains(errs, "q.agr:1:23: warning: the ? after <Size>") {
		t.Errorf("check q: code %d, out %q, err %q", code, out, errs)
	}
	if _, _, errs := grammarRun(t, "", "grammar", "check", good); errs != "" {
		t.Errorf("check good: warnings %q", errs)
	}
	if code, _, _ := grammarRun(t, "", "grammar", "check"); code != 2 {
		t.Errorf("check without a file: code %d, want 2", code)
	}
	if code, _, _ := grammarRun(t, "", "grammar", "frobnicate"); code != 2 {
		t.Errorf("unknown action: code %d, want 2", code)
	}
}

func TestGrammarCmdMatchJSON(t *testing.T) {
	g := grammarFile(t, "g.agr", grammarCmdSrc)
	in := "play Stand by Me by Ben E. King\nplease stop\nwait twenty-one seconds\nnothing here\n"
	code, out, errs := grammarRun(t, in, "grammar", "match", g, "--json")
	if code != 0 {
		t.Fatalf("code %d, stderr %q", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("want 4 lines, got %q", out)
	}
	want := []string{
		`{"input":"play Stand by Me by Ben E. King","matches":[{"a":"Ben E. King","act":"play","t":"Stand by Me"},{"a":"Me by Ben E. King","act":"play","t":"Stand"}]}`,
		`{"input":"please stop","matches":[{"act":"stop"}]}`,
		`{"input":"wait twenty-one seconds","matches":[{"act":"wait","n":21}]}`,
		`{"input":"nothing here","matches":[]}`,
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, lines[i], w)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &v); err != nil {
			t.Errorf("line %d is not JSON: %v", i+1, err)
		}
	}
}

// With --compat typeagent, phrase sets match nothing (TypeAgent's AST
// matcher), so "please stop" no longer matches; by default they consume
// their phrases.
func TestGrammarCmdMatchCompat(t *testing.T) {
	g := grammarFile(t, "g.agr", grammarCmdSrc)
	_, out, _ := grammarRun(t, "please stop\nstop\n", "grammar", "match", "--compat", "typeagent", g, "--json")
	want := `{"input":"please stop","matches":[]}` + "\n" + `{"input":"stop","matches":[{"act":"stop"}]}` + "\n"
	if out != want {
		t.Errorf("compat:\n got %s\nwant %s", out, want)
	}
	if code, _, _ := grammarRun(t, "", "grammar", "match", g, "--compat", "nfa"); code != 2 {
		t.Errorf("unknown compat: code %d, want 2", code)
	}
}

func TestGrammarCmdMatchHuman(t *testing.T) {
	g := grammarFile(t, "g.agr", grammarCmdSrc)
	_, out, _ := grammarRun(t, "play x by y\nplay\n", "grammar", "match", g)
	if !strings.Contains(out, `* {"a":"y","act":"play","t":"x"}`) {
		t.Errorf("missing best match in %q", out)
	}
	if !strings.Contains(out, "no match") || !strings.Contains(out, "expected one of") {
		t.Errorf("missing explanation in %q", out)
	}
}

func TestGrammarCmdWorkLimit(t *testing.T) {
	g := grammarFile(t, "g.agr", grammarCmdSrc)
	code, out, _ := grammarRun(t, "play a by b by c by d by e\n", "grammar", "match", g, "--json", "--work-limit", "5")
	if code != 1 || !strings.Contains(out, `"error":"grammar match: more than 5 steps`) {
		t.Errorf("code %d, out %q", code, out)
	}
}

// A quantifier directly after a rule reference quantifies it by default;
// with --compat typeagent it is literal text after the reference, as
// TypeAgent's parser reads it.
func TestGrammarCmdMatchCompatRuleQuantifier(t *testing.T) {
	g := grammarFile(t, "q.agr", "<Start> = make <Size>? -> 1;\n<Size> = quick;\n")
	_, out, _ := grammarRun(t, "make\nmake quick\nmake quick?\n", "grammar", "match", g, "--json")
	// (A "?" at the end of the input is a separator: it matches too.)
	want := `{"input":"make","matches":[1]}` + "\n" + `{"input":"make quick","matches":[1]}` + "\n" + `{"input":"make quick?","matches":[1]}` + "\n"
	if out != want {
		t.Errorf("default:\n got %s\nwant %s", out, want)
	}
	_, out, _ = grammarRun(t, "make\nmake quick\nmake quick?\n", "grammar", "match", "--compat", "typeagent", g, "--json")
	want = `{"input":"make","matches":[]}` + "\n" + `{"input":"make quick","matches":[]}` + "\n" + `{"input":"make quick?","matches":[1]}` + "\n"
	if out != want {
		t.Errorf("compat:\n got %s\nwant %s", out, want)
	}
}
