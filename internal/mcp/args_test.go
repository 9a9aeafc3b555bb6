package mcp

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/fuzzy"
	"github.com/pattern-dialect/dialect/verbs"
)

// testTools are schemas as servers send them (the filesystem server's,
// trimmed, and some of our own).
const testTools = `[
 {"name":"read_text_file","description":"Read a file.","annotations":{"readOnlyHint":true},
  "inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"the file"},"head":{"type":"number"},"tail":{"type":"number"}},"required":["path"]}},
 {"name":"read_file","annotations":{"readOnlyHint":true},
  "inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}},
 {"name":"write_file","description":"Write a file.","annotations":{"readOnlyHint":false,"destructiveHint":true},
  "inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"where to write"},"content":{"type":"string","description":"the text"}},"required":["path","content"]}},
 {"name":"read_multiple_files","annotations":{"readOnlyHint":true},
  "inputSchema":{"type":"object","properties":{"paths":{"type":"array","items":{"type":"string"}}},"required":["paths"]}},
 {"name":"search","inputSchema":{"type":"object","additionalProperties":false,"properties":{
   "query":{"type":"string"},"limit":{"type":"integer"},"exact":{"type":"boolean"},
   "mode":{"type":"string","enum":["fast","deep"]},"ids":{"type":"array","items":{"type":"integer"}},
   "filter":{"type":["object","null"]}},"required":["query"]}},
 {"name":"list_allowed","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{}}},
 {"name":"create_entities","inputSchema":{"type":"object","properties":{"entities":{"type":"array","items":{"type":"object"}}},"required":["entities"]}},
 {"name":"get_note","inputSchema":{"type":"object","properties":{"id":{"type":"string"}}}},
 {"name":"set_note","inputSchema":{"type":"object","properties":{"id":{"type":"string"}}}},
 {"name":"free","inputSchema":{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":true}}
]`

func testToolSet(t testing.TB) *toolSet {
	var defs []*sdk.Tool
	if err := json.Unmarshal([]byte(testTools), &defs); err != nil {
		t.Fatal(err)
	}
	ts, err := newToolSet("fs", defs, fuzzy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// parseWith parses the text after /fs the way the verb does.
func parseWith(ts *toolSet, args, block string) (string, map[string]any, error) {
	s := &server{cfg: Server{Name: "fs"}}
	in := verbs.Input{Args: args}
	if block != "" {
		in.Content, in.Kind = block, verbs.Fenced
	}
	it, err := s.parseWithTools(ts, in)
	return it.Tool, it.Args, err
}

func TestArgs(t *testing.T) {
	ts := testToolSet(t)
	cases := []struct {
		name, args, block string
		tool              string
		want              map[string]any
	}{
		{"key=value", "read_text_file path=/tmp/a.txt", "", "read_text_file", map[string]any{"path": "/tmp/a.txt"}},
		{"quoted value", `read_text_file path="/tmp/my notes.txt" head=5`, "", "read_text_file", map[string]any{"path": "/tmp/my notes.txt", "head": 5.0}},
		{"single quotes", `read_text_file path='/tmp/a b'`, "", "read_text_file", map[string]any{"path": "/tmp/a b"}},
		{"escapes", `read_text_file path="a \"b\" \\c"`, "", "read_text_file", map[string]any{"path": `a "b" \c`}},
		{"positional", "read_text_file /tmp/a.txt", "", "read_text_file", map[string]any{"path": "/tmp/a.txt"}},
		{"positional quoted", `read_text_file "/tmp/a b.txt"`, "", "read_text_file", map[string]any{"path": "/tmp/a b.txt"}},
		{"positional with key", "read_text_file /tmp/a.txt tail=3", "", "read_text_file", map[string]any{"path": "/tmp/a.txt", "tail": 3.0}},
		{"json object", `write_file {"path": "x.txt", "content": "hi\nthere"}`, "", "write_file", map[string]any{"path": "x.txt", "content": "hi\nthere"}},
		{"block for content", "write_file path=x.txt", "line one\nline two\n", "write_file", map[string]any{"path": "x.txt", "content": "line one\nline two\n"}},
		{"block and positional", "write_file x.txt", "body", "write_file", map[string]any{"path": "x.txt", "content": "body"}},
		{"json block", "create_entities", `{"entities": [{"name": "Ana"}]}`, "create_entities", map[string]any{"entities": []any{map[string]any{"name": "Ana"}}}},
		{"array comma", "read_multiple_files paths=a.txt,b.txt", "", "read_multiple_files", map[string]any{"paths": []any{"a.txt", "b.txt"}}},
		{"array json", `read_multiple_files paths=["a b.txt","c.txt"]`, "", "read_multiple_files", map[string]any{"paths": []any{"a b.txt", "c.txt"}}},
		{"array repeated", "read_multiple_files paths=a paths=b", "", "read_multiple_files", map[string]any{"paths": []any{"a", "b"}}},
		{"array block lines", "read_multiple_files", "a.txt\nb.txt\n", "read_multiple_files", map[string]any{"paths": []any{"a.txt", "b.txt"}}},
		{"array positional", "read_multiple_files a.txt,b.txt", "", "read_multiple_files", map[string]any{"paths": []any{"a.txt", "b.txt"}}},
		{"types", "search query=go limit=5 exact=yes mode=DEEP ids=1,2", "", "search", map[string]any{"query": "go", "limit": int64(5), "exact": true, "mode": "deep", "ids": []any{int64(1), int64(2)}}},
		{"nullable object", `search query=x filter={"a":1}`, "", "search", map[string]any{"query": "x", "filter": map[string]any{"a": int64(1)}}},
		{"positional words", "search deadline of the project", "", "search", map[string]any{"query": "deadline of the project"}},
		{"key case and dash", "read_text_file PATH=a", "", "read_text_file", map[string]any{"path": "a"}},
		{"no params", "list_allowed", "", "list_allowed", map[string]any{}},
		{"free key", "free b=1 a=x", "", "free", map[string]any{"a": "x", "b": "1"}},
		{"misspelled tool", "read_text_fil path=a", "", "read_text_file", map[string]any{"path": "a"}},
		{"tool case and dash", "Write-File path=a content=b", "", "write_file", map[string]any{"path": "a", "content": "b"}},
		{"transposed tool", "wirte_file path=a content=b", "", "write_file", map[string]any{"path": "a", "content": "b"}},
		{"empty value", `write_file path=a content=""`, "", "write_file", map[string]any{"path": "a", "content": ""}},
		{"equals in value", "read_text_file path=a=b", "", "read_text_file", map[string]any{"path": "a=b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tool, got, err := parseWith(ts, c.args, c.block)
			if err != nil {
				t.Fatalf("%q: %v", c.args, err)
			}
			if tool != c.tool || !reflect.DeepEqual(got, c.want) {
				t.Errorf("%q: got %s %#v, want %s %#v", c.args, tool, got, c.tool, c.want)
			}
		})
	}
}

func TestArgsFailures(t *testing.T) {
	ts := testToolSet(t)
	cases := []struct {
		name, args, block string
		code              codes.Code
		says              []string // the message names these
		pos               int      // the column, when not 0
	}{
		{"no tool", "", "", codes.MissingArg, []string{"needs a tool", "read_text_file", "write_file"}, 0},
		{"unknown tool", "frobnicate x", "", codes.UnknownVerb, []string{`no tool "frobnicate"`, "Its tools:"}, 1},
		{"near tie", "let_note id=a", "", codes.AmbiguousVerb, []string{"get_note or set_note"}, 0},
		{"missing required", "write_file path=a", "", codes.MissingArg, []string{"content (the text)"}, 0},
		{"missing both", "write_file", "", codes.MissingArg, []string{"path (where to write) and content (the text)"}, 0},
		{"missing after positional", "write_file x.txt", "", codes.MissingArg, []string{"needs content"}, 0},
		{"unknown key", "read_text_file pth=a", "", codes.UnknownModifier, []string{`no parameter "pth"`, "did you mean path?"}, 16},
		{"unknown key in json", `read_text_file {"path":"a","lines":3}`, "", codes.UnknownModifier, []string{`"lines"`}, 0},
		{"not a number", "read_text_file path=a head=ten", "", codes.MalformedSyntax, []string{"head=ten is not a number"}, 23},
		{"not an integer", "search query=a limit=2.5", "", codes.MalformedSyntax, []string{"not a whole number"}, 0},
		{"not a boolean", "search query=a exact=perhaps", "", codes.MalformedSyntax, []string{"true or false"}, 0},
		{"not in enum", "search query=a mode=slow", "", codes.UnknownModifier, []string{"fast, deep"}, 0},
		{"object not json", "search query=a filter=x", "", codes.MalformedSyntax, []string{"JSON object"}, 0},
		{"unterminated quote", `read_text_file path="/tmp/a`, "", codes.MalformedSyntax, []string{"unterminated quote at column 21"}, 21},
		{"bad json", `write_file {"path": }`, "", codes.MalformedSyntax, []string{"not valid"}, 0},
		{"text after json", `write_file {"path":"a","content":"b"} extra`, "", codes.MalformedSyntax, []string{"after the JSON object"}, 0},
		{"twice", "read_text_file path=a path=b", "", codes.MalformedSyntax, []string{"given twice"}, 0},
		{"stray positional", "read_text_file path=a extra", "", codes.MalformedSyntax, []string{`which parameter is "extra"`}, 0},
		{"block nowhere", "read_multiple_files paths=a", "text", codes.MalformedSyntax, []string{"takes no text block"}, 0},
		{"banned key", "free __proto__=x", "", codes.BannedKey, []string{"__proto__"}, 0},
		{"banned key json", `free {"constructor": 1}`, "", codes.BannedKey, []string{"constructor"}, 0},
		{"short typo", "rad path=a", "", codes.UnknownVerb, []string{`no tool "rad"`}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, got, err := parseWith(ts, c.args, c.block)
			var pe *verbs.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("%q: got %v, %v; want a %s parse error", c.args, got, err, c.code)
			}
			if pe.Code != c.code || pe.Verb != "fs" && c.code != codes.AmbiguousVerb && c.code != codes.UnknownVerb {
				t.Errorf("%q: %s (verb %q) %s; want %s", c.args, pe.Code, pe.Verb, pe.Message, c.code)
			}
			for _, s := range c.says {
				if !strings.Contains(pe.Message, s) {
					t.Errorf("%q: message %q does not say %q", c.args, pe.Message, s)
				}
			}
			if c.pos != 0 && pe.Pos != c.pos {
				t.Errorf("%q: column %d, want %d", c.args, pe.Pos, c.pos)
			}
		})
	}
}

// FuzzArgs: whatever the text, parsing gives arguments that JSON can
// carry, or a typed parse error; it never panics.
func FuzzArgs(f *testing.F) {
	for _, s := range []string{"read_text_file path=a", `write_file {"path":"a","content":"b"}`, `search query="x" ids=[1,2] mode=fast`,
		"read_multiple_files paths=a,b", `read_text_file path="unterminated`, "free a={\"b\":[1,{}]}", "wirte_file x y z", "search q=\xff"} {
		f.Add(s, "")
		f.Add(s, "block\ntext")
	}
	f.Add("create_entities", `{"entities":[{"name":"x"}]}`)
	ts := testToolSet(f)
	f.Fuzz(func(t *testing.T, args, block string) {
		_, got, err := parseWith(ts, args, block)
		if err != nil {
			var pe *verbs.ParseError
			if !errors.As(err, &pe) || pe.Code == "" || pe.Message == "" {
				t.Fatalf("%q: untyped error %v", args, err)
			}
			return
		}
		if _, err := json.Marshal(got); err != nil {
			t.Fatalf("%q: arguments are not JSON: %v", args, err)
		}
	})
}
