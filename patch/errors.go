package patch

import (
	"errors"
	"fmt"
	"strings"
)

// Kinds of failure. Every error returned by this package wraps exactly one
// of them, so callers can switch with errors.Is, except when ApplyContext's
// context ends: that error wraps ctx.Err() instead.
var (
	// ErrMalformed: the diff text cannot be read as a unified diff.
	ErrMalformed = errors.New("malformed diff")
	// ErrNoHunks: the text contains no @@ hunk at all.
	ErrNoHunks = errors.New("diff has no hunks")
	// ErrMultipleFiles: the diff changes more than one file; Apply takes one text.
	ErrMultipleFiles = errors.New("diff changes more than one file")
	// ErrNoMatch: a hunk's context and removed lines are found nowhere they may go.
	ErrNoMatch = errors.New("hunk does not match")
	// ErrAmbiguous: a hunk fits two or more places equally well.
	ErrAmbiguous = errors.New("hunk fits more than one place")
	// ErrApplied: a hunk's result is already in the text where it would
	// go; applying it again would repeat its added lines.
	ErrApplied = errors.New("hunk already applied")
)

// ParseError reports where a diff could not be read.
type ParseError struct {
	Line int    // 1-based line in the diff text
	Msg  string // what is wrong there
	Kind error  // ErrMalformed, ErrNoHunks or ErrMultipleFiles
}

// Error returns "diff line N: what is wrong".
func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("diff line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// Unwrap returns the kind of failure.
func (e *ParseError) Unwrap() error { return e.Kind }

// ApplyError reports the hunk that could not be applied safely. Nothing was
// changed: Apply returns no text with it.
type ApplyError struct {
	Hunk   int    // 1-based index of the hunk in the diff
	Header string // the hunk's @@ line as written
	Line   int    // 1-based line of that @@ line in the diff text
	Msg    string // why, in a sentence a model or a person can act on
	// Places lists the 1-based lines of the original where an ambiguous
	// hunk fits; empty for other failures.
	Places []int
	Kind   error // ErrNoMatch, ErrAmbiguous or ErrApplied
}

// Error returns "hunk #N (@@ header, diff line L): why", a sentence a model
// can act on.
func (e *ApplyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "hunk #%d", e.Hunk)
	switch {
	case e.Header != "":
		fmt.Fprintf(&b, " (%s, diff line %d)", e.Header, e.Line)
	case e.Line > 0:
		fmt.Fprintf(&b, " (diff line %d)", e.Line)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the kind of failure.
func (e *ApplyError) Unwrap() error { return e.Kind }
