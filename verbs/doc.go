// Package verbs owns the verb registry: the built-in verbs of the Pattern
// Dialect (DIALECT.md §5), their aliases and strictness, and the custom
// verbs a dialect.toml adds. Resolution of misspelled verbs lives in fuzzy;
// this package only says what the vocabulary is.
package verbs
