package main

import (
	"context"
	"strings"
	"testing"
)

// TestGoVerb runs the example: the verb is in the instructions, resolves
// exactly, by edit distance and by its multi-word alias, runs through its
// executor, and is queued by the gate when marked "!".
func TestGoVerb(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"instructions: forms: /ticket TITLE [priority high|low]",
		`/ticket (ticket, tier exact): ok filed #1 "login page times out" (high), for scout`,
		`/ticket (tikcet, tier edit): ok filed #2 "search results are stale" (normal), for scout`,
		"/ticket (file issue, tier exact): pending /ticket needs approval",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
