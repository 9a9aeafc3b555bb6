package failures

import (
	"errors"
	"slices"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

func aliases(pairs ...string) []AliasCandidate {
	var out []AliasCandidate
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, AliasCandidate{Alias: pairs[i], Verb: pairs[i+1]})
	}
	return out
}

func TestAddAliases(t *testing.T) {
	cases := []struct {
		name, src, want string
		add             []AliasCandidate
		added           int
	}{
		{
			name:  "empty file",
			src:   "",
			add:   aliases("retrieve", "recall"),
			want:  "[dialect.verbs.recall]\nextra_aliases = [\"retrieve\"]\n",
			added: 1,
		},
		{
			name: "append to a one-line array, comments kept",
			src: `# my dialect
[dialect.verbs.recall] # memory
extra_aliases = ["memorize", "jot down"] # grows weekly
description = "x"

# next
[dialect.verbs.notify]
aliases = ["ping"]
`,
			add: aliases("retrieve", "recall"),
			want: `# my dialect
[dialect.verbs.recall] # memory
extra_aliases = ["memorize", "jot down", "retrieve"] # grows weekly
description = "x"

# next
[dialect.verbs.notify]
aliases = ["ping"]
`,
			added: 1,
		},
		{
			name: "multi-line array with trailing comma and comments",
			src: `[dialect.verbs.search]
extra_aliases = [
    "seek",   # common
    "hunt",
]
`,
			add: aliases("srch", "search"),
			want: `[dialect.verbs.search]
extra_aliases = [
    "seek",   # common
    "hunt",
    "srch",
]
`,
			added: 1,
		},
		{
			name: "multi-line array without trailing comma, comment after last",
			src: `[dialect.verbs.search]
extra_aliases = [
  "seek",
  "hunt"  # last
]
`,
			add: aliases("srch", "search"),
			want: `[dialect.verbs.search]
extra_aliases = [
  "seek",
  "hunt",  # last
  "srch"
]
`,
			added: 1,
		},
		{
			name:  "empty array",
			src:   "[dialect.verbs.recall]\nextra_aliases = []\n",
			add:   aliases("retrieve", "recall"),
			want:  "[dialect.verbs.recall]\nextra_aliases = [\"retrieve\"]\n",
			added: 1,
		},
		{
			name: "table without the key: added after its last key",
			src: `[dialect.verbs.notify]
aliases = ["alert"]
maps_to = "send"

# Other settings
[dialect.reconsider]
phrases = ["hmm"]
`,
			add: aliases("ping", "notify"),
			want: `[dialect.verbs.notify]
aliases = ["alert"]
maps_to = "send"
extra_aliases = ["ping"]

# Other settings
[dialect.reconsider]
phrases = ["hmm"]
`,
			added: 1,
		},
		{
			name: "dotted keys under [dialect.verbs]",
			src: `[dialect.verbs]
recall.extra_aliases = ["memorize"]
search.description = "find things"
`,
			add: aliases("retrieve", "recall", "srch", "search"),
			want: `[dialect.verbs]
recall.extra_aliases = ["memorize", "retrieve"]
search.description = "find things"
search.extra_aliases = ["srch"]
`,
			added: 2,
		},
		{
			name:  "new table at the end, no final newline, CRLF",
			src:   "# top\r\n[dialect]\r\nname = \"x\"",
			add:   aliases("retrieve", "recall"),
			want:  "# top\r\n[dialect]\r\nname = \"x\"\r\n\r\n[dialect.verbs.recall]\r\nextra_aliases = [\"retrieve\"]\r\n",
			added: 1,
		},
		{
			name:  "already present: nothing to do",
			src:   "[dialect.verbs.recall]\nextra_aliases = [\"retrieve\"]\n",
			add:   aliases("retrieve", "recall"),
			want:  "[dialect.verbs.recall]\nextra_aliases = [\"retrieve\"]\n",
			added: 0,
		},
		{
			name: "brackets inside strings and multi-line strings are not headers",
			src: `description = """
[dialect.verbs.recall]
extra_aliases = ["fake"]
"""
[dialect.verbs.recall]
template = "[x] # not a comment"
extra_aliases = ['lit]eral']
`,
			add: aliases("retrieve", "recall"),
			want: `description = """
[dialect.verbs.recall]
extra_aliases = ["fake"]
"""
[dialect.verbs.recall]
template = "[x] # not a comment"
extra_aliases = ['lit]eral', "retrieve"]
`,
			added: 1,
		},
		{
			name:  "two aliases for one verb, one for another",
			src:   "[dialect.verbs.recall]\nextra_aliases = [\"a\"]\n",
			add:   aliases("retrieve", "recall", "memorize", "recall", "srch", "search"),
			want:  "[dialect.verbs.recall]\nextra_aliases = [\"a\", \"retrieve\", \"memorize\"]\n\n[dialect.verbs.search]\nextra_aliases = [\"srch\"]\n",
			added: 3,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, added, err := AddAliases([]byte(c.src), c.add)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", out, c.want)
			}
			if len(added) != c.added {
				t.Errorf("added %d, want %d", len(added), c.added)
			}
		})
	}
}

func TestAddAliasesRefuses(t *testing.T) {
	cases := []struct {
		name, src string
		add       []AliasCandidate
		line      int
	}{
		{"does not parse", "[dialect\nx = 1\n", aliases("a", "recall"), 1},
		{"inline table", "[dialect.verbs]\nrecall = { extra_aliases = [\"m\"] }\n", aliases("retrieve", "recall"), 0},
		{"bad alias", "", aliases("two  spaces", "recall"), 0},
		{"alias with quote", "", aliases(`a"b`, "recall"), 0},
		{"not an array", "[dialect.verbs.recall]\nextra_aliases = \"m\"\n", aliases("retrieve", "recall"), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := AddAliases([]byte(c.src), c.add)
			var ce *ConfigEditError
			if !errors.Is(err, ErrConfigEdit) || !errors.As(err, &ce) {
				t.Fatalf("got %v (output %q), want a *ConfigEditError", err, out)
			}
			if c.line > 0 && ce.Line != c.line {
				t.Errorf("line %d, want %d (%v)", ce.Line, c.line, err)
			}
		})
	}
}

// FuzzAddAliases: whatever the file, AddAliases either refuses or returns a
// file that parses, contains the alias, and is otherwise unchanged (checked
// inside AddAliases; here we re-check the alias is there).
func FuzzAddAliases(f *testing.F) {
	f.Add("[dialect.verbs.recall]\nextra_aliases = [\"m\"] # c\n", "retrieve")
	f.Add("[dialect.verbs]\nrecall.extra_aliases = [\n 'x', # y\n]\n", "srch")
	f.Add("a = \"\"\"\n[x]\n\"\"\"\n[dialect.verbs.recall]\n", "memorize")
	f.Add("[[dialect.verbs.recall]]\nx=1\n", "r")
	f.Add("", "jot down")
	f.Fuzz(func(t *testing.T, src, alias string) {
		out, added, err := AddAliases([]byte(src), []AliasCandidate{{Alias: alias, Verb: "recall"}})
		if err != nil {
			return
		}
		var doc map[string]any
		if err := toml.Unmarshal(out, &doc); err != nil {
			t.Fatalf("output does not parse: %v\n%s", err, out)
		}
		if len(added) == 1 && !slices.Contains(extraAliases(doc, "recall"), alias) {
			t.Fatalf("alias missing from output:\n%s", out)
		}
	})
}
