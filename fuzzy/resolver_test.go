package fuzzy

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agnivade/levenshtein"
	"github.com/antzucaro/matchr"
	"github.com/pattern-dialect/dialect/codes"
)

func newTest(t testing.TB, es []Entry, o Options) *Resolver {
	t.Helper()
	r, err := New(es, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestResolveTiers(t *testing.T) {
	r := newTest(t, testEntries(), Options{})
	tests := []struct {
		tok, verb string
		tier      Tier
	}{
		{"search", "search", TierExact},
		{"lookup", "search", TierExact},
		{"Search", "search", TierCase},
		{"RECALL", "recall", TierCase},
		{"look-up", "web", TierCase},
		{"Search_Web", "web", TierCase},
		{"look up", "web", TierExact},
		{"searching", "search", TierMorph},
		{"searched", "search", TierMorph},
		{"searches", "search", TierMorph},
		{"queries", "search", TierMorph},
		{"sent", "send", TierMorph},
		{"recalled", "recall", TierMorph},
		{"looked up", "web", TierMorph},
		{"stopped", "cancel", TierMorph},
		{"computing", "calc", TierMorph},
		{"serch", "search", TierEdit},
		{"recal", "recall", TierSpelling}, // doubled l
		{"recll", "recall", TierEdit},
		{"saerch", "search", TierEdit},
		{"esarch", "search", TierEdit}, // first two letters swapped: one edit
		{"gettin", "fetch", TierEdit},  // a typo of an inflected form
		{"serching", "search", TierEdit},
		{"rekall", "recall", TierEdit},
		{"retrieve", "recall", TierSemantic},
		{"recollect", "recall", TierSemantic},
		{"approve", "approve", TierExact},
		{"Approve", "approve", TierCase},
		{"DENY", "deny", TierCase},
	}
	for _, tc := range tests {
		res := r.Resolve(tc.tok)
		if res.Verb != tc.verb || res.Tier != tc.tier || res.Code != "" {
			t.Errorf("Resolve(%q) = %s/%s code %q %v, want %s/%s", tc.tok, res.Verb, res.Tier, res.Code, res.Candidates, tc.verb, tc.tier)
		}
		if res.Score <= 0 || res.Score > 1 {
			t.Errorf("Resolve(%q): score %v out of (0,1]", tc.tok, res.Score)
		}
		if res.Input != tc.tok {
			t.Errorf("Resolve(%q): Input %q", tc.tok, res.Input)
		}
	}
}

func TestResolveStrict(t *testing.T) {
	r := newTest(t, testEntries(), Options{})
	for _, tc := range []struct{ tok, near string }{
		{"aprove", "approve"}, {"approved", "approve"}, {"approves", "approve"},
		{"aprooved", "approve"}, {"dney", "deny"}, {"denied", "deny"}, {"halts", "halt"},
		{"rejected", "deny"}, {"alow", "approve"},
	} {
		res := r.Resolve(tc.tok)
		if res.OK() || res.Code != codes.UnknownVerb || !res.NearMiss() {
			t.Errorf("Resolve(%q) = %+v, want a near miss", tc.tok, res)
			continue
		}
		if res.Candidates[0].Verb != tc.near {
			t.Errorf("Resolve(%q): candidates %v, want %s first", tc.tok, res.Candidates, tc.near)
		}
		if !errors.Is(res.Err(), ErrUnknownVerb) {
			t.Errorf("Resolve(%q).Err() = %v, want ErrUnknownVerb", tc.tok, res.Err())
		}
	}
	// A near miss of a strict verb never falls through to another verb,
	// even one that is within its own allowance.
	r2 := newTest(t, []Entry{{Verb: "deny", Strictness: Strict}, {Verb: "deno", Strictness: Loose}}, Options{})
	if res := r2.Resolve("deni"); res.OK() {
		t.Errorf("deni resolved to %s; want a near miss of deny", res.Verb)
	}
}

// TestResolveStrictLookalikes: a strict verb matches only its ASCII
// spelling (or an alias's), ASCII case aside. A token that Unicode case
// folding, NFC or NFKC, a dotless i or a dropped mark would take onto a
// strict name — directly, inflected or respelled — is a near miss naming
// it, whatever the letter.
func TestResolveStrictLookalikes(t *testing.T) {
	es := append(testEntries(),
		Entry{Verb: "fire", Strictness: Strict},      // for the ﬁ ligature
		Entry{Verb: "nix", Strictness: Strict},       // a short one, for ı
		Entry{Verb: "authorize", Strictness: Strict}, // for -ise
		Entry{Verb: "genehmigé", Strictness: Strict}, // a strict name that is not ASCII
	)
	r := newTest(t, es, Options{})
	for _, tc := range []struct{ tok, near string }{
		{"o\u212a", "approve"},                        // KELVIN SIGN, folded by lower-casing
		{"O\u212a", "approve"},                        //
		{"bloc\u212a", "deny"},                        //
		{"perm\u0130t", "approve"},                    // LATIN CAPITAL I WITH DOT ABOVE
		{"permI\u0307t", "approve"},                   // I + COMBINING DOT ABOVE, which NFC composes to U+0130
		{"perm\u0131t", "approve"},                    // dotless ı
		{"n\u0131x", "nix"},                           // dotless ı in a token too short for edits
		{"ye\u017f", "approve"},                       // LONG S, NFKC s
		{"\uff4f\uff4b", "approve"},                   // fullwidth ok
		{"\uff21\uff2c\uff2c\uff2f\uff37", "approve"}, // fullwidth ALLOW
		{"\U0001d428\U0001d424", "approve"},           // mathematical bold ok
		{"\ufb01re", "fire"},                          // ﬁ ligature
		{"o\u0301k", "approve"},                       // a combining mark NFC composes (ók)
		{"\u00f3k", "approve"},                        // the same, precomposed
		{"n\u00f6", "deny"},                           // a mark on a two-letter name
		{"h\u0430lt", ""},                             // Cyrillic а: MIXED_SCRIPT, checked below
		{"approv\u0130ng", "approve"},                 // inflected, through the morph tier
		{"bloc\u212aed", "deny"},                      //
		{"\uff41\uff50\uff50\uff52\uff4f\uff56\uff45\uff44", "approve"}, // fullwidth approved
		{"authori\u017fe", "authorize"},                                 // respelled, through the spelling tier
		{"authori\u017fed", "authorize"},
		{"GENEHMIG\u00c9", "genehmigé"}, // É is not ASCII: its case does not fold for a strict verb
	} {
		res := r.Resolve(tc.tok)
		if res.OK() {
			t.Errorf("Resolve(%+q) = %s (%s); a strict verb must be spelled in ASCII", tc.tok, res.Verb, res.Tier)
			continue
		}
		if tc.near == "" {
			if res.Code != codes.MixedScript {
				t.Errorf("Resolve(%+q) = %+v, want MIXED_SCRIPT", tc.tok, res)
			}
			continue
		}
		if res.Code != codes.UnknownVerb || !res.NearMiss() || len(res.Candidates) == 0 || res.Candidates[0].Verb != tc.near {
			t.Errorf("Resolve(%+q) = %+v, want a near miss of %s", tc.tok, res, tc.near)
			continue
		}
		if msg := res.Message(); !strings.Contains(msg, "did you mean /") {
			t.Errorf("Resolve(%+q).Message() = %q, want a suggestion", tc.tok, msg)
		}
	}
	// ASCII case aside, strict names still match; so does a non-ASCII
	// strict name as registered or with only its ASCII letters re-cased.
	for tok, want := range map[string]string{
		"OK": "approve", "Permit": "approve", "BLOCK": "deny", "Halt": "halt",
		"genehmigé": "genehmigé", "GENEHMIGé": "genehmigé", "Fire": "fire",
	} {
		if res := r.Resolve(tok); res.Verb != want {
			t.Errorf("Resolve(%q) = %+v, want %s", tok, res, want)
		}
	}
	// Non-strict verbs keep Unicode case folding.
	for tok, want := range map[string]string{"loo\u212a": "search", "\u017fearch": "search", "SEARCH": "search"} {
		if res := r.Resolve(tok); res.Verb != want {
			t.Errorf("Resolve(%+q) = %+v, want %s", tok, res, want)
		}
	}
}

// TestResolveInflectedTypos: a typo inside an inflected form resolves by
// the edit tier, reporting the form; a stem whose suffix was spelled by
// rule is compared with the names (shtop+ed ~ stop).
func TestResolveInflectedTypos(t *testing.T) {
	r := newTest(t, testEntries(), Options{})
	for _, tc := range []struct{ tok, verb, name, form string }{
		{"cancled", "cancel", "cancel", "canceled"}, // canceled beside WordNet's cancelled
		{"caceled", "cancel", "cancel", "canceled"},
		{"cancelld", "cancel", "cancel", "cancelled"},
		{"canceling", "cancel", "cancel", ""}, // morph: an exact form
		{"featchs", "fetch", "fetch", "fetches"},
		{"shtoped", "cancel", "stop", "stopped"}, // stem shtop ~ stop
		{"udateed", "context", "update", "updated"},
		{"safeing", "recall", "save", "saving"},
		{"escalatin", "escalate", "escalate", "escalating"},
		{"calculatin", "calc", "calculate", "calculating"},
		{"fecthing", "fetch", "fetch", "fetching"},
	} {
		res := r.Resolve(tc.tok)
		if res.Verb != tc.verb || res.Name != tc.name || res.Form != tc.form {
			t.Errorf("Resolve(%q) = %s name %q form %q (%s), want %s name %q form %q", tc.tok, res.Verb, res.Name, res.Form, res.Tier, tc.verb, tc.name, tc.form)
		}
	}
	// The stem's name must take the token's ending: mach+es is not math
	// (maths), asend+ed is not send (sent), cylc+es is not calc (calcs).
	for _, tok := range []string{"maches", "asended", "cylces", "calues", "cahces", "macthes"} {
		if res := r.Resolve(tok); res.OK() {
			t.Errorf("Resolve(%q) = %s (%s, form %q), want no verb", tok, res.Verb, res.Tier, res.Form)
		}
	}
	// A strict verb's forms stay exact-only: a near miss, never a match.
	for _, tok := range []string{"approvd", "blokced", "dennied", "rejectd", "permitted"} {
		if res := r.Resolve(tok); res.OK() || !res.NearMiss() {
			t.Errorf("Resolve(%q) = %+v, want a near miss", tok, res)
		}
	}
	// A British spelling of a name is a form of it, unless it is a name of
	// its own verb.
	one := newTest(t, []Entry{{Verb: "analyze"}}, Options{})
	if res := one.Resolve("analysng"); res.Verb != "analyze" || res.Form != "analysing" {
		t.Errorf("analysng with analyze: %+v", res)
	}
	two := newTest(t, []Entry{{Verb: "analyze"}, {Verb: "analyse"}}, Options{})
	if res := two.Resolve("analysng"); res.Verb != "analyse" {
		t.Errorf("analysng with analyse and analyze: %+v", res)
	}
}

// TestSuggestions: every UNKNOWN_VERB says what is near, within a radius
// wider than the tiers', nearest first; suggestions are apart from the
// candidates and never a resolution.
func TestSuggestions(t *testing.T) {
	r := newTest(t, testEntries(), Options{})
	for _, tc := range []struct {
		tok  string
		want []string // suggested names, in order
		msg  string
	}{
		{"escate", []string{"escalate"}, "/escate is not a verb — did you mean /escalate?"},
		{"escated", []string{"escalate"}, ""},
		{"escates", []string{"escalate"}, ""},
		{"featchd", []string{"fetch"}, ""},
		{"caclate", []string{"calculate"}, ""},
		{"rembers", []string{"remember", "remember"}, "/rembers is not a verb — did you mean /remember?"},
		{"snd", []string{"send"}, ""},       // too short for edits, not for a suggestion
		{"aprove", []string{"approve"}, ""}, // a near miss names the strict verb only
		{"ｓｅａｒｃｈ", []string{"search"}, ""},  // compared as it reads
		{"xqzt", nil, "/xqzt is not a verb"},
		{"caf\xff", nil, ""}, // invalid UTF-8: nothing
	} {
		res := r.Resolve(tc.tok)
		if res.OK() || res.Code != codes.UnknownVerb {
			t.Errorf("Resolve(%q) = %+v, want UNKNOWN_VERB", tc.tok, res)
			continue
		}
		var got []string
		for _, c := range res.Suggestions {
			got = append(got, c.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Resolve(%q).Suggestions = %v, want %v", tc.tok, res.Suggestions, tc.want)
		}
		if tc.msg != "" && res.Message() != tc.msg {
			t.Errorf("Resolve(%q).Message() = %q, want %q", tc.tok, res.Message(), tc.msg)
		}
	}
	// Only the nearest, at most MaxCandidates; a name held back by the
	// word guard stays a candidate, as before, and is suggested too.
	if res := r.Resolve("sand"); len(res.Candidates) == 0 || res.Candidates[0].Name != "send" || len(res.Suggestions) == 0 || res.Suggestions[0].Name != "send" {
		t.Errorf("sand: candidates %v, suggestions %v; want send in both", res.Candidates, res.Suggestions)
	}
	if res := r.Resolve("onot"); len(res.Suggestions) != 3 || res.Candidates != nil {
		t.Errorf("onot: candidates %v, suggestions %v; want three suggestions, no candidates", res.Candidates, res.Suggestions)
	}
	big := newTest(t, benchVocab(1000), Options{MaxCandidates: 2})
	if res := big.Resolve("onot"); len(res.Suggestions) > 2 {
		t.Errorf("MaxCandidates 2: %v", res.Suggestions)
	}
	// Resolved and ambiguous tokens have no suggestions.
	for _, tok := range []string{"search", "serch", "remember", "sеarch"} {
		if res := r.Resolve(tok); res.Suggestions != nil {
			t.Errorf("Resolve(%q) has suggestions %v", tok, res.Suggestions)
		}
	}
	if !errors.Is(r.Resolve("escate").Err(), ErrUnknownVerb) {
		t.Error("an UNKNOWN_VERB with suggestions is not ErrUnknownVerb")
	}
}

func TestResolveNeverVerbs(t *testing.T) {
	r := newTest(t, testEntries(), Options{})
	for _, tok := range []string{"etc", "data", "tmp", "app", "div", "f", "x", "r", "usr", "bin", "dev", "home",
		"code", "style", "title", "head", "span", "body", "strong", "login", "screenshots", "cypress", "e2e", "h1", ""} {
		if res := r.Resolve(tok); res.OK() {
			t.Errorf("Resolve(%q) = %s (%s), want no verb", tok, res.Verb, res.Tier)
		}
	}
}

func TestResolveMixedScript(t *testing.T) {
	r := newTest(t, testEntries(), Options{})
	res := r.Resolve("sеarch") // Cyrillic е
	if res.Code != codes.MixedScript || res.Offset != 1 || !errors.Is(res.Err(), ErrMixedScript) {
		t.Errorf("mixed: %+v", res)
	}
	if res := r.Resolve("ѕеагсh"); res.Code != codes.MixedScript { // all look-alikes
		t.Errorf("all look-alikes: %+v", res)
	}
	var e *Error
	if !errors.As(res.Err(), &e) || e.Input != "sеarch" {
		t.Errorf("errors.As: %v", res.Err())
	}
	// A word of another script is not mixed.
	if res := r.Resolve("искать"); res.Code != codes.UnknownVerb {
		t.Errorf("Cyrillic word: %+v", res)
	}
}

func TestResolveAmbiguous(t *testing.T) {
	r := newTest(t, testEntries(), Options{})
	res := r.Resolve("remember")
	if res.Code != codes.AmbiguousVerb || len(res.Candidates) != 2 || !errors.Is(res.Err(), ErrAmbiguousVerb) {
		t.Fatalf("remember: %+v", res)
	}
	// Results do not share their candidates with the resolver.
	res.Candidates[0].Verb = "mangled"
	if again := r.Resolve("remember"); again.Candidates[0].Verb == "mangled" {
		t.Error("a caller's change to Candidates leaked into the resolver")
	}
	es := testEntries()
	es[0].Priority = 1
	if res := newTest(t, es, Options{}).Resolve("remember"); res.Verb != "recall" {
		t.Errorf("with priority: %+v", res)
	}
	// Two verbs at the same edit distance: ambiguous, never a guess.
	r2 := newTest(t, []Entry{{Verb: "sort"}, {Verb: "sore"}}, Options{})
	if res := r2.Resolve("sorx"); res.Code != codes.AmbiguousVerb || len(res.Candidates) != 2 {
		t.Errorf("sorx: %+v", res)
	}
}

func TestResolveOptions(t *testing.T) {
	// /sand is a word: not a typo of /send unless the guard is off.
	es := []Entry{{Verb: "send"}}
	if res := newTest(t, es, Options{}).Resolve("sand"); res.OK() {
		t.Errorf("sand resolved with the word guard on: %+v", res)
	}
	if res := newTest(t, es, Options{NoWordGuard: true}).Resolve("sand"); res.Verb != "send" || res.Tier != TierEdit {
		t.Errorf("sand without the guard: %+v", res)
	}
	// Phonetic: fone is two edits from phone (too many for a 4-letter
	// token of a normal verb) but sounds the same.
	ph := []Entry{{Verb: "phone"}}
	if res := newTest(t, ph, Options{}).Resolve("fone"); res.Verb != "phone" || res.Tier != TierPhonetic {
		t.Errorf("fone: %+v", res)
	}
	if res := newTest(t, ph, Options{NoPhonetic: true}).Resolve("fone"); res.OK() {
		t.Errorf("fone with phonetics off: %+v", res)
	}
	if res := newTest(t, testEntries(), Options{NoLexicon: true}).Resolve("retrieve"); res.OK() {
		t.Errorf("retrieve without the lexicon: %+v", res)
	}
	// Wider allowances are honoured.
	if res := newTest(t, es, Options{Normal: Allowance{Short: 2, Long: 3}}).Resolve("sxnx"); res.Verb != "send" {
		t.Errorf("sxnx with normal allowance 2: %+v", res)
	}
	if res := newTest(t, es, Options{}).Resolve("sxnx"); res.OK() {
		t.Errorf("sxnx with the default allowance: %+v", res)
	}
	if res := newTest(t, es, Options{Normal: Allowance{Short: -1, Long: -1}, NoPhonetic: true}).Resolve("sned"); res.OK() {
		t.Errorf("sned with no edits allowed: %+v", res)
	}
	// A synonym of a strict verb never resolves to it.
	if res := newTest(t, testEntries(), Options{}).Resolve("sanction"); res.Verb == "approve" {
		t.Errorf("sanction: %+v", res)
	}
}

func TestResolveNFC(t *testing.T) {
	r := newTest(t, []Entry{{Verb: "café"}}, Options{}) // composed é
	if res := r.Resolve("cafe\u0301"); res.Verb != "café" {
		t.Errorf("decomposed: %+v", res)
	}
	if res := r.Resolve("CAFÉ"); res.Verb != "café" || res.Tier != TierCase {
		t.Errorf("upper: %+v", res)
	}
	if res := r.Resolve("caf\xff"); res.OK() {
		t.Errorf("invalid UTF-8: %+v", res)
	}
}

func TestLongestPhrase(t *testing.T) {
	r := newTest(t, append(testEntries(), Entry{Verb: "memo", Names: []string{"note to self", "jot down"}}), Options{})
	tests := []struct {
		words []string
		want  int
	}{
		{[]string{"look", "up", "the", "weather"}, 2},
		{[]string{"looked", "up", "x"}, 2},
		{[]string{"note", "to", "self", "buy"}, 3},
		{[]string{"Jot", "Down"}, 2},
		{[]string{"look", "at"}, 0},
		{[]string{"search"}, 0},
	}
	for _, tc := range tests {
		if got := r.LongestPhrase(tc.words); got != tc.want {
			t.Errorf("LongestPhrase(%v) = %d, want %d", tc.words, got, tc.want)
		}
	}
	for prefix, want := range map[string]bool{
		"look": true, "Looked": true, "looking": true, "note to": true, "note": true,
		"search": true, "jot": true, "jotted": true, "note to self": false, "fetch": false, "": false,
	} {
		if got := r.Extends(prefix); got != want {
			t.Errorf("Extends(%q) = %v, want %v", prefix, got, want)
		}
	}
	if res := r.Resolve("jotting down"); res.Verb != "memo" || res.Tier != TierMorph {
		t.Errorf("jotting down: %+v", res)
	}
}

func TestNewErrors(t *testing.T) {
	for _, es := range [][]Entry{
		{{Verb: ""}},
		{{Verb: "a"}, {Verb: "A"}},
		{{Verb: "a", Names: []string{" - "}}},
	} {
		if _, err := New(es, Options{}); !errors.Is(err, ErrBadEntry) {
			t.Errorf("New(%v) = %v, want ErrBadEntry", es, err)
		}
	}
}

func TestMessages(t *testing.T) {
	r := newTest(t, testEntries(), Options{})
	for tok, want := range map[string]string{
		"aprove":   "/aprove is not a verb — did you mean /approve?",
		"remember": "I couldn't tell if you meant /recall or /context — which one?",
		"search":   "",
	} {
		if got := r.Resolve(tok).Message(); got != want {
			t.Errorf("Message(%q) = %q, want %q", tok, got, want)
		}
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"serch":         "serch",
		"ser\x1b[31mch": `ser\x1b[31mch`,
		"a\u202eb":      `a\u202eb`,
		"a\xffb":        `a\xffb`,
		"café\u009b":    `café\u009b`,
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
	r := newTest(t, testEntries(), Options{})
	if msg := r.Resolve("x\x1b]0;pwned\x07").Message(); strings.ContainsAny(msg, "\x1b\x07") {
		t.Errorf("message carries control characters: %q", msg)
	}
}

func TestResolveConcurrent(t *testing.T) {
	r := newTest(t, testEntries(), Options{})
	toks := []string{"search", "serch", "Recall", "aprove", "retrieve", "xylophone", "sеarch", "looked up"}
	want := make([]Result, len(toks))
	for i, tok := range toks {
		want[i] = r.Resolve(tok)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				for j, tok := range toks {
					got := r.Resolve(tok)
					if got.Verb != want[j].Verb || got.Code != want[j].Code || got.Tier != want[j].Tier {
						t.Errorf("concurrent Resolve(%q) = %+v, want %+v", tok, got, want[j])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// refOSA is the textbook optimal string alignment distance.
func refOSA(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

func TestOSA(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	word := func() string {
		n := rng.Intn(9)
		b := make([]rune, n)
		for i := range b {
			b[i] = rune("abcde é"[rng.Intn(7)])
		}
		return string(b)
	}
	for i := 0; i < 5000; i++ {
		a, b := word(), word()
		ra, rb := []rune(a), []rune(b)
		ref := refOSA(ra, rb)
		var p pattern
		setPattern(&p, ra)
		for k := 0; k <= 4; k++ {
			got := osa(ra, rb, k)
			if ref <= k && got != ref || ref > k && got != k+1 {
				t.Fatalf("osa(%q, %q, %d) = %d, reference %d", a, b, k, got, ref)
			}
			if got := p.osa(rb, k); ref <= k && got != ref || ref > k && got != k+1 {
				t.Fatalf("pattern(%q).osa(%q, %d) = %d, reference %d", a, b, k, got, ref)
			}
		}
		if lev := levenshtein.ComputeDistance(a, b); ref > lev || ref > matchr.OSA(a, b) {
			t.Fatalf("osa(%q, %q) = %d > levenshtein %d or matchr.OSA %d", a, b, ref, lev, matchr.OSA(a, b))
		}
		if s := sigDistance(signature(ra), signature(rb)); s > 2*ref {
			t.Fatalf("signature bound broken for %q, %q: %d > 2*%d", a, b, s, ref)
		}
	}
	if d := osa([]rune("esarch"), []rune("search"), 3); d != 1 {
		t.Errorf("transposed first letters: %d, want 1", d)
	}
	// Words of 60–64 runes, the most a pattern holds, with a few edits.
	for i := 0; i < 300; i++ {
		a := make([]rune, 60+rng.Intn(5))
		for j := range a {
			a[j] = rune("abcdeé"[rng.Intn(6)])
		}
		b := append([]rune(nil), a...)
		for e := rng.Intn(4); e > 0; e-- {
			j := rng.Intn(len(b) - 1)
			switch rng.Intn(3) {
			case 0:
				b[j], b[j+1] = b[j+1], b[j]
			case 1:
				b = append(b[:j], b[j+1:]...)
			default:
				b[j] = 'x'
			}
		}
		var p pattern
		if !setPattern(&p, a) {
			t.Fatalf("setPattern refused %d runes", len(a))
		}
		if ref, got := refOSA(a, b), p.osa(b, 5); ref <= 5 && got != ref || ref > 5 && got != 6 {
			t.Fatalf("long pattern: osa %d, reference %d", got, ref)
		}
	}
	var p pattern
	if setPattern(&p, make([]rune, 65)) {
		t.Error("setPattern accepted 65 runes")
	}
}

func ExampleResolver_Resolve() {
	r, _ := New([]Entry{
		{Verb: "search", Names: []string{"find"}, Strictness: Loose},
		{Verb: "approve", Strictness: Strict},
	}, Options{})
	for _, tok := range []string{"search", "Searching", "serch", "aprove"} {
		res := r.Resolve(tok)
		if res.OK() {
			fmt.Printf("%s: %s (%s)\n", tok, res.Verb, res.Tier)
		} else {
			fmt.Printf("%s: %s: %s\n", tok, res.Code, res.Message())
		}
	}
	// Output:
	// search: search (exact)
	// Searching: search (morph)
	// serch: search (edit)
	// aprove: UNKNOWN_VERB: /aprove is not a verb — did you mean /approve?
}

// TestDeletionIndex checks that the one-deletion index finds exactly what
// the signature scan finds, and that the suggestions do not depend on
// which of the two the edit tier used.
func TestDeletionIndex(t *testing.T) {
	es := benchVocab(400)
	indexed := newTest(t, es, Options{})
	scanned := newTest(t, es, Options{})
	scanned.dix = func() *delIndex { return nil }
	rng := rand.New(rand.NewSource(7))
	mutate := func(s string) string {
		rs := []rune(s)
		for e := rng.Intn(3); e >= 0 && len(rs) > 1; e-- {
			i := rng.Intn(len(rs))
			switch rng.Intn(4) {
			case 0:
				rs = append(rs[:i], rs[i+1:]...)
			case 1:
				rs[i] = rune('a' + rng.Intn(26))
			case 2:
				rs = append(rs[:i], append([]rune{rune('a' + rng.Intn(26))}, rs[i:]...)...)
			case 3:
				if i+1 < len(rs) {
					rs[i], rs[i+1] = rs[i+1], rs[i]
				}
			}
		}
		return string(rs)
	}
	names := indexed.names
	for i := 0; i < 3000; i++ {
		tok := mutate(names[rng.Intn(len(names))].key)
		var a, b scan
		var q probe
		q.set(tok)
		indexed.editScan(&a, &q, letterCount(tok), true, nil)
		scanned.editScan(&b, &q, letterCount(tok), true, nil)
		if fmt.Sprint(sortedMatches(a.matches)) != fmt.Sprint(sortedMatches(b.matches)) {
			t.Fatalf("%q: index %v, scan %v", tok, a.matches, b.matches)
		}
		// Suggestions come from the edit tier's own pass when it scans
		// the class name by name, from a pass of their own otherwise:
		// the same either way.
		if x, y := indexed.Resolve(tok), scanned.Resolve(tok); x.Verb != y.Verb || x.Code != y.Code || x.Tier != y.Tier ||
			fmt.Sprint(x.Suggestions) != fmt.Sprint(y.Suggestions) {
			t.Fatalf("%q: index %+v, scan %+v", tok, x, y)
		}
	}
}

func sortedMatches(ms []match) []match {
	out := append([]match(nil), ms...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].verb < out[j-1].verb; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
