package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect/codes"
)

// agreeConfig has custom verbs of both kinds (mapped and claimed aliases)
// and routes every delivery to stdout, which `run --json` leaves in the
// result: running a line has no effect outside the test's store.
const agreeConfig = `
[dialect.verbs.recall]
extra_aliases = ["jot down", "memorize"]

[dialect.verbs.notify]
aliases = ["heads up", "ping"]
maps_to = "send"
default_target = { type = "agent", id = "anchor" }

[dialect.verbs.retire]
aliases = ["decommission"]
maps_to = "send"
default_target = { type = "agent", id = "anchor" }
strictness = "strict"

[exec.send.routes]
"*" = "stdout"
`

// agreeLines are action lines of every kind the pipeline decides on:
// every built-in verb's examples, then for each verb its bare form, a
// misspelling, other cases and a bad marker, and lines made to fail at
// each stage before the gate. The test adds nothing by hand to the
// comparison: it takes what parse and run say.
func agreeLines(t *testing.T, e *runEnv) []string {
	t.Helper()
	_, out, errs := e.cli("", "verbs", "--json")
	var lines []string
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var v struct {
			Name     string   `json:"name"`
			Examples []string `json:"examples"`
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("verbs --json: %v (%s)", err, errs)
		}
		names = append(names, v.Name)
		lines = append(lines, v.Examples...)
	}
	for _, n := range names {
		lines = append(lines,
			"/"+n,                            // bare: a missing argument for most
			"/"+strings.ToUpper(n)+" notes",  // case
			"/"+swap(n)+" project notes",     // a transposition: edit tier, or a strict near miss
			"/"+n+" x ?akc",                  // a marker that is not one
			"/"+n+"ed the launch",            // an inflection
			"/"+n+" \"unterminated quote at", // malformed
		)
	}
	return append(lines,
		"/calcel", "/calcel 12", "/remeber the launch date", `/remember human "tea" -> "coffee"`,
		"/remember human + \"tea\"", "/serch budget", "/frobnicate x", "/аpprove 3", "/recal project",
		"/search in archivs x", "/recall patch plan", "/fetch", "/fetch ftp://x", "/fetch http://127.0.0.1:9/x",
		"/send @nowhere \"x\"", "/send @agent @ANCHOR \"x\"", "/tell @anchor \"x\"", "/heads up partner seems stressed",
		"/jot down buy milk", "/decommission billing", "/retrie billing", "/look up the weather",
		"/web", "/calc 1/0", "/calc 2 +* 3", "/context human \"x\" -> \"y\"", "/recall -old_notes",
		"/escalate 5", "/cancel 99", "/recall x ?ask", "/recall x !", "/recall + \"x\" ?",
	)
}

// swap transposes the second and third letters: "recall" → "rcecall".
func swap(s string) string {
	if len(s) < 3 {
		return s + s
	}
	b := []byte(s)
	b[1], b[2] = b[2], b[1]
	return string(b)
}

// TestParseAndRunAgree runs the same action lines through `dialect parse`
// and `dialect run` and checks that both name the same verb and, for a
// failure before the gate, the same code: the two commands share one
// pipeline, and parse stops where run goes on to the gate and the
// executor. A line run stops later (queued, denied, or failed in its
// executor: a world code) parses cleanly.
func TestParseAndRunAgree(t *testing.T) {
	e := newRunEnv(t, agreeConfig)
	lines := agreeLines(t, e)
	if len(lines) < 100 {
		t.Fatalf("only %d lines", len(lines))
	}
	type outcome struct {
		verb string
		code codes.Code
	}
	var failed, ran int
	for _, line := range lines {
		_, pout, perrs := e.cli("", "parse", "--json", "--", line)
		var p struct {
			Verb *string    `json:"verb"`
			Code codes.Code `json:"code"`
		}
		if err := json.Unmarshal([]byte(pout), &p); err != nil {
			t.Fatalf("parse %q: %v (%s)", line, err, perrs)
		}
		_, rout, rerrs := e.cli(line+"\n", "run", "--json")
		rs := results(t, rout)
		if len(rs) != 1 {
			t.Fatalf("run %q: %d results (%s)", line, len(rs), rerrs)
		}
		r := rs[0]
		got := outcome{code: codes.Code(fmt.Sprint(r["code"]))}
		if r["code"] == nil {
			got.code = ""
		}
		if v, ok := r["verb"].(string); ok {
			got.verb = v
		}
		want := outcome{code: p.Code}
		if p.Verb != nil {
			want.verb = *p.Verb
		}
		// Run goes past parse: what stops it there (references, the
		// gate, the executor), parse has nothing to say about.
		switch r["stage"] {
		case nil, "detect", "resolve", "parse":
		default:
			want.code, got.code = "", "" // compared as "parse passed"
			if p.Code != "" {
				t.Errorf("%q: run went past parse (%v) but parse failed with %s", line, r["code"], p.Code)
				continue
			}
		}
		if got != want {
			t.Errorf("%q: run says /%s %s, parse says /%s %s", line, got.verb, got.code, want.verb, want.code)
		}
		if p.Code != "" {
			failed++
		} else {
			ran++
		}
	}
	t.Logf("%d lines: %d failed before the gate in both, %d passed parse", len(lines), failed, ran)
	if failed < 20 || ran < 20 {
		t.Errorf("the lines should exercise both outcomes: %d failed, %d passed", failed, ran)
	}
}
