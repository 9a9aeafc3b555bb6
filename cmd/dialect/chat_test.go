package main

import (
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect/internal/wire/wiretest"
	"github.com/pattern-dialect/dialect/turn"
)

// chatScript acts on the first user line (a calculation, or a message that
// needs approval on the second), then answers with what came back.
func chatScript(s wiretest.Seen) wiretest.Answer {
	last := s.Messages[len(s.Messages)-1].Text
	switch {
	case strings.HasPrefix(last, turn.Header):
		_, out, _ := strings.Cut(last, " → ")
		return wiretest.Answer{Text: "Noted: " + strings.ReplaceAll(strings.TrimSpace(out), "\n", " ")}
	case strings.Contains(last, "tell"):
		return wiretest.Answer{Text: "I'll tell them.\n/send @user \"build is green\" !\n"}
	}
	return wiretest.Answer{Text: "Computing.\n/calc 6 * 7\n"}
}

func TestChatScripted(t *testing.T) {
	for _, api := range []string{"chat", "responses", "messages"} {
		t.Run(api, func(t *testing.T) {
			srv := wiretest.New(t, chatScript)
			e := newRunEnv(t, "")
			code, out, errOut := e.cli("what is 6 * 7\ntell the user the build is green\n", "chat", "--upstream", srv.URL+"/v1", "--model", "m", "--api", api)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			want := "Computing.\n  → /calc ok: 42\nNoted: ok   42\n" +
				"I'll tell them.\n  → /send pending PENDING_APPROVAL: /send needs approval (marked ! (serious)) — queued as #1\n" +
				"Noted: pending #1: /send needs approval (marked ! (serious)) — queued as #1. It runs once the owner approves it; do not write it again.\n"
			if out != want {
				t.Fatalf("stdout\n%q\nwant\n%q", out, want)
			}
			if n := len(srv.Requests()); n != 4 {
				t.Fatalf("%d requests", n)
			}
			code, out, _ = e.cli("", "pending")
			if code != 0 || !strings.Contains(out, "#1") {
				t.Fatalf("not queued: %s", out)
			}
		})
	}
}

func TestChatUsage(t *testing.T) {
	e := newRunEnv(t, "")
	if code, _, errOut := e.cli("", "chat", "--model", "m"); code != 2 || !strings.Contains(errOut, "--upstream") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if code, _, _ := e.cli("", "chat", "--upstream", "http://x", "--model", "m", "--api", "soap"); code != 2 {
		t.Fatalf("exit %d", code)
	}
}
