package verbs

import (
	"fmt"
	"strings"
)

// Code is a failure code of DIALECT.md §6.
type Code string

// The failure codes a parse can produce.
const (
	MissingArg       Code = "MISSING_ARG"
	MalformedSyntax  Code = "MALFORMED_SYNTAX"
	UnknownModifier  Code = "UNKNOWN_MODIFIER"
	AmbiguousArgs    Code = "AMBIGUOUS_ARGS"
	InvalidReference Code = "INVALID_REFERENCE"
	AmbiguousVerb    Code = "AMBIGUOUS_VERB"
	UnknownVerb      Code = "UNKNOWN_VERB"
	BannedKey        Code = "BANNED_KEY"
	InputTooLarge    Code = "INPUT_TOO_LARGE"
)

// ParseError is a typed parse failure. Message is a sentence for the model
// that wrote the action: what was wrong and, where it helps, what would have
// been accepted. Pos is the 1-based column (in runes) of the argument text
// where the problem is, 0 when it concerns the action as a whole.
type ParseError struct {
	Code       Code
	Verb       string   // the canonical verb parsed, or "" for AMBIGUOUS_VERB
	Pos        int      // 1-based column in the arguments, 0 when none
	Message    string   // natural language, for the model
	Expected   []string // what the grammar would accept at Pos, described
	Suggestion string   // the closest accepted form (UNKNOWN_MODIFIER)
	Candidates []string // verbs (AMBIGUOUS_VERB) or blocks (AMBIGUOUS_ARGS)
}

func (e *ParseError) Error() string {
	return string(e.Code) + ": " + e.Message
}

// Is makes errors.Is(err, &ParseError{Code: c}) match any parse error with
// code c, so callers can test a code without errors.As.
func (e *ParseError) Is(target error) bool {
	t, ok := target.(*ParseError)
	return ok && t.Code == e.Code && t.Verb == "" && t.Message == ""
}

func perr(code Code, verb string, pos int, format string, a ...any) *ParseError {
	return &ParseError{Code: code, Verb: verb, Pos: pos, Message: fmt.Sprintf(format, a...)}
}

// orList writes "a", "a or b", "a, b or c".
func orList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
