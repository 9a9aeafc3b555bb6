package dialect

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// A strict verb spelled with letters that only case folding or
// normalisation take to ASCII never runs, even where a custom verb claims
// the same alias (DIALECT.md §4): each is refused with a suggestion and
// the pending action stays pending.
func TestStrictVerbLookalikesNeverRun(t *testing.T) {
	ctx := context.Background()
	rt := openRuntime(t, "[agents.anchor]\nauthority = [\"approve\", \"deny\"]\n\n"+
		"[dialect.verbs.greenlight]\naliases = [\"ok\"]\nmaps_to = \"approve\"\n")
	for _, tok := range []string{"o\u212a", "O\u212a", "bloc\u212a", "perm\u0130t", "permI\u0307t", "ye\u017f", "\uff4f\uff4b", "n\u00f6"} {
		res := run(t, rt, "Serious one.\n/recall + \"launch codes\" !\n")
		id := res[0].Pending
		out, err := rt.Run(ctx, Message{Text: fmt.Sprintf("/%s %d\n", tok, id), Agent: "anchor", Session: "s2"})
		if err != nil || len(out) != 1 {
			t.Fatalf("%+q: %v %+v", tok, err, out)
		}
		if out[0].Status == StatusOK || out[0].Code != "UNKNOWN_VERB" {
			t.Errorf("%+q %d: status %s code %s output %q; want UNKNOWN_VERB", tok, id, out[0].Status, out[0].Code, out[0].Output)
		}
		if !strings.Contains(out[0].Output, "did you mean /") {
			t.Errorf("%+q: output %q lacks a suggestion", tok, out[0].Output)
		}
	}
	// The ASCII spelling still works, case aside.
	res := run(t, rt, "Serious one.\n/recall + \"launch codes\" !\n")
	out, err := rt.Run(ctx, Message{Text: fmt.Sprintf("/APPROVE %d\n", res[0].Pending), Agent: "anchor", Session: "s2"})
	if err != nil || out[0].Status != StatusOK {
		t.Errorf("/APPROVE: %+v %v", out, err)
	}
}
