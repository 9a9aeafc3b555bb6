// Package grammarbridge implements the .agr action-grammar language of
// Microsoft TypeAgent: it parses grammar files, compiles them, and matches
// text against them, returning every distinct value the grammar gives the
// text and the best one.
//
// The layers follow regexp/syntax and regexp:
//
//   - Parse turns the text of one file into a syntax tree (File, RuleDef,
//     Alt, Expr, ValueExpr), every node with its position. Syntax errors
//     are *Error values (ErrSyntax) with file:line:column and a sentence
//     saying what was expected.
//   - Compile loads a file and its imports through a Loader (FSLoader for
//     an fs.FS, MapLoader for memory, OSLoader for the disk), resolves rule
//     references, entity imports and phrase sets, reports undefined rules
//     and entities, name conflicts and rules without values, works out
//     TypeAgent's implicit values, and produces a Grammar: flat
//     alternatives with pre-folded literal tokens and first-byte sets.
//   - Grammar.Match runs a backtracking matcher over the input's characters
//     with TypeAgent's separator, case and wildcard rules. Rule outcomes are
//     memoized per input position (with or without a wildcard open), and a
//     work limit (Options.WorkLimit) turns any run-away match into
//     ErrWorkLimit. Values are JSON text (json.RawMessage), written as
//     JSON.stringify writes them: properties in the order the grammar
//     wrote them; Canonical sorts the keys.
//   - Grammar.Best returns the best match by TypeAgent's ranking, and, when
//     nothing matches, a *NoMatchError saying what the grammar would have
//     accepted at the furthest point reached (Grammar.Explain).
//
// The built-in entities Ordinal and Cardinal are ordinary rules written in
// .agr (builtin.agr) and compiled in when a grammar imports them.
//
// The package deliberately does not check value types against the
// TypeScript types a grammar names (it records them in Grammar.Types), does
// not implement TypeAgent's completion or its NFA/DFA matchers, and has no
// entities beyond Ordinal and Cardinal: other entity names are accepted as
// capture types that behave as wildcards, as in TypeAgent's AST matcher.
// docs/grammar.md lists what of the language is supported and the semantic
// decisions taken.
package grammarbridge
