// Package patch owns unified diffs for the Pattern Dialect: it parses them
// (unified and git style, as models write them), applies them to one text,
// and creates them.
//
// Applying is all or nothing. [Apply] first tries the patch strictly, every
// hunk at its stated line with every context line equal; when that fails it
// applies carefully, in the manner of GNU patch: it searches for each hunk
// near its stated line and then farther away, tolerates wrong @@ numbers,
// wrong line counts and missing file headers, can ignore differences in
// whitespace only, and drops up to two lines of outer context the way GNU
// patch's fuzz factor does. Unlike GNU patch, a hunk whose context fits two
// places equally well is never applied: that is an *ApplyError naming the
// hunk and the places, with errors.Is(err, ErrAmbiguous). See docs/patch.md
// for the exact rules.
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
