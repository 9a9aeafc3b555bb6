// Package transcripts holds model messages to pipe into `dialect run`, and
// the test that keeps each one doing what README.md says it shows.
package transcripts

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect"
)

// want is each transcript's results as "token verb status code-or-reason".
var want = map[string][]string{
	"cancel.txt":        {"recall recall skipped cancelled", "search search skipped cancelled", "cancel cancel ok "},
	"chain.txt":         {"search search ok "},
	"content-block.txt": {"recall recall ok "},
	"do-marker.txt":     {"recall recall ok "},
	"mentions.txt":      {"recall recall skipped mid-message", "recall recall skipped inside code"},
	"misspelled.txt":    {"serch search ok ", "remeber  error AMBIGUOUS_VERB"},
	"permission.txt":    {"send send pending PENDING_APPROVAL"},
	"reconsidered.txt":  {`recall recall skipped reconsidered: "actually"`},
	"trailing-run.txt":  {"recall recall ok ", "search search ok "},
}

func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			w, ok := want[f]
			if !ok {
				t.Fatalf("%s has no expectation in transcripts_test.go", f)
			}
			text, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := dialect.LoadConfig(dialect.DefaultLookup("../../dialect.toml"))
			if err != nil {
				t.Fatal(err)
			}
			cfg.Store.Path = filepath.Join(t.TempDir(), "t.db")
			rt, err := dialect.Open(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			res, err := rt.Run(context.Background(), dialect.Message{Text: string(text), Agent: "example"})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range res {
				why := string(r.Code)
				if why == "" {
					why = r.Reason
				}
				got = append(got, fmt.Sprintf("%s %s %s %s", r.Token, r.Verb, r.Status, why))
			}
			if strings.Join(got, "\n") != strings.Join(w, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(w, "\n  "))
			}
			if f == "chain.txt" && (len(res) != 1 || !strings.HasPrefix(res[0].Chain, "/recall")) {
				t.Errorf("chain tail %q", res[0].Chain)
			}
		})
	}
}
