package fuzzy

// testEntries is the built-in vocabulary of docs/language.md §5 (fuzzy must not
// import package verbs).
func testEntries() []Entry {
	return []Entry{
		{Verb: "recall", Names: []string{"remember", "store", "save", "archive", "forget"}, Strictness: Loose},
		{Verb: "context", Names: []string{"note", "update", "remember"}},
		{Verb: "search", Names: []string{"find", "query", "look", "lookup"}, Strictness: Loose},
		{Verb: "send"}, {Verb: "reply"}, {Verb: "post"}, {Verb: "dm"}, {Verb: "tell"},
		{Verb: "fetch", Names: []string{"get"}},
		{Verb: "web", Names: []string{"search web", "google", "look up"}},
		{Verb: "calc", Names: []string{"calculate", "compute", "math"}},
		{Verb: "approve", Names: []string{"allow", "permit", "ok", "yes"}, Strictness: Strict},
		{Verb: "deny", Names: []string{"reject", "block", "no"}, Strictness: Strict},
		{Verb: "escalate"},
		{Verb: "cancel", Names: []string{"abort", "nevermind", "stop"}},
		{Verb: "halt", Strictness: Strict},
	}
}
