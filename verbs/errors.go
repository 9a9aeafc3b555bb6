package verbs

import (
	"fmt"
	"strings"

	"github.com/pattern-dialect/dialect/codes"
)

// ParseError is a typed parse failure. Message is a sentence for the model
// that wrote the action: what was wrong and, where it helps, what would have
// been accepted. Pos is the 1-based column (in runes) of the argument text
// where the problem is, 0 when it concerns the action as a whole.
type ParseError struct {
	Code       codes.Code
	Verb       string   // the canonical verb parsed, or "" for AMBIGUOUS_VERB
	Pos        int      // 1-based column in the arguments, 0 when none
	Message    string   // natural language, for the model
	Expected   []string // what the grammar would accept at Pos, described
	Suggestion string   // the closest accepted form (UNKNOWN_MODIFIER)
	Candidates []string // verbs (AMBIGUOUS_VERB) or blocks (AMBIGUOUS_ARGS)
	// Token is what the failure is about, as the model wrote it: the
	// reference, modifier or word found where something else was
	// expected. The failure log groups failures by it.
	Token string
}

// FailureCode returns e.Code (codes.Coded).
func (e *ParseError) FailureCode() codes.Code { return e.Code }

func (e *ParseError) Error() string {
	return string(e.Code) + ": " + e.Message
}

// Is makes errors.Is(err, &ParseError{Code: c}) match any parse error with
// code c, so callers can test a code without errors.As.
func (e *ParseError) Is(target error) bool {
	t, ok := target.(*ParseError)
	return ok && t.Code == e.Code && t.Verb == "" && t.Message == ""
}

func perr(code codes.Code, verb string, pos int, format string, a ...any) *ParseError {
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
