package verbs

// Strictness says how forgiving verb resolution may be for a verb
// (DIALECT.md §4).
type Strictness int

const (
	// Normal verbs resolve through every tier with the normal edit allowance.
	Normal Strictness = iota
	// Loose verbs resolve through every tier with a wider edit allowance.
	Loose
	// Strict verbs resolve by exact or case-insensitive match only.
	Strict
)

// String returns the strictness as written in dialect.toml.
func (s Strictness) String() string {
	switch s {
	case Loose:
		return "loose"
	case Strict:
		return "strict"
	default:
		return "normal"
	}
}

// Spec is the vocabulary entry of one verb: its canonical name, the aliases
// that reach it, and how strictly it resolves.
type Spec struct {
	Name        string     // canonical verb, lower case
	Aliases     []string   // other names, possibly several words ("search web")
	Strictness  Strictness // how forgiving resolution may be
	Description string     // one line, for instructions and help
}

// Builtin returns the built-in verbs of DIALECT.md §5. The slice is new on
// every call, so callers may extend it.
func Builtin() []Spec {
	return []Spec{
		{"recall", []string{"remember", "store", "save", "archive", "forget"}, Loose, "long-term memory: read, search, insert, append, delete, patch"},
		{"context", []string{"note", "update", "remember"}, Normal, "working memory, always in the prompt"},
		{"search", []string{"find", "query", "look", "lookup"}, Loose, "search memory and conversations"},
		{"send", nil, Normal, "send a message to a user, agent or channel"},
		{"reply", nil, Normal, "reply in the current thread"},
		{"post", nil, Normal, "post to a platform"},
		{"dm", nil, Normal, "direct message to the user"},
		{"tell", nil, Normal, "tell another agent"},
		{"fetch", []string{"get"}, Normal, "fetch a URL as text or HTML"},
		{"web", []string{"search web", "google", "look up"}, Normal, "search the web"},
		{"calc", []string{"calculate", "compute", "math"}, Normal, "evaluate arithmetic and unit conversions"},
		{"approve", []string{"allow", "permit", "ok", "yes"}, Strict, "approve a pending action"},
		{"deny", []string{"reject", "block", "no"}, Strict, "deny a pending action"},
		{"escalate", nil, Normal, "escalate a pending action with a reason"},
		{"cancel", []string{"abort", "nevermind", "stop"}, Normal, "cancel this message's earlier actions, or a pending action"},
		{"halt", nil, Strict, "stop the runtime"},
	}
}
