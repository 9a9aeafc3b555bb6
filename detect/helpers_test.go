package detect

import (
	"fmt"
	"strings"
	"testing"
)

// testVocab is docs/language.md §5's built-in vocabulary plus the custom
// multi-word aliases of its dialect.toml example.
func testVocab() *StaticVocabulary {
	m := map[string]string{}
	add := func(canon string, aliases ...string) {
		m[canon] = canon
		for _, a := range aliases {
			m[a] = canon
		}
	}
	add("recall", "remember", "store", "save", "archive", "forget", "jot down", "note to self")
	add("context", "note", "update")
	add("search", "find", "query", "look", "lookup")
	add("send")
	add("reply")
	add("post")
	add("dm")
	add("tell")
	add("fetch", "get")
	add("web", "search web", "google", "look up")
	add("calc", "calculate", "compute", "math")
	add("approve", "allow", "permit", "ok", "yes")
	add("deny", "reject", "block", "no")
	add("escalate")
	add("cancel", "abort", "nevermind", "stop")
	add("halt")
	add("notify", "alert", "ping", "heads up")
	return NewStaticVocabulary(m)
}

func scanString(msg string) []Action {
	return Scan(testVocab(), DefaultOptions(), []byte(msg))
}

// brief renders an action compactly for comparisons and failure messages.
func brief(a Action) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", a.Token)
	if a.Verb != "" && a.Verb != a.Token {
		fmt.Fprintf(&b, "=%s", a.Verb)
	}
	if a.Args != "" {
		fmt.Fprintf(&b, " args=%q", a.Args)
	}
	if a.Kind != NoContent {
		fmt.Fprintf(&b, " %s=%q", a.Kind, a.Content)
	}
	if a.Marker != "" {
		fmt.Fprintf(&b, " marker=%s", a.Marker)
	}
	if a.Chain != "" {
		fmt.Fprintf(&b, " chain=%q", a.Chain)
	}
	if a.Do {
		b.WriteString(" do")
	}
	if a.Trailing {
		b.WriteString(" trailing")
	}
	if a.Inline {
		b.WriteString(" inline")
	}
	if a.Executable {
		b.WriteString(" EXEC")
	} else {
		fmt.Fprintf(&b, " (%s)", a.ReasonText())
	}
	return b.String()
}

func briefs(as []Action) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = brief(a)
	}
	return out
}

func dump(t *testing.T, msg string) {
	t.Helper()
	for _, s := range briefs(scanString(msg)) {
		t.Log(s)
	}
}
