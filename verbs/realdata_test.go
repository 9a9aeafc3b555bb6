package verbs

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pattern-dialect/dialect/intent"
)

// TestRealDataArguments parses lines of real model output
// (../shared/data/llm_outputs) as the arguments of every built-in verb:
// markdown, code, URLs, paths and quotes of every kind must give an intent
// that survives a JSON round trip or a typed failure with a column inside
// the line. By default every 500th line is used; DIALECT_FULL=1 uses all.
func TestRealDataArguments(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(dataDir(), "llm_outputs", "*.jsonl"))
	if len(files) == 0 {
		t.Skip("shared data absent")
	}
	step := 500
	if os.Getenv("DIALECT_FULL") != "" {
		step = 1
	}
	r := mustRegistry(t, nil, nil)
	ctx := context.Background()
	var lines, ok, failed int
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		for sc.Scan() {
			var rec struct{ Text string }
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for _, line := range strings.Split(rec.Text, "\n") {
				lines++
				if lines%step != 0 || strings.TrimSpace(line) == "" {
					continue
				}
				for _, s := range Builtin() {
					in, err := r.Parse(ctx, s.Name, Input{Args: line, Marker: "!", Blocks: testBlocks})
					var pe *ParseError
					switch {
					case err == nil:
						b, err := intent.Marshal(in)
						if err == nil {
							_, err = intent.Decode(b)
						}
						if err != nil {
							t.Errorf("/%s %q: %v", s.Name, line, err)
						}
						ok++
					case errors.As(err, &pe):
						if pe.Pos < 0 || pe.Pos > utf8.RuneCountInString(strings.TrimSpace(line))+1 {
							t.Errorf("/%s %q: column %d outside the line", s.Name, line, pe.Pos)
						}
						failed++
					default:
						t.Errorf("/%s %q: untyped error %v", s.Name, line, err)
					}
				}
			}
		}
		fh.Close()
	}
	t.Logf("%d lines seen; %d parses, %d typed failures", lines, ok, failed)
	if ok == 0 || failed == 0 {
		t.Errorf("expected both parses and failures, got %d and %d", ok, failed)
	}
}
