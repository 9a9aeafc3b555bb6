package verbs

import (
	"context"
	"fmt"
	"testing"

	"github.com/pattern-dialect/dialect/intent"
)

func TestScratch(t *testing.T) {
	r, err := NewRegistry(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{
		{"recall", "project deadlines"}, {"recall", `+ "Ana prefers, mornings"`}, {"recall", `project_notes + "deadline moved"`},
		{"recall", "-old_notes"}, {"recall", "read my notes"}, {"recall", `"what is due?"`}, {"recall", "what is due?"},
		{"recall", "deadlines #work @7d ^5 *proj &md"}, {"recall", "append log @last.output"},
		{"context", `human + "prefers short"`}, {"context", `human "likes tea" -> "likes coffee"`}, {"context", "archive human"},
		{"context", "load formal"}, {"context", "swap persona formal"}, {"context", "human likes tea"},
		{"search", "deadline in conversations > 2 weeks"}, {"search", "what is due?"}, {"search", "in archivs"},
		{"search", "budget role:assistant everywhere"}, {"search", "in archival deadlines"},
		{"send", `@agent @anchor "hi there"`}, {"send", "hello"}, {"send", "@usr hi"},
		{"fetch", "https://x.org html"}, {"fetch", "continue"}, {"fetch", ""}, {"fetch", "notes"},
		{"calc", "radius = 5; pi * radius^2"}, {"approve", "12 always"}, {"approve", "#12"}, {"approve", "12 maybe"},
		{"deny", `12 "too risky"`}, {"escalate", "12"}, {"cancel", ""}, {"halt", `"loop"`},
		{"recall", `"unterminated`}, {"tell", "anchor hi"}, {"post", "@bluesky hi"}, {"dm", "hi"}, {"reply", "ok"},
	} {
		in, err := r.Parse(context.Background(), c[0], Input{Args: c[1], Marker: "!"})
		var b []byte
		if in != nil {
			b, _ = intent.Marshal(in)
		}
		fmt.Printf("/%s %s\n   %s %v\n", c[0], c[1], b, err)
	}
}
