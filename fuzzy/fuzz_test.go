package fuzzy

import (
	"slices"
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
		"escate", "shtoped", "cancled", "snd", "\uff53\uff45\uff41\uff52\uff43\uff48", "o\u212a", "perm\u0130t", "permI\u0307t", "ye\u017f", "\uff4f\uff4b", "n\u0131", "bloc\u212aed",
	} {
		f.Add(s)
	}
	r, err := New(testEntries(), Options{})
	if err != nil {
		f.Fatal(err)
	}
	// The ASCII spellings of each strict verb's names: the only tokens
	// that may resolve to it.
	strict := map[string][]string{}
	for _, e := range testEntries() {
		if e.Strictness == Strict {
			for _, n := range append([]string{e.Verb}, e.Names...) {
				strict[e.Verb] = append(strict[e.Verb], asciiFold(n))
			}
		}
	}
	f.Fuzz(func(t *testing.T, tok string) {
		res := r.Resolve(tok)
		if (res.Verb == "") == (res.Code == "") {
			t.Fatalf("Resolve(%q): verb %q and code %q", tok, res.Verb, res.Code)
		}
		if names, ok := strict[res.Verb]; ok {
			if res.Tier != TierExact && res.Tier != TierCase {
				t.Fatalf("Resolve(%q) reached strict verb %s through tier %s", tok, res.Verb, res.Tier)
			}
			if !slices.Contains(names, asciiFold(tok)) {
				t.Fatalf("Resolve(%+q) reached strict verb %s without its ASCII spelling", tok, res.Verb)
			}
		}
		if len(res.Candidates) > 3 || len(res.Suggestions) > 3 {
			t.Fatalf("Resolve(%q): %d candidates, %d suggestions", tok, len(res.Candidates), len(res.Suggestions))
		}
		if len(res.Suggestions) > 0 && res.Code != codes.UnknownVerb {
			t.Fatalf("Resolve(%q): suggestions with code %q", tok, res.Code)
		}
		if res.NearMiss() {
			for _, c := range res.Suggestions {
				if _, ok := strict[c.Verb]; !ok {
					t.Fatalf("Resolve(%q): near miss suggesting %s", tok, c.Verb)
				}
			}
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
