// Package fuzzy owns verb resolution (docs/language.md §4): it turns the verb token
// a model wrote ("/serch", "/searching", "/Recall", "/retrieve") into one of
// the vocabulary's canonical verbs, naming the tier that found it, or into a
// typed failure (UNKNOWN_VERB, AMBIGUOUS_VERB, MIXED_SCRIPT) with up to three
// ranked candidates. An UNKNOWN_VERB also carries suggestions, the nearest
// verbs within a radius wider than the tiers', for the did-you-mean; they
// are kept apart from the candidates and are never a resolution.
//
// A Resolver is built once from a list of Entry values (verb, names,
// strictness) and Options, and is then read-only and safe for concurrent
// use. The tiers, in order, are:
//
//  1. exact: the token is a name as registered;
//  2. case: equal after NFC, lower-casing and treating - and _ as spaces;
//  3. morph and spelling: an inflected form (package morph) or a
//     British/American variant of a name;
//  4. edit: optimal string alignment distance (a transposition is one edit)
//     within the allowance of the verb's strictness and the token's length,
//     against every name and every written form of it ("cancled" is a typo
//     of "canceled"), then between the token's stems and the names
//     ("shtoped": shtop ~ stop);
//  5. phonetic: Double Metaphone and Soundex agree and the spelling is
//     still close;
//  6. semantic: WordNet verb synonyms (offline), then, with
//     ResolveContext, an Embedder such as an OpenAI-compatible
//     /v1/embeddings endpoint.
//
// Strict verbs resolve only through tiers 1–2, and in tier 2 only ASCII
// case folds for them (U+212A KELVIN SIGN does not make "ok"); a token that
// is a near miss of a strict verb stops resolution with UNKNOWN_VERB
// instead of falling through to another verb. Tokens shorter than four
// letters use tiers 1–3 only. A token that is itself an English verb is
// never "corrected" into another verb by tiers 4–5 (/code is not a typo of
// /note).
//
// fuzzy deliberately does not know where the vocabulary comes from (package
// verbs and dialect.toml), how actions are found in text (package detect), or
// how arguments settle an alias claimed by two verbs: it reports such a tie
// as AMBIGUOUS_VERB with both candidates unless Entry.Priority breaks it.
// Design decisions are written down in docs/resolution.md.
package fuzzy
