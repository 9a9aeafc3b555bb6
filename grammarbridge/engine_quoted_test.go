package grammarbridge

import (
	"math/rand"
	"os"
	"strings"
	"testing"
)

// TestEngineShareQuoted checks the search over keywords that start with
// separators (quoted keywords) against the plain search: the same matches
// in the same order.
func TestEngineShareQuoted(t *testing.T) {
	fast, err := Compile(FSLoader{os.DirFS("testdata")}, "quoted.agr", Options{})
	if err != nil {
		t.Fatal(err)
	}
	slow, err := Compile(FSLoader{os.DirFS("testdata")}, "quoted.agr", Options{naive: true})
	if err != nil {
		t.Fatal(err)
	}
	// A literal node over tokens with lead separators is in use.
	lit := false
	for _, tr := range fast.start.firstTrees {
		for _, nd := range tr {
			lit = lit || nd.litTo > 0 && nd.lit.toks[0].lead > 0
		}
	}
	if !lit {
		t.Fatal("no literal node over quoted tokens in <Start>'s prefix trees")
	}
	inputs := []string{
		"'send' 'an' 'email' 'to' Bob", "'SEND' 'an' 'email' 'to' Bob 'to' Ann", "'send''an''email''to'x",
		"'send' 'an' 'email' 'about' lunch 'to' Zoe 'to' Max", "'send' 'a' 'message' 'to' Ann 'cc' Bob 'copy' Carl",
		"'send' 'a' 'message'", "'send' 'a' 'message' 'to'", "send an email to Bob", "'send' an 'email' 'to' Bob",
		"'can you' 'reply' thanks 'to' 'for' you", "'reply' ''quick' ok", "'reply' 'quick' ok", "'reply' x'to'y 'for' z",
		"'find' 'having' 'msg' 'ref' Oslo", "'find' 'id' 7", "'find' Oslo 'ref' x", "-x- 'y' 5", "x 'y' 5", "--x- 'y' 5",
		" ,'send' 'an' 'email' 'to' Bob.", "'", "''", "",
	}
	words := strings.Fields(strings.Join(inputs, " "))
	rng := rand.New(rand.NewSource(11))
	for range 400 {
		n := 1 + rng.Intn(9)
		w := make([]string, n)
		for i := range w {
			w[i] = words[rng.Intn(len(words))]
		}
		sep := " "
		if rng.Intn(4) == 0 {
			sep = ""
		}
		inputs = append(inputs, strings.Join(w, sep))
	}
	sameAsPlain(t, fast, slow, inputs)
}
