// Command resolve evaluates verb resolution (issue 3) on the shared data:
//
//	go run ./internal/eval/resolve [-data ../shared/data] [-vocab 1000]
//
// It prints (a) misspellings resolved with our vocabulary and with a large
// one, (b) morphology per feature, (c) phonetic encoder agreement with test
// vectors and (d) the /word tokens of real model outputs that resolve to a
// verb. The data directory defaults to $DIALECT_DATA, else ../shared/data.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pattern-dialect/dialect/fuzzy"
)

func main() {
	def := os.Getenv("DIALECT_DATA")
	if def == "" {
		def = filepath.Join("..", "shared", "data")
	}
	data := flag.String("data", def, "shared data directory")
	size := flag.Int("vocab", 1000, "verbs in the large vocabulary")
	flag.Parse()
	if _, err := os.Stat(*data); err != nil {
		fmt.Fprintf(os.Stderr, "resolve eval: no data at %s (set -data or DIALECT_DATA): %v\n", *data, err)
		os.Exit(2)
	}
	if err := run(os.Stdout, *data, *size); err != nil {
		fmt.Fprintln(os.Stderr, "resolve eval:", err)
		os.Exit(1)
	}
}

func readTSVFile(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readTSV(f)
}

func run(w io.Writer, data string, size int) error {
	ours := builtinEntries()
	r, err := fuzzy.New(ours, fuzzy.Options{})
	if err != nil {
		return err
	}
	own, strict := owners(ours)

	// (a) misspellings
	rows, err := readTSVFile(filepath.Join(data, "misspellings", "verb_misspellings.tsv"))
	if err != nil {
		return err
	}
	big := bigVocabulary(rows, size)
	rb, err := fuzzy.New(big, fuzzy.Options{})
	if err != nil {
		return err
	}
	bigOwn, bigStrict := owners(big)
	fmt.Fprintln(w, "(a) misspellings (misspellings/verb_misspellings.tsv)")
	oursRep := evalMisspellings(rows, r, own, strict, 2)
	printSpell(w, fmt.Sprintf("our vocabulary (%d verbs), rows whose lemma is one of our names, edit distance <= 2", len(ours)), oursRep)
	fmt.Fprintf(w, "    unresolved, with what they are offered: %s\n", strings.Join(oursRep.misses, "; "))
	printSpell(w, "our vocabulary, same rows, any distance", evalMisspellings(rows, r, own, strict, 0))
	printSpell(w, fmt.Sprintf("%d-verb vocabulary, rows whose lemma is one of our names, edit distance <= 2", len(big)), evalMisspellings(rows, rb, own, strict, 2))
	printSpell(w, fmt.Sprintf("%d-verb vocabulary, rows whose lemma is any of its verbs, edit distance <= 2", len(big)), evalMisspellings(rows, rb, bigOwn, bigStrict, 2))

	// (b) morphology
	mrows, err := readTSVFile(filepath.Join(data, "morph", "verb_inflections.tsv"))
	if err != nil {
		return err
	}
	m := evalMorph(mrows)
	fmt.Fprintln(w, "\n(b) morphology: normalize(form) == lemma (morph/verb_inflections.tsv)")
	feats := make([]string, 0, len(m.perFeature))
	for f := range m.perFeature {
		feats = append(feats, f)
	}
	sort.Strings(feats)
	for _, f := range feats {
		fmt.Fprintf(w, "  %-9s %s\n", f, m.perFeature[f])
	}
	fmt.Fprintf(w, "  %-9s %s\n", "overall", m.all)
	fmt.Fprintf(w, "  first misses: %s\n", strings.Join(m.misses, ", "))

	// (c) phonetics
	p, err := evalPhonetic(filepath.Join(data, "phonetic"))
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\n(c) phonetic encoders (antzucaro/matchr) against phonetic/ test vectors")
	fmt.Fprintf(w, "  Soundex codes (soundex.tsv):                       %s\n", p.soundex)
	fmt.Fprintf(w, "  Soundex difference (soundex_difference.tsv):       %s\n", p.difference)
	fmt.Fprintf(w, "  Double Metaphone primary = Metaphone (metaphone.tsv): %s\n", p.metaphone)
	fmt.Fprintf(w, "  same, expected code cut to 4 letters:              %s\n", p.metaphone4)
	fmt.Fprintf(w, "  Double Metaphone equal on Metaphone-equal pairs:   %s\n", p.equalPairs)

	// (d) false matches
	for _, v := range []struct {
		name string
		r    *fuzzy.Resolver
	}{{"our vocabulary", r}, {fmt.Sprintf("%d-verb vocabulary", len(big)), rb}} {
		fr, err := evalFalseMatches(filepath.Join(data, "llm_outputs"), v.r)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\n(d) /word tokens at a word start in llm_outputs/, %s: %d tokens, %d distinct, %d distinct resolve to a verb\n",
			v.name, fr.tokens, len(fr.distinct), len(fr.resolved))
		all := make([]string, 0, len(fr.distinct))
		for t := range fr.distinct {
			all = append(all, fmt.Sprintf("/%s×%d", t, fr.distinct[t]))
		}
		sort.Strings(all)
		fmt.Fprintf(w, "  tokens: %s\n", strings.Join(all, " "))
		words := make([]string, 0, len(fr.resolved))
		for w := range fr.resolved {
			words = append(words, w)
		}
		sort.Strings(words)
		nonExact := 0
		for _, t := range words {
			res := fr.resolved[t]
			if res.Tier != fuzzy.TierExact && res.Tier != fuzzy.TierCase {
				nonExact++
			}
			fmt.Fprintf(w, "  /%s ×%d → %s (%s)\n", t, fr.distinct[t], res.Verb, res.Tier)
		}
		fmt.Fprintf(w, "  resolved by a tier other than exact/case: %d\n", nonExact)
	}
	fmt.Fprint(w, "\n(d) tokens that must never become verbs, our vocabulary:")
	for _, tok := range []string{"etc", "data", "tmp", "app", "div", "f", "usr", "dev", "bin", "home", "var", "api"} {
		res := r.Resolve(tok)
		if res.OK() {
			fmt.Fprintf(w, " /%s→%s(%s)", tok, res.Verb, res.Tier)
		} else {
			fmt.Fprintf(w, " /%s→none", tok)
		}
	}
	fmt.Fprintln(w)

	// (e) one-edit typos
	for _, v := range []struct {
		name string
		es   []fuzzy.Entry
		r    *fuzzy.Resolver
	}{{"our vocabulary", ours, r}, {fmt.Sprintf("%d-verb vocabulary", len(big)), big, rb}} {
		t := evalTypos(v.es, v.r)
		fmt.Fprintf(w, "\n(e) one-edit typos of every single-word name, %s: %d tokens\n", v.name, t.tokens)
		n := t.tokens - t.strictTokens
		fmt.Fprintf(w, "  non-strict %d: right %s, wrong %s, ambiguous %s, unresolved %s\n", n,
			share{t.right, n}, share{t.wrong, n}, share{t.ambiguous, n}, share{t.unresolved, n})
		fmt.Fprintf(w, "    by tier (right/wrong): %s\n", tierLine(t.byTier))
		fmt.Fprintf(w, "    unresolved with the right verb suggested first: %d/%d\n", t.unresolvedOffered, t.unresolved)
		fmt.Fprintf(w, "  strict %d: resolved to a verb %d (must be 0), near miss naming the verb %d\n", t.strictTokens, t.strictResolve, t.strictNear)
		if len(t.wrongExamples) > 0 {
			fmt.Fprintf(w, "    wrong: %s\n", strings.Join(t.wrongExamples, ", "))
		}
	}

	// (f) strict names spelled with letters that fold or normalise onto them
	l := evalLookalikes(ours, r)
	fmt.Fprintf(w, "\n(f) strict names with fold/normalisation look-alikes (K, İ, I+U+0307, ı, ſ, ligatures, fullwidth, marks): %d tokens, resolved %d (must be 0), near miss naming the verb %d\n", l.tokens, len(l.leaks), l.near)
	if len(l.leaks) > 0 {
		fmt.Fprintf(w, "  resolved: %s\n", strings.Join(l.leaks, ", "))
	}

	// (g) the misspelled inflections
	fmt.Fprintln(w, "\n(g) misspelled inflections from the issue, our vocabulary")
	for _, tok := range []string{"cancled", "caceled", "escated", "escates", "featchd", "featchs", "shtoped", "udateed", "safeing", "escate", "caclate"} {
		res := r.Resolve(tok)
		if res.OK() {
			fmt.Fprintf(w, "  %s → %s (%s, name %s%s)\n", tok, res.Verb, res.Tier, res.Name, formOf(res))
		} else {
			fmt.Fprintf(w, "  %s — %s\n", offered(tok, res), res.Message())
		}
	}
	return nil
}

// tierLine prints right/wrong counts per tier in tier order; TierNone
// counts AMBIGUOUS_VERB answers that are right by design.
func tierLine(m map[fuzzy.Tier][2]int) string {
	var parts []string
	for t := fuzzy.TierNone; t <= fuzzy.TierSemantic; t++ {
		c, ok := m[t]
		if !ok {
			continue
		}
		name := t.String()
		if t == fuzzy.TierNone {
			name = "ambiguous-by-design"
		}
		parts = append(parts, fmt.Sprintf("%s %d/%d", name, c[0], c[1]))
	}
	return strings.Join(parts, ", ")
}

// formOf names the inflected form a fuzzy match was made against, if any.
func formOf(res fuzzy.Result) string {
	if res.Form == "" {
		return ""
	}
	return ", form " + res.Form
}

func printSpell(w io.Writer, title string, s spellReport) {
	fmt.Fprintf(w, "  %s\n", title)
	fmt.Fprintf(w, "    non-strict rows %d: right verb %s, wrong verb %s, unresolved %s\n",
		s.rows, share{s.correct, s.rows}, share{s.wrong, s.rows}, share{s.unresolved, s.rows})
	ds := make([]int, 0, len(s.byDist))
	for d := range s.byDist {
		ds = append(ds, d)
	}
	sort.Ints(ds)
	for _, d := range ds {
		c := s.byDist[d]
		fmt.Fprintf(w, "      distance %d: right %d, wrong %d, unresolved %d\n", d, c[0], c[1], c[2])
	}
	fmt.Fprintf(w, "      by tier (right/wrong): %s\n", tierLine(s.byTier))
	codes := make([]string, 0, len(s.noAnswer))
	for c, n := range s.noAnswer {
		codes = append(codes, fmt.Sprintf("%s %d", c, n))
	}
	sort.Strings(codes)
	fmt.Fprintf(w, "      no answer: %s; the right verb offered first %d, offered at all %d\n", strings.Join(codes, ", "), s.suggested[0], s.suggested[1])
	fmt.Fprintf(w, "    strict-verb rows %d: resolved to a verb %d (must be 0), near miss naming the verb %d, else suggesting it first %d\n",
		s.strictRows, s.strictResolved, s.strictSuggested, s.strictOffered)
	if len(s.wrongExamples) > 0 {
		fmt.Fprintf(w, "    wrong: %s\n", strings.Join(s.wrongExamples, ", "))
	}
}
