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

func TestInstructionsGolden(t *testing.T) {
	r := customRegistry(t)
	var b bytes.Buffer
	if err := r.WriteInstructions(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "instructions.golden", b.Bytes())
	b.Reset()
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "verbs.golden", b.Bytes())
}

// TestExamplesParse: every few-shot example shown to models must parse to
// the verb it illustrates.
func TestExamplesParse(t *testing.T) {
	r := customRegistry(t)
	n := 0
	for _, v := range r.Verbs() {
		for _, ex := range v.Examples {
			n++
			token, args, marker := splitExample(r, ex)
			verb, _, err := parseAction(context.Background(), r, token, v.Name, Input{Args: args, Marker: marker, Blocks: testBlocks})
			if err != nil || verb != v.Name {
				t.Errorf("example %q of /%s: parsed as /%s: %v", ex, v.Name, verb, err)
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d examples", n)
	}
}

// splitExample splits "/heads up partner seems stressed !" into the longest
// registered verb phrase, the arguments and a permission marker.
func splitExample(r *Registry, ex string) (token, args, marker string) {
	words := strings.Fields(strings.TrimPrefix(ex, "/"))
	n := 1
	for k := len(words); k > 1; k-- {
		if len(r.Claimants(strings.Join(words[:k], " "))) > 0 {
			n = k
			break
		}
	}
	token, rest := strings.Join(words[:n], " "), words[n:]
	if len(rest) > 0 && (rest[len(rest)-1] == "!" || rest[len(rest)-1] == "?" || rest[len(rest)-1] == ".") {
		marker, rest = rest[len(rest)-1], rest[:len(rest)-1]
	}
	return token, strings.Join(rest, " "), marker
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
	err = r.WriteInstructionsContext(context.Background(), &b)
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
