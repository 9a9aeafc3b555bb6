package detect

import (
	"strconv"

	"github.com/pattern-dialect/dialect/codes"
)

// Span locates an action in its message.
type Span struct {
	Start int // byte offset of the sigil (of "/do" when the action has the marker)
	End   int // byte offset just past the action's text: its line, or its content block
	Line  int // 1-based line of the sigil
	Col   int // 1-based column of the sigil, counted in runes
}

// ContentKind says which form an action's content block took (docs/language.md §3).
type ContentKind int

const (
	// NoContent: the action has only argument text.
	NoContent ContentKind = iota
	// Quoted: a "one line" string with \" and \\ escapes ending the arguments.
	Quoted
	// TripleQuoted: a """ multi-line """ block.
	TripleQuoted
	// Fenced: a fenced code block on the action line or the next line.
	Fenced
	// QuoteLines: "> quoted" lines following the action line.
	QuoteLines
)

// String names the content kind as it appears in JSON output.
func (k ContentKind) String() string {
	switch k {
	case Quoted:
		return "quoted"
	case TripleQuoted:
		return "triple"
	case Fenced:
		return "fenced"
	case QuoteLines:
		return "quote"
	default:
		return ""
	}
}

// Reason says why a detected action is not executable.
type Reason int

const (
	// NoReason: the action is executable.
	NoReason Reason = iota
	// MidMessage: neither trailing nor marked with /do.
	MidMessage
	// Reconsidered: a reconsideration phrase follows it (see Action.Phrase).
	Reconsidered
	// Cancelled: a later /cancel in an executable position withdrew it.
	Cancelled
	// UnknownVerb: in an executable position, but the verb token did not
	// resolve through the Vocabulary. A failure (UNKNOWN_VERB).
	UnknownVerb
	// InvalidMarker: in an executable position, but its last token is a
	// "?word" that is not a configured permission flag. A failure
	// (PERMISSION_MARKER_INVALID).
	InvalidMarker
	// TooLarge: in an executable position, but its arguments and content
	// exceed Options.MaxActionSize. A failure (INPUT_TOO_LARGE).
	TooLarge
	// Unterminated: in an executable position, but its """ block never
	// closed before the message ended. A failure (MALFORMED_SYNTAX).
	Unterminated
	// InsideCode: written inside fenced code or an inline code span, which
	// is code as CommonMark renders it. Never executed; not a failure.
	InsideCode
	// InsideComment: written inside an HTML comment, text the person never
	// sees. Never executed; not a failure.
	InsideComment
)

// String returns the reason as written in docs/language.md §2 ("mid-message",
// "cancelled", ...); for Reconsidered use Action.ReasonText, which names the
// phrase.
func (r Reason) String() string {
	switch r {
	case MidMessage:
		return "mid-message"
	case Reconsidered:
		return "reconsidered"
	case Cancelled:
		return "cancelled"
	case UnknownVerb:
		return "unknown verb"
	case InvalidMarker:
		return "invalid permission marker"
	case TooLarge:
		return "too large"
	case Unterminated:
		return "unterminated content"
	case InsideCode:
		return "inside code"
	case InsideComment:
		return "inside an HTML comment"
	default:
		return ""
	}
}

// Failure reports whether the reason is a failure to be logged (the model
// meant to run the action and could not) rather than a decision not to run
// it (mid-message, reconsidered, cancelled).
func (r Reason) Failure() bool {
	return r.Code() != ""
}

// Code returns the failure code of a failure reason, or "". For
// UnknownVerb it is UNKNOWN_VERB; the resolver may know better
// (AMBIGUOUS_VERB, MIXED_SCRIPT).
func (r Reason) Code() codes.Code {
	switch r {
	case UnknownVerb:
		return codes.UnknownVerb
	case InvalidMarker:
		return codes.PermissionMarkerInvalid
	case TooLarge:
		return codes.InputTooLarge
	case Unterminated:
		return codes.MalformedSyntax
	default:
		return ""
	}
}

// Action is one detected action: where it is, what it says, and whether the
// model meant it to run.
type Action struct {
	Span    Span        // where the action's text is in the message
	Token   string      // the verb token as written, e.g. "recall", "Look up"
	Verb    string      // canonical verb from the Vocabulary, "" when unresolved
	Args    string      // argument text (see docs/detect.md for what it holds)
	Content string      // the content block's text, unescaped for Quoted
	Kind    ContentKind // which form the content took, NoContent when none
	Marker  string      // permission marker: ".", "?", "?ask", "!", "?flag", or ""
	Chain   string      // the rest of a chain after "-> ", e.g. "/b -> /c"

	Inline   bool // other text precedes it on its line
	Do       bool // carries the /do marker
	Trailing bool // a line action with only whitespace and line actions after it

	Executable bool   // the model meant it to run and nothing stops it
	Reason     Reason // why not, when Executable is false
	Phrase     string // the reconsideration phrase found after it, as configured
	Early      bool   // delivered to Options.OnEarly before the message ended

	lineAction bool     // kept separately from Inline for clarity in decisions
	where      hideKind // asCode or asComment for a candidate found there
	badMarker  bool     // Marker is a "?word" that is not a configured flag
	tooLarge   bool     // arguments and content exceed MaxActionSize
	unclosed   bool     // a """ block that never closed
	withdrawn  bool     // OnWithdraw already called
}

// ReasonText returns the human reason of docs/language.md §2, with the phrase for
// a reconsidered action (`reconsidered: "actually"`), or "" when executable.
func (a *Action) ReasonText() string {
	switch a.Reason {
	case Reconsidered:
		return "reconsidered: " + strconv.Quote(a.Phrase)
	case InvalidMarker:
		return "invalid permission marker " + strconv.Quote(a.Marker)
	default:
		return a.Reason.String()
	}
}

// ExecutablePosition reports whether the action stands where the model
// meant to run it (trailing, or marked /do). A non-executable action in an
// executable position with a Failure reason is what a failure log records;
// an action outside one is a mere mention.
func (a *Action) ExecutablePosition() bool {
	return a.Trailing || a.Do
}
