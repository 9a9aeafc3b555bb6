package verbs

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect/intent"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; got:\n%s", name, got)
	}
}

// Two configurations: nothing beyond the defaults, and everything a host
// can add (routes, a web provider, authority, references).
var (
	bareScope = Scope{Routes: []string{"user"}, Refs: []intent.RefKind{intent.RefLast, intent.RefLastOutput}}
	fullScope = Scope{
		Roles:         []string{"approve", "deny", "escalate", "halt"},
		Routes:        []string{"user", "agent:anchor", "bluesky", "mastodon", "thread"},
		Web:           true,
		Refs:          []intent.RefKind{intent.RefLast, intent.RefLastOutput, intent.RefLastMessage, intent.RefThread, intent.RefParent, intent.RefURI},
		Conversations: true,
	}
)

func TestInstructionsGolden(t *testing.T) {
	r := customRegistry(t)
	for name, sc := range map[string]Scope{"instructions.golden": fullScope, "instructions-bare.golden": bareScope} {
		var b bytes.Buffer
		if err := r.WriteInstructions(context.Background(), &b, sc); err != nil {
			t.Fatal(err)
		}
		golden(t, name, b.Bytes())
	}
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "verbs.golden", b.Bytes())
}

// TestInstructionsTeachOnlyWhatWorks: what a configuration lacks is not
// taught, what it has is.
func TestInstructionsTeachOnlyWhatWorks(t *testing.T) {
	r := customRegistry(t)
	text := func(sc Scope) string {
		var b bytes.Buffer
		r.WriteInstructions(context.Background(), &b, sc)
		return b.String()
	}
	bare, full := text(bareScope), text(fullScope)
	for _, absent := range []string{"/web", "/google", "@thread", "@parent", "@[uri]", "@last.message", "/approve", "/deny", "/escalate", "/halt",
		"/tell", "/post", "/reply", "/notify", "/shame", "/toot", "in conversations", "constellation", "+ diff", "must be spelled exactly"} {
		if strings.Contains(bare, absent) {
			t.Errorf("the bare instructions teach %q", absent)
		}
	}
	for _, present := range []string{"/web", "@thread", "@parent", "@[uri]", "/approve", "/halt", "/tell @anchor", "/post @bluesky",
		"/notify", "/toot", "in conversations", "approve, deny and halt must be spelled exactly", "/send @user", "/dm", "/cancel"} {
		if !strings.Contains(full, present) {
			t.Errorf("the full instructions do not teach %q", present)
		}
	}
	// An agent holding one role is taught that role only.
	one := text(Scope{Roles: []string{"deny"}})
	if !strings.Contains(one, "/deny 12") || strings.Contains(one, "/approve") || !strings.Contains(one, "deny must be spelled exactly") {
		t.Errorf("an agent with the deny role:\n%s", one)
	}
	// Examples are shown as they are listed.
	for _, sc := range []Scope{bareScope, fullScope} {
		body := text(sc)
		for _, ex := range r.Examples(sc) {
			if !strings.Contains(body, strings.ReplaceAll(ex, "\n", "\n       ")) {
				t.Errorf("example %q is not in the instructions", ex)
			}
		}
	}
}

// TestExamplesParse: every example the instructions show, for either
// configuration, parses to the verb it illustrates. (The runtime's tests
// also run them.)
func TestExamplesParse(t *testing.T) {
	r := customRegistry(t)
	for _, sc := range []Scope{bareScope, fullScope} {
		n := 0
		for _, ex := range r.Examples(sc) {
			n++
			token, in := splitExample(r, ex)
			verb, it, err := r.ParseAction(context.Background(), r.Claimants(token), in)
			if err != nil || verb == "" || it == nil {
				t.Errorf("example %q: parsed as /%s: %v", ex, verb, err)
			}
		}
		if n < 20 {
			t.Errorf("only %d examples", n)
		}
	}
}

// splitExample splits an example into the longest registered verb phrase
// and the input the scanner would give: arguments, a permission marker,
// and a fenced block on the lines after it as content. "/do " is dropped.
func splitExample(r *Registry, ex string) (string, Input) {
	first, rest, _ := strings.Cut(ex, "\n")
	first = strings.TrimPrefix(first, "/do ")
	if head, _, chained := strings.Cut(first, " -> /"); chained {
		first = head
	}
	words := strings.Fields(strings.TrimPrefix(first, "/"))
	n := 1
	for k := len(words); k > 1; k-- {
		if len(r.Claimants(strings.Join(words[:k], " "))) > 0 {
			n = k
			break
		}
	}
	in := Input{Blocks: testBlocks}
	token, args := strings.Join(words[:n], " "), words[n:]
	if len(args) > 0 && (args[len(args)-1] == "!" || args[len(args)-1] == "?" || args[len(args)-1] == ".") {
		in.Marker, args = args[len(args)-1], args[:len(args)-1]
	}
	in.Args = strings.Join(args, " ")
	if rest != "" {
		lines := strings.Split(rest, "\n")
		in.Content, in.Kind = strings.Join(lines[1:len(lines)-1], "\n")+"\n", Fenced
	}
	in.Token = token
	return token, in
}

// TestInstructionsOperations: a verb's operations are listed one line
// each, within OperationBudget, the rest named only; one that cannot list
// them is written with the reason and returned as an error.
func TestInstructionsOperations(t *testing.T) {
	var ops []Operation
	for i := range 200 {
		ops = append(ops, Operation{Name: fmt.Sprintf("tool_%03d", i), Description: strings.Repeat("Does a thing. ", 30),
			Params: []Param{{Name: "path", Type: "string", Required: true}, {Name: "n", Type: "integer"}}, ReadOnly: i%2 == 0, Destructive: i%2 == 1})
	}
	nop := ExecutorFunc(func(context.Context, Call) (Output, error) { return Output{}, nil })
	r, err := NewRegistryWith(nil, Options{Verbs: []Definition{
		{Name: "srv", Executor: nop, Operations: func(context.Context) ([]Operation, error) { return ops, nil },
			Approval: func(it intent.Custom) string {
				if it.Destructive {
					return "destructive"
				}
				return ""
			}},
		{Name: "down", Executor: nop, Operations: func(context.Context) ([]Operation, error) { return nil, errors.New("no answer") }},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	err = r.WriteInstructions(context.Background(), &b, Scope{})
	if err == nil || !strings.Contains(err.Error(), "/down: no answer") {
		t.Errorf("error %v", err)
	}
	out := b.String()
	start := strings.Index(out, "    tool_000")
	end := strings.Index(out, "    and ")
	if start < 0 || end < 0 || end-start > OperationBudget {
		t.Fatalf("the list is not bounded (%d..%d):\n%s", start, end, out)
	}
	for _, want := range []string{
		"    tool_000 path=TEXT [n=N] — Does a thing. (read-only)\n",
		"    tool_001 path=TEXT [n=N] — Does a thing. (asks approval)\n",
		"more: tool_", ", tool_199\n",
		"/down\n  forms: /down ARGUMENTS\n  tools: unavailable (no answer)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("instructions lack %q", want)
		}
	}
}
