package detect

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt from testdata/messages.txt")

type fixture struct{ name, text string }

// loadFixtures reads testdata/messages.txt: messages introduced by a line
// "=== name"; a message's text is every line up to the next such line, with
// the last newline kept only when the message is followed by a blank line.
func loadFixtures(t testing.TB) []fixture {
	t.Helper()
	data, err := os.ReadFile("testdata/messages.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []fixture
	for _, part := range strings.Split(string(data), "=== ")[1:] {
		name, text, _ := strings.Cut(part, "\n")
		if strings.HasSuffix(text, "\n\n") {
			text = strings.TrimSuffix(text, "\n")
		} else {
			text = strings.TrimSuffix(text, "\n")
		}
		out = append(out, fixture{name, text})
	}
	if len(out) == 0 {
		t.Fatal("no fixtures")
	}
	return out
}

// TestGolden compares the scanner's report on each fixture with
// testdata/golden.txt (run with -update to rewrite it, then review the diff).
func TestGolden(t *testing.T) {
	var b bytes.Buffer
	for _, m := range loadFixtures(t) {
		fmt.Fprintf(&b, "=== %s\n", m.name)
		for _, a := range scanString(m.text) {
			fmt.Fprintf(&b, "%d:%d %s\n", a.Span.Line, a.Span.Col, brief(a))
		}
	}
	if *update {
		if err := os.WriteFile("testdata/golden.txt", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("report differs from testdata/golden.txt (run go test -run TestGolden -update and review):\n%s", b.String())
	}
}
