package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func detectRun(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runMain(context.Background(), &stdio{in: strings.NewReader(stdin), out: &out, err: &errb}, append([]string{"detect"}, args...))
	return code, out.String(), errb.String()
}

const detectMsg = "Let me check.\nI could /Recall the notes.\n```\n/search in code\n```\n/do /look up weather\n" +
	"Done. Here is \"\"\"\n/jot down x\n/remember deadlines ?akc\n/frob x\n/RECALL + \"\"\"\nline\n\"\"\" -> /search y\n/calc 1/2\n"

func TestDetectCmdJSON(t *testing.T) {
	code, out, errs := detectRun(t, detectMsg, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	type rec struct {
		Verb       *string `json:"verb"`
		Token      string  `json:"token"`
		Line       int     `json:"line"`
		Executable bool    `json:"executable"`
		Reason     string  `json:"reason"`
		Do         bool    `json:"do"`
		Trailing   bool    `json:"trailing"`
		Tier       string  `json:"tier"`
		Args       string  `json:"args"`
		Content    string  `json:"content"`
		Chain      string  `json:"chain"`
	}
	var got []rec
	for _, l := range lines {
		var r rec
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		got = append(got, r)
	}
	str := func(s string) *string { return &s }
	want := []rec{
		{Verb: str("recall"), Token: "Recall", Line: 2, Reason: "mid-message", Tier: "case", Args: "the notes.", Content: "/search in code\n"}, // the fence on the next line is its content
		{Verb: str("web"), Token: "look up", Line: 6, Executable: true, Do: true, Tier: "exact", Args: "weather"},
		{Token: "jot", Line: 8, Reason: "unknown verb", Trailing: true, Args: "down x"},
		{Verb: str("recall"), Token: "remember", Line: 9, Reason: `invalid permission marker "?akc"`, Trailing: true, Tier: "exact", Args: "deadlines"},
		{Token: "frob", Line: 10, Reason: "unknown verb", Trailing: true, Args: "x"},
		{Verb: str("recall"), Token: "RECALL", Line: 11, Executable: true, Trailing: true, Tier: "case", Args: "+", Content: "line", Chain: "/search y"},
		{Verb: str("calc"), Token: "calc", Line: 14, Executable: true, Trailing: true, Tier: "exact", Args: "1/2"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d actions, want %d:\n%s", len(got), len(want), out)
	}
	for i := range want {
		g, w := got[i], want[i]
		if (g.Verb == nil) != (w.Verb == nil) || g.Verb != nil && *g.Verb != *w.Verb {
			t.Errorf("action %d: verb %v, want %v", i, g.Verb, w.Verb)
		}
		g.Verb, w.Verb = nil, nil
		if g != w {
			t.Errorf("action %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	if !strings.Contains(lines[0], `"verb":"recall"`) || !strings.Contains(lines[2], `"verb":null`) {
		t.Errorf("verb not encoded as a string or null:\n%s", out)
	}
}

// The output must be byte-identical for every --chunk N.
func TestDetectCmdChunkIdentical(t *testing.T) {
	_, whole, _ := detectRun(t, detectMsg, "--json")
	for n := 1; n <= len(detectMsg)+1; n++ {
		code, out, errs := detectRun(t, detectMsg, "--json", "--chunk", itoa(n))
		if code != 0 || out != whole {
			t.Fatalf("--chunk %d (exit %d, %s):\n%s\nwant\n%s", n, code, errs, out, whole)
		}
	}
}

func TestDetectCmdJSONL(t *testing.T) {
	in := `{"id": 7, "text": "Hello.\n/recall x"}` + "\n\n" + `{"id":"b","text":"no actions here"}` + "\n" + `{"id":[1],"text":"/search y\nwait, no"}`
	code, out, errs := detectRun(t, in, "--jsonl", "--chunk", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"id":7,"verb":"recall"`) || !strings.HasPrefix(lines[1], `{"id":[1],"verb":"search"`) {
		t.Fatalf("unexpected output:\n%s", out)
	}
	if !strings.Contains(lines[0], `"executable":true`) || !strings.Contains(lines[1], `"reason":"reconsidered: \"wait\""`) {
		t.Errorf("unexpected decisions:\n%s", out)
	}
}

func TestDetectCmdErrors(t *testing.T) {
	if code, _, errs := detectRun(t, `{"id":1,"text":"x"}`+"\nnot json\n", "--jsonl"); code != 1 || !strings.Contains(errs, "stdin line 2") {
		t.Errorf("bad JSON line: exit %d, %q", code, errs)
	}
	if code, _, errs := detectRun(t, `{"id":1}`, "--jsonl"); code != 1 || !strings.Contains(errs, `no "text"`) {
		t.Errorf("missing text: exit %d, %q", code, errs)
	}
	if code, _, _ := detectRun(t, "", "--chunk", "-1"); code != 2 {
		t.Errorf("negative chunk: exit %d, want 2", code)
	}
	if code, _, _ := detectRun(t, "", "extra"); code != 2 {
		t.Errorf("stray argument: exit %d, want 2", code)
	}
}

func TestDetectCmdHuman(t *testing.T) {
	code, out, _ := detectRun(t, "Sure.\n/recall \"x\x1b[31m\" !\n")
	if code != 0 || !strings.Contains(out, "2:1 /recall → recall  execute [trailing; marker !; quoted content") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if strings.ContainsRune(out, 0x1b) {
		t.Errorf("terminal escape reached the output: %q", out)
	}
	if _, out, _ := detectRun(t, "plain text\n"); out != "no actions\n" {
		t.Errorf("no actions: %q", out)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
