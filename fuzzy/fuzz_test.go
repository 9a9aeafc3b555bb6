package fuzzy

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pattern-dialect/dialect/codes"
)

// FuzzResolve checks that no token panics, that every result is either a
// verb or a failure code, and that strict verbs resolve only through tiers
// 1–2 (docs/language.md §4).
func FuzzResolve(f *testing.F) {
	for _, s := range []string{
		"search", "Search", "serch", "searching", "aprove", "approved", "APPROVE", "allow",
		"dney", "halt", "halts", "look up", "looked-up", "remember", "retrieve", "sеarch",
		"ѕеагсh", "etc", "data", "", " ", "-", "\xff", "a\u0301", "okay", "yes", "yess",
		"no", "nos", "blocked", "rejectt", strings.Repeat("x", 100), "ok ok ok ok",
	} {
		f.Add(s)
	}
	r, err := New(testEntries(), Options{})
	if err != nil {
		f.Fatal(err)
	}
	strict := map[string]bool{"approve": true, "deny": true, "halt": true}
	f.Fuzz(func(t *testing.T, tok string) {
		res := r.Resolve(tok)
		if (res.Verb == "") == (res.Code == "") {
			t.Fatalf("Resolve(%q): verb %q and code %q", tok, res.Verb, res.Code)
		}
		if strict[res.Verb] && res.Tier != TierExact && res.Tier != TierCase {
			t.Fatalf("Resolve(%q) reached strict verb %s through tier %s", tok, res.Verb, res.Tier)
		}
		if len(res.Candidates) > 3 {
			t.Fatalf("Resolve(%q): %d candidates", tok, len(res.Candidates))
		}
		if res.Code == codes.MixedScript && (res.Offset < 0 || res.Offset > len(tok)) {
			t.Fatalf("Resolve(%q): offset %d", tok, res.Offset)
		}
		if res.OK() && (res.Score <= 0 || res.Score > 1) {
			t.Fatalf("Resolve(%q): score %v", tok, res.Score)
		}
		if msg := res.Message(); res.Code != "" && !utf8.ValidString(msg) && utf8.ValidString(tok) {
			t.Fatalf("Resolve(%q): message not UTF-8", tok)
		}
		_ = r.LongestPhrase(strings.Fields(tok))
	})
}
