package verbs

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
