package detect_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/pattern-dialect/dialect/detect"
)

func vocab() *detect.StaticVocabulary {
	return detect.NewStaticVocabulary(map[string]string{
		"recall": "recall", "remember": "recall", "jot down": "recall",
		"search": "search", "cancel": "cancel",
	})
}

// A model's output arrives in pieces; the scanner decides when it ends.
func ExampleScanner() {
	s := detect.NewScanner(vocab(), detect.DefaultOptions())
	for _, chunk := range []string{"I could /rec", "all the notes, but first:\n/jot do", "wn milk ?ask\n/search dead", "lines\n"} {
		s.Write([]byte(chunk))
	}
	s.Close()
	for _, a := range s.Actions() {
		fmt.Printf("line %d: /%s → %s %q executable=%v%s\n", a.Span.Line, a.Token, a.Verb, a.Args, a.Executable, strings.TrimRight(" "+a.ReasonText(), " "))
	}
	// Output:
	// line 1: /recall → recall "the notes, but first:" executable=false mid-message
	// line 2: /jot down → recall "milk" executable=true
	// line 3: /search → search "deadlines" executable=true
}

// Reconsideration after an action stops it, wherever it is.
func ExampleScan() {
	msg := "/do /search project deadlines\nHmm, scratch that, wrong label.\n"
	for _, a := range detect.Scan(vocab(), detect.DefaultOptions(), []byte(msg)) {
		fmt.Println(a.Token, a.Do, a.Executable, a.ReasonText())
	}
	// Output:
	// search true false reconsidered: "scratch that"
}

// The display filter hides action lines from the person reading along.
func ExampleFilter() {
	f := detect.NewFilter(os.Stdout, vocab(), detect.DefaultOptions())
	msg := "Let me check what we discussed.\n/recall project deadlines\n"
	for _, w := range strings.SplitAfter(msg, " ") {
		f.Write([]byte(w))
	}
	f.Close()
	fmt.Println(len(f.Scanner().Actions()), "action")
	// Output:
	// Let me check what we discussed.
	// 1 action
}
