package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/antzucaro/matchr"
	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/fuzzy"
	"github.com/pattern-dialect/dialect/morph"
	"github.com/pattern-dialect/dialect/verbs"
)

// builtinEntries is the built-in vocabulary as resolver entries.
func builtinEntries() []fuzzy.Entry {
	var es []fuzzy.Entry
	for _, s := range verbs.Builtin() {
		es = append(es, fuzzy.Entry{Verb: s.Name, Names: s.Aliases, Strictness: s.Strictness})
	}
	return es
}

// owners maps every name of the entries to the verbs that claim it, and
// says which verbs are strict.
func owners(es []fuzzy.Entry) (map[string][]string, map[string]bool) {
	own := map[string][]string{}
	strict := map[string]bool{}
	for _, e := range es {
		if e.Strictness == fuzzy.Strict {
			strict[e.Verb] = true
		}
		for _, n := range append([]string{e.Verb}, e.Names...) {
			own[n] = append(own[n], e.Verb)
		}
	}
	return own, strict
}

// readTSV reads a tab-separated file with a header line.
func readTSV(r io.Reader) ([][]string, error) {
	var rows [][]string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	first := true
	for sc.Scan() {
		if first {
			first = false
			continue
		}
		if sc.Text() == "" {
			continue
		}
		rows = append(rows, strings.Split(sc.Text(), "\t"))
	}
	return rows, sc.Err()
}

// share is a count out of a total.
type share struct{ n, of int }

func (s share) String() string {
	if s.of == 0 {
		return "0/0"
	}
	return fmt.Sprintf("%d/%d = %.2f%%", s.n, s.of, 100*float64(s.n)/float64(s.of))
}

// morphReport is (b): normalize(form) == lemma, per feature.
type morphReport struct {
	perFeature map[string]*share
	all        share
	misses     []string
}

func evalMorph(rows [][]string) morphReport {
	rep := morphReport{perFeature: map[string]*share{}}
	for _, r := range rows {
		if len(r) < 3 {
			continue
		}
		f := rep.perFeature[r[2]]
		if f == nil {
			f = &share{}
			rep.perFeature[r[2]] = f
		}
		f.of++
		rep.all.of++
		if got := morph.Normalize(r[0]); got == r[1] {
			f.n++
			rep.all.n++
		} else if len(rep.misses) < 20 {
			rep.misses = append(rep.misses, fmt.Sprintf("%s→%s (want %s)", r[0], got, r[1]))
		}
	}
	return rep
}

// spellReport is (a) for one vocabulary and one slice of rows.
type spellReport struct {
	rows, correct, wrong, unresolved int
	strictRows, strictResolved       int // strict verbs: any resolution is wrong
	strictSuggested                  int // near miss naming the right verb
	strictOffered                    int // no near miss, but the right verb suggested first
	byDist                           map[int][3]int
	byTier                           map[fuzzy.Tier][2]int // right, wrong per resolving tier
	noAnswer                         map[codes.Code]int    // unresolved rows per failure code
	suggested                        [2]int                // unresolved rows offering the right verb: first, anywhere
	wrongExamples                    []string
	misses                           []string // unresolved non-strict rows with what they were offered
}

// didYouMean returns the verbs a failed resolution offers the model: the
// suggestions of UNKNOWN_VERB, the tied verbs of AMBIGUOUS_VERB.
func didYouMean(res fuzzy.Result) []fuzzy.Candidate {
	if res.Code == codes.UnknownVerb {
		return res.Suggestions
	}
	return res.Candidates
}

// offered formats a failed resolution as "token → CODE [verb/name, ...]".
func offered(tok string, res fuzzy.Result) string {
	var cs []string
	for _, c := range didYouMean(res) {
		s := c.Verb
		if c.Name != c.Verb {
			s += "/" + c.Name
		}
		if c.Form != "" {
			s += " (" + c.Form + ")"
		}
		cs = append(cs, s)
	}
	return fmt.Sprintf("%s → %s [%s]", tok, res.Code, strings.Join(cs, ", "))
}

// evalMisspellings resolves every row whose lemma is a name in vocab (the
// names of interest) and scores it against the verbs owning that name.
func evalMisspellings(rows [][]string, r *fuzzy.Resolver, own map[string][]string, strict map[string]bool, maxDist int) spellReport {
	rep := spellReport{byDist: map[int][3]int{}, byTier: map[fuzzy.Tier][2]int{}, noAnswer: map[codes.Code]int{}}
	for _, row := range rows {
		if len(row) < 3 {
			continue
		}
		want, ok := own[row[2]]
		if !ok {
			continue
		}
		d := matchr.DamerauLevenshtein(row[0], row[1])
		if maxDist > 0 && d > maxDist {
			continue
		}
		res := r.Resolve(row[0])
		if strict[want[0]] {
			rep.strictRows++
			if res.OK() {
				rep.strictResolved++
				rep.wrongExamples = append(rep.wrongExamples, fmt.Sprintf("%s→%s (%s, strict %s)", row[0], res.Verb, res.Tier, want[0]))
			} else if cs := didYouMean(res); len(cs) > 0 && cs[0].Verb == want[0] {
				if res.NearMiss() {
					rep.strictSuggested++
				} else {
					rep.strictOffered++
				}
			}
			continue
		}
		rep.rows++
		bd := rep.byDist[d]
		switch {
		case res.OK() && contains(want, res.Verb):
			rep.correct++
			bd[0]++
			bt := rep.byTier[res.Tier]
			bt[0]++
			rep.byTier[res.Tier] = bt
		case res.OK():
			rep.wrong++
			bd[1]++
			bt := rep.byTier[res.Tier]
			bt[1]++
			rep.byTier[res.Tier] = bt
			if len(rep.wrongExamples) < 15 {
				rep.wrongExamples = append(rep.wrongExamples, fmt.Sprintf("%s→%s (%s, want %s)", row[0], res.Verb, res.Tier, strings.Join(want, "|")))
			}
		case res.Code == codes.AmbiguousVerb && len(want) > 1:
			// a name two verbs claim: AMBIGUOUS_VERB is the designed answer.
			rep.correct++
			bd[0]++
			bt := rep.byTier[fuzzy.TierNone]
			bt[0]++
			rep.byTier[fuzzy.TierNone] = bt
		default:
			rep.unresolved++
			bd[2]++
			rep.noAnswer[res.Code]++
			cs := didYouMean(res)
			for i, c := range cs {
				if contains(want, c.Verb) {
					if i == 0 {
						rep.suggested[0]++
					}
					rep.suggested[1]++
					break
				}
			}
			rep.misses = append(rep.misses, offered(row[0], res)+" want "+strings.Join(want, "|"))
		}
		rep.byDist[d] = bd
	}
	return rep
}

// typoReport is (e): every one-edit typo of every single-word name.
type typoReport struct {
	tokens                      int
	right, wrong, ambiguous     int
	unresolved                  int
	unresolvedOffered           int                   // unresolved, the right verb suggested first
	byTier                      map[fuzzy.Tier][2]int // right, wrong
	strictTokens, strictResolve int
	strictNear                  int // near miss naming the right verb
	wrongExamples               []string
}

// evalTypos resolves every string one OSA edit (deletion, insertion or
// substitution of a-z, transposition) away from a single-word name of es
// that is not itself a name, and scores it against the verbs owning the
// name it was made from. A token made from two names counts for each.
func evalTypos(es []fuzzy.Entry, r *fuzzy.Resolver) typoReport {
	rep := typoReport{byTier: map[fuzzy.Tier][2]int{}}
	own, strict := owners(es)
	names := make([]string, 0, len(own))
	for n := range own {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if strings.ContainsAny(n, " -_") {
			continue
		}
		want := own[n]
		for _, tok := range oneEdits(n) {
			if _, isName := own[tok]; isName {
				continue
			}
			rep.tokens++
			res := r.Resolve(tok)
			if strict[want[0]] {
				rep.strictTokens++
				if res.OK() {
					rep.strictResolve++
					rep.wrongExamples = append(rep.wrongExamples, fmt.Sprintf("%s→%s (%s, strict %s)", tok, res.Verb, res.Tier, want[0]))
				} else if cs := didYouMean(res); res.NearMiss() && len(cs) > 0 && cs[0].Verb == want[0] {
					rep.strictNear++
				}
				continue
			}
			bt := rep.byTier[res.Tier]
			switch {
			case res.OK() && contains(want, res.Verb):
				rep.right++
				bt[0]++
			case res.OK():
				rep.wrong++
				bt[1]++
				if len(rep.wrongExamples) < 20 {
					rep.wrongExamples = append(rep.wrongExamples, fmt.Sprintf("%s→%s (%s, typo of %s)", tok, res.Verb, res.Tier, n))
				}
			case res.Code == codes.AmbiguousVerb && len(want) > 1:
				// a name two verbs claim: AMBIGUOUS_VERB is the designed answer.
				rep.right++
				bt[0]++
				rep.byTier[fuzzy.TierNone] = bt
			case res.Code == codes.AmbiguousVerb:
				rep.ambiguous++
			default:
				rep.unresolved++
				if cs := didYouMean(res); len(cs) > 0 && contains(want, cs[0].Verb) {
					rep.unresolvedOffered++
				}
			}
			if res.OK() {
				rep.byTier[res.Tier] = bt
			}
		}
	}
	return rep
}

// oneEdits returns the distinct strings one OSA edit away from w (a-z
// only), w itself excluded.
func oneEdits(w string) []string {
	seen := map[string]bool{w: true}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for i := 0; i <= len(w); i++ {
		if i < len(w) {
			add(w[:i] + w[i+1:])
			if i+1 < len(w) {
				add(w[:i] + string(w[i+1]) + string(w[i]) + w[i+2:])
			}
		}
		for c := byte('a'); c <= 'z'; c++ {
			add(w[:i] + string(c) + w[i:])
			if i < len(w) {
				add(w[:i] + string(c) + w[i+1:])
			}
		}
	}
	return out
}

// lookalikeReport is (f).
type lookalikeReport struct {
	tokens, near int
	leaks        []string // tokens that resolved to a verb
}

// evalLookalikes resolves the fold look-alikes of every name of every
// strict verb of es, capitalised and not.
func evalLookalikes(es []fuzzy.Entry, r *fuzzy.Resolver) lookalikeReport {
	var rep lookalikeReport
	for _, e := range es {
		if e.Strictness != fuzzy.Strict {
			continue
		}
		for _, n := range append([]string{e.Verb}, e.Names...) {
			for _, tok := range append(foldVariants(n), foldVariants(strings.ToUpper(n[:1])+n[1:])...) {
				rep.tokens++
				res := r.Resolve(tok)
				switch {
				case res.OK():
					rep.leaks = append(rep.leaks, fmt.Sprintf("%+q→%s (%s)", tok, res.Verb, res.Tier))
				case res.NearMiss() && len(didYouMean(res)) > 0 && didYouMean(res)[0].Verb == e.Verb:
					rep.near++
				}
			}
		}
	}
	return rep
}

// foldVariants returns spellings of an ASCII name that Unicode case
// folding or normalisation (NFC, NFKC) takes back to it, or that differ
// from it only by a mark or a look-alike letter of the Latin script:
// fullwidth letters, U+212A KELVIN SIGN for k, U+0130 and I+U+0307 for i,
// dotless ı, U+017F long s, the ligatures ﬁ ﬂ ﬀ, a combining mark.
func foldVariants(name string) []string {
	var out []string
	swap := map[byte][]string{
		'k': {"\u212a"}, 'i': {"\u0130", "I\u0307", "\u0131"}, 's': {"\u017f"},
		'a': {"a\u0301"}, 'o': {"o\u0308"}, 'e': {"e\u0301"},
	}
	for i := 0; i < len(name); i++ {
		for _, v := range swap[name[i]] {
			out = append(out, name[:i]+v+name[i+1:])
		}
	}
	for _, lig := range []struct{ from, to string }{{"fi", "\ufb01"}, {"fl", "\ufb02"}, {"ff", "\ufb00"}} {
		if i := strings.Index(name, lig.from); i >= 0 {
			out = append(out, name[:i]+lig.to+name[i+2:])
		}
	}
	var full strings.Builder
	for _, c := range name {
		if c >= 'a' && c <= 'z' {
			c += 0xFF41 - 'a'
		}
		full.WriteRune(c)
	}
	out = append(out, full.String())
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// bigVocabulary returns our entries plus the most frequent lemmas of rows
// (as normal custom verbs) until there are size verbs.
func bigVocabulary(rows [][]string, size int) []fuzzy.Entry {
	es := builtinEntries()
	own, _ := owners(es)
	count := map[string]int{}
	for _, r := range rows {
		if len(r) >= 3 {
			count[r[2]]++
		}
	}
	lemmas := make([]string, 0, len(count))
	for l := range count {
		lemmas = append(lemmas, l)
	}
	sort.Slice(lemmas, func(i, j int) bool {
		if count[lemmas[i]] != count[lemmas[j]] {
			return count[lemmas[i]] > count[lemmas[j]]
		}
		return lemmas[i] < lemmas[j]
	})
	for _, l := range lemmas {
		if len(es) >= size {
			break
		}
		if _, ok := own[l]; ok {
			continue
		}
		es = append(es, fuzzy.Entry{Verb: l})
	}
	return es
}

// phoneticReport is (c).
type phoneticReport struct {
	soundex, metaphone, metaphone4, equalPairs, difference share
}

func evalPhonetic(dir string) (phoneticReport, error) {
	var rep phoneticReport
	load := func(name string) ([][]string, error) {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return readTSV(f)
	}
	rows, err := load("soundex.tsv")
	if err != nil {
		return rep, err
	}
	for _, r := range rows {
		if len(r) < 2 {
			continue
		}
		rep.soundex.of++
		if matchr.Soundex(r[0]) == r[1] {
			rep.soundex.n++
		}
	}
	if rows, err = load("metaphone.tsv"); err != nil {
		return rep, err
	}
	for _, r := range rows {
		if len(r) < 2 {
			continue
		}
		p, _ := matchr.DoubleMetaphone(r[0])
		rep.metaphone.of++
		if p == r[1] {
			rep.metaphone.n++
		}
		want := r[1]
		if len(want) > 4 {
			want = want[:4]
		}
		rep.metaphone4.of++
		if p == want {
			rep.metaphone4.n++
		}
	}
	if rows, err = load("metaphone_equal_pairs.tsv"); err != nil {
		return rep, err
	}
	for _, r := range rows {
		if len(r) < 2 {
			continue
		}
		a1, a2 := matchr.DoubleMetaphone(r[0])
		b1, b2 := matchr.DoubleMetaphone(r[1])
		rep.equalPairs.of++
		if a1 == b1 || a1 == b2 || a2 == b1 || a2 != "" && a2 == b2 {
			rep.equalPairs.n++
		}
	}
	if rows, err = load("soundex_difference.tsv"); err != nil {
		return rep, err
	}
	for _, r := range rows {
		if len(r) < 3 {
			continue
		}
		rep.difference.of++
		if fmt.Sprint(soundexDifference(r[0], r[1])) == r[2] {
			rep.difference.n++
		}
	}
	return rep, nil
}

// soundexDifference is the number of equal positions of two Soundex codes
// (0–4), as commons-codec defines it; blank input gives 0.
func soundexDifference(a, b string) int {
	if strings.TrimSpace(a) == "" || strings.TrimSpace(b) == "" {
		return 0
	}
	x, y := matchr.Soundex(a), matchr.Soundex(b)
	n := 0
	for i := 0; i < len(x) && i < len(y); i++ {
		if x[i] == y[i] {
			n++
		}
	}
	return n
}

// slashToken is one /word found at a word start.
type slashToken struct {
	word string
	file string
}

// findSlashWords returns every /word at a word start in text: the slash
// is at the start or after a character that is not a letter, digit, _, /,
// ., :, ~, - or \; the word is a letter then letters, digits, _ or -.
func findSlashWords(text string) []string {
	var out []string
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		if rs[i] != '/' {
			continue
		}
		if i > 0 {
			p := rs[i-1]
			if unicode.IsLetter(p) || unicode.IsDigit(p) || strings.ContainsRune("_/.:~-\\", p) {
				continue
			}
		}
		j := i + 1
		if j >= len(rs) || !unicode.IsLetter(rs[j]) {
			continue
		}
		for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) || rs[j] == '_' || rs[j] == '-' || unicode.Is(unicode.Mn, rs[j])) {
			j++
		}
		out = append(out, strings.TrimRight(string(rs[i+1:j]), "-_"))
		i = j - 1
	}
	return out
}

// falseReport is (d).
type falseReport struct {
	tokens   int
	distinct map[string]int
	resolved map[string]fuzzy.Result // distinct words that resolved
}

func evalFalseMatches(dir string, r *fuzzy.Resolver) (falseReport, error) {
	rep := falseReport{distinct: map[string]int{}, resolved: map[string]fuzzy.Result{}}
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return rep, err
	}
	if len(files) == 0 {
		return rep, fmt.Errorf("no .jsonl files in %s", dir)
	}
	for _, name := range files {
		if err := scanOutputs(name, func(text string) {
			for _, w := range findSlashWords(text) {
				rep.tokens++
				rep.distinct[w]++
			}
		}); err != nil {
			return rep, err
		}
	}
	for w := range rep.distinct {
		if res := r.Resolve(w); res.OK() {
			rep.resolved[w] = res
		}
	}
	return rep, nil
}

func scanOutputs(path string, fn func(text string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		var rec struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		fn(rec.Text)
	}
	return sc.Err()
}
