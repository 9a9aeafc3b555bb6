package morph

import (
	"strconv"
	"strings"
	"sync"
)

// Lexicon is the verb knowledge morph works from: WordNet's irregular verb
// forms, its verb lemmas and their synsets. A Lexicon is immutable and safe
// for concurrent use.
//
// Parsing is staged so that a process that only resolves exact verbs pays
// for none of it beyond the irregular forms: the lemma set is read on the
// first IsVerb, the synsets on the first Synonyms.
type Lexicon struct {
	exceptions map[string][]string // irregular form → lemmas, WordNet's order
	irregular  map[string][]string // lemma → its irregular forms

	verbs     string // the lemma lines, parsed on demand
	lemmaOnce sync.Once
	lemmas    map[string]int32 // lemma → line index
	names     []string         // lemma by index
	lines     []string         // the senses field of each lemma's line

	senseOnce sync.Once
	senses    [][]int32  // per lemma: shared synset of each sense, -1 when the sense has no other member
	members   [][]member // per shared synset: its lemmas
}

// member is one lemma of a synset, with the rank of that sense among the
// lemma's own senses (1 = its most frequent sense).
type member struct {
	lemma int32
	rank  int32
}

// defaultLexicon parses the compiled WordNet data once, on first use. The
// value is never modified afterwards.
var defaultLexicon = sync.OnceValue(func() *Lexicon {
	return parseLexicon(wordnetExceptions, wordnetVerbs)
})

// Default returns the lexicon built from the WordNet 3.0 data compiled into
// the package. The first call parses the irregular forms; the lemmas and
// synsets are parsed when first needed. Later calls return the same
// read-only value.
func Default() *Lexicon { return defaultLexicon() }

func parseLexicon(exc, verbs string) *Lexicon {
	l := &Lexicon{
		exceptions: make(map[string][]string, 2500),
		irregular:  make(map[string][]string, 1500),
		verbs:      verbs,
	}
	for line := range strings.Lines(exc) {
		f := strings.Split(strings.TrimRight(line, "\n"), "\t")
		if len(f) < 2 {
			continue
		}
		l.exceptions[f[0]] = f[1:]
		for _, lem := range f[1:] {
			l.irregular[lem] = append(l.irregular[lem], f[0])
		}
	}
	return l
}

// loadLemmas reads the lemma set: names only, the senses kept as text.
func (l *Lexicon) loadLemmas() {
	l.lemmaOnce.Do(func() {
		n := strings.Count(l.verbs, "\n") + 1
		l.lemmas = make(map[string]int32, n)
		l.names = make([]string, 0, n)
		l.lines = make([]string, 0, n)
		for line := range strings.Lines(l.verbs) {
			name, senses, ok := strings.Cut(strings.TrimRight(line, "\n"), "\t")
			if !ok {
				continue
			}
			l.lemmas[name] = int32(len(l.names))
			l.names = append(l.names, name)
			l.lines = append(l.lines, senses)
		}
	})
}

// loadSenses reads the synsets of every lemma.
func (l *Lexicon) loadSenses() {
	l.loadLemmas()
	l.senseOnce.Do(func() {
		l.senses = make([][]int32, len(l.names))
		for idx, senses := range l.lines {
			var ss []int32
			for rank, f := range strings.Fields(senses) {
				if f == "-" {
					ss = append(ss, -1)
					continue
				}
				n, err := strconv.ParseInt(f, 36, 32)
				if err != nil {
					ss = append(ss, -1)
					continue
				}
				for int(n) >= len(l.members) {
					l.members = append(l.members, nil)
				}
				l.members[n] = append(l.members[n], member{lemma: int32(idx), rank: int32(rank + 1)})
				ss = append(ss, int32(n))
			}
			l.senses[idx] = ss
		}
	})
}

// IsVerb reports whether word (lower case; multi-word lemmas are written
// with spaces, "look up") is a WordNet verb lemma.
func (l *Lexicon) IsVerb(word string) bool {
	l.loadLemmas()
	_, ok := l.lemmas[word]
	return ok
}

// Irregular returns the lemmas WordNet lists for an irregular form ("wrote"
// → ["write"]), or nil.
func (l *Lexicon) Irregular(form string) []string {
	return l.exceptions[form]
}

// Synonym is a word that shares a WordNet verb sense with another.
type Synonym struct {
	Word  string // the synonym, a WordNet verb lemma
	Sense int    // rank of the shared sense among the looked-up lemma's senses (1 = most frequent)
	Rank  int    // rank of the shared sense among Word's own senses
}

// Synonyms returns the words that share a verb sense with lemma, in the
// order of lemma's senses. lemma must be a base form; see Lemmas.
func (l *Lexicon) Synonyms(lemma string) []Synonym {
	l.loadSenses()
	idx, ok := l.lemmas[lemma]
	if !ok {
		return nil
	}
	var out []Synonym
	for i, s := range l.senses[idx] {
		if s < 0 {
			continue
		}
		for _, m := range l.members[s] {
			if m.lemma == idx {
				continue
			}
			out = append(out, Synonym{Word: l.names[m.lemma], Sense: i + 1, Rank: int(m.rank)})
		}
	}
	return out
}

// Verbs returns every WordNet verb lemma in alphabetical order (a new
// slice; multi-word lemmas use spaces).
func (l *Lexicon) Verbs() []string {
	l.loadLemmas()
	return append([]string(nil), l.names...)
}
