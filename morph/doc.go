// Package morph owns English verb morphology for verb resolution: it turns an
// inflected verb form into its base form ("searching", "queried", "wrote" →
// "search", "query", "write"), lists the spelling variants of a word
// (-ise/-ize, -yse/-yze, -our/-or, doubled l), and offers WordNet's verb
// synonyms for the semantic tier of package fuzzy.
//
// Its knowledge is WordNet 3.0: the verb exception list (irregular forms) and
// the verb lemmas with their senses, compiled into wordnet_data.go by
// internal/gen so that builds need nothing installed. Regular forms are
// undone by suffix rules that propose every plausible base (consonant
// doubling, silent e, -ies/-ied, -ying) and keep the ones WordNet knows as
// verbs, in the way WordNet's own morphy does; a word WordNet does not know
// still gets a rule-based guess, so custom verbs inflect too.
//
// morph deliberately knows nothing about the dialect's vocabulary, strictness
// or edit distance: deciding which verb a token means is package fuzzy's job.
//
// To rebuild the data (needs the Debian package wordnet-base):
//
//	go generate ./morph
package morph

//go:generate go run ./internal/gen -dir /usr/share/wordnet -out wordnet_data.go
