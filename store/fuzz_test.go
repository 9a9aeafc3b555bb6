package store

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pattern-dialect/dialect/internal/pgtest"
)

// asciiWord is a word of plain letters between spaces, which every
// backend's tokenizer reads alike.
var asciiWord = regexp.MustCompile(`(?:^|\s)([a-zA-Z]{3,50})(?:\s|$)`)

// FuzzStoreText stores arbitrary text as a block and a message and
// searches with arbitrary text, on each backend (PostgreSQL when
// $DIALECT_TEST_POSTGRES is set): nothing may fail, text must come back as
// stored (cleaned to valid UTF-8 without NUL), and a plain word of the
// content must find it.
func FuzzStoreText(f *testing.F) {
	for _, seed := range [][2]string{
		{"deadline is friday", "friday"},
		{"budget AND review", `budget AND "review" OR NEAR( & | ! <-> :* ' \ "`},
		{"a\x00b\xffc words here", "words\x00"},
		{"über café naïve résumé", "cafe uber"},
		{strings.Repeat("x", 3000) + " tail", strings.Repeat("y", 3000)},
		{"", "'"},
		{"日本語のテキスト memory", "memory 日本語"},
	} {
		f.Add(seed[0], seed[1])
	}
	var stores []Store
	for _, b := range backends {
		if b.name == "postgres" && !pgtest.Available() {
			continue
		}
		s, err := Open(context.Background(), b.location(f))
		if err != nil {
			f.Fatal(err)
		}
		f.Cleanup(func() { s.Close() })
		stores = append(stores, s)
	}
	f.Fuzz(func(t *testing.T, content, query string) {
		ctx := context.Background()
		want := strings.ReplaceAll(strings.ToValidUTF8(content, "\uFFFD"), "\x00", "\uFFFD")
		for _, s := range stores {
			b, err := Put(ctx, s, Archival, "fuzz", content)
			if err != nil {
				t.Fatalf("%s: put: %v", s.Location(), err)
			}
			got, err := s.Get(ctx, Archival, "fuzz")
			if err != nil || got.Content != want || b.ID != got.ID {
				t.Fatalf("%s: stored %q, got %q (%v)", s.Location(), want, got.Content, err)
			}
			if _, err := s.Search(ctx, "", query, SearchOptions{}); err != nil {
				t.Fatalf("%s: search %q: %v", s.Location(), query, err)
			}
			if _, err := s.LogMessage(ctx, Message{Session: "f", Role: "user", Content: content}); err != nil {
				t.Fatalf("%s: log message: %v", s.Location(), err)
			}
			if _, err := s.SearchMessages(ctx, query, MessageQuery{}); err != nil {
				t.Fatalf("%s: search messages %q: %v", s.Location(), query, err)
			}
			if m := asciiWord.FindStringSubmatch(want); m != nil && utf8.ValidString(want) {
				w := m[1]
				hits, err := s.Search(ctx, Archival, w, SearchOptions{Limit: 1000})
				found := false
				for _, h := range hits {
					found = found || h.Name == "fuzz"
				}
				if err != nil || !found {
					t.Fatalf("%s: %q not found by its word %q: %v", s.Location(), want, w, err)
				}
			}
		}
	})
}
