package verbs

import "github.com/pattern-dialect/dialect/fuzzy"

// Strictness says how forgiving verb resolution may be for a verb
// (docs/language.md §4). It is the resolver's own type, so that the registry's
// entries pass to fuzzy unchanged.
type Strictness = fuzzy.Strictness

// The strictness levels.
const (
	// Normal verbs resolve through every tier with the normal edit allowance.
	Normal = fuzzy.Normal
	// Loose verbs resolve through every tier with a wider edit allowance.
	Loose = fuzzy.Loose
	// Strict verbs resolve by exact or case-insensitive match only.
	Strict = fuzzy.Strict
)

// Spec is the vocabulary entry of one verb: its canonical name, the aliases
// that reach it, and how strictly it resolves.
type Spec struct {
	Name        string     // canonical verb, lower case
	Aliases     []string   // other names, possibly several words ("search web")
	Strictness  Strictness // how forgiving resolution may be
	Description string     // one line, for instructions and help
}

// Builtin returns the built-in verbs of docs/language.md §5. The slice is new on
// every call, so callers may extend it.
func Builtin() []Spec {
	return []Spec{
		{"recall", []string{"remember", "store", "save", "archive", "forget"}, Loose, "long-term memory: read, search, insert, append, delete, patch, history, restore"},
		{"context", []string{"note", "update", "remember"}, Normal, "working memory, always in the prompt"},
		{"search", []string{"find", "query", "look", "lookup"}, Loose, "search memory and conversations"},
		{"send", nil, Normal, "send a message to a user, agent or channel"},
		{"reply", nil, Normal, "reply in the current thread"},
		{"post", nil, Normal, "post to a platform"},
		{"dm", nil, Normal, "direct message to the user"},
		{"tell", nil, Normal, "tell another agent"},
		{"fetch", []string{"get"}, Normal, "fetch a URL as text or HTML"},
		{"web", []string{"search web", "web search", "google", "look up"}, Normal, "search the web"},
		{"calc", []string{"calculate", "compute", "math"}, Normal, "evaluate arithmetic and unit conversions"},
		{"approve", []string{"allow", "permit", "ok", "yes"}, Strict, "approve a pending action"},
		{"deny", []string{"reject", "block", "no"}, Strict, "deny a pending action"},
		{"escalate", nil, Normal, "escalate a pending action with a reason"},
		{"cancel", []string{"abort", "nevermind", "stop"}, Normal, "cancel this message's earlier actions, or a pending action"},
		{"halt", nil, Strict, "stop the runtime"},
	}
}

// builtinExamples are the few-shot examples of the built-in verbs, shown
// in the model instructions. The examples of the verbs that deliver
// (send, reply, post, dm, tell) are made for the routes in force instead
// (see Scope). Every example is checked by the tests: it parses, and it
// runs against a scratch store prepared as in the runtime's instruction
// tests (blocks project_notes with two versions, old_notes, working block
// human, pending action #12).
var builtinExamples = map[string][]string{
	"recall": {`/recall project deadlines`, `/recall + "Ana prefers morning meetings" #people`, `/recall project_notes + "budget approved"`,
		`/recall history project_notes`, `/recall read project_notes v1`, `/recall restore project_notes v1`, `/recall -old_notes`,
		"/recall patch project_notes\n```diff\n@@ -1 +1 @@\n-deadline is Monday\n+deadline is Friday\n```"},
	"context":  {`/context human + "prefers short answers"`, `/context human "likes tea" -> "likes coffee"`},
	"search":   {`/search deadline in conversations > 2 weeks`, `/search budget #work @7d ^5`, `/search #people &brief`},
	"fetch":    {`/fetch https://go.dev/doc/ html`, `/fetch continue`},
	"web":      {`/web go 1.26 release notes`},
	"calc":     {`/calc 20% of 350`, `/calc 5 feet to meters`},
	"approve":  {`/approve 12`, `/approve 12 always`},
	"deny":     {`/deny 12 "too risky"`},
	"escalate": {`/escalate 12 "needs a human decision"`},
	"cancel":   {`/cancel`, `/cancel 12`},
	"halt":     {`/halt "runaway loop" !`},
}

// builtinName is the built-in verb whose grammar parses v's arguments:
// itself, or for a custom verb the built-in it maps to.
func builtinName(v *Verb) string {
	if v.Custom {
		return v.MapsTo
	}
	return v.Name
}
