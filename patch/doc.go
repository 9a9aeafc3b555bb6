// Package patch owns unified diffs for the Pattern Dialect: it parses them
// (unified and git style, as models write them), applies them to one text,
// and creates them.
//
// Applying is all or nothing. [Apply] applies carefully, in the manner of
// GNU patch: it finds each hunk by its context and removed lines wherever
// they are, so wrong @@ numbers, wrong line counts, missing file headers
// and lines added since the diff was made do not matter; it can ignore
// differences in whitespace only; and it drops up to two lines of outer
// context the way GNU patch's fuzz factor does. Unlike GNU patch, which
// takes the place nearest the stated line, it never guesses: a hunk whose
// lines fit two places equally well, after the order of the hunks has been
// used, is an *ApplyError naming the hunk and the places, with
// errors.Is(err, ErrAmbiguous); a patch that is already applied is refused
// with ErrApplied. Options{Strict: true} applies a conventional diff
// exactly at its stated lines instead. See docs/patch.md for the rules.
//
// The search numbers the lines and counts a hunk's places rather than
// listing them, so its memory is a small multiple of the text and the diff
// and its time about linear in them for each hunk; a work budget bounds
// any input. [ApplyContext] gives up when its context ends, with an error
// that wraps ctx.Err().
//
// [Diff] creates a unified diff between two texts with sergi/go-diff in line
// mode and a configurable number of context lines.
//
// The package works on one text at a time and knows nothing of files,
// memory blocks or their versions: callers (the store's recall patch and
// context replace, the CLI) read the original, call Apply, and keep the old
// text when it returns an error. Binary patches, renames, mode changes and
// diffs that touch more than one file are deliberately out of scope; a diff
// of several files is rejected with ErrMultipleFiles.
package patch
