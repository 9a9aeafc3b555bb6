// Package codes holds the failure codes of the Pattern Dialect: the one
// typed code that every stage reports, the failure log records and a
// program switches on. The JSON form of a code is its string.
//
// Codes fall into two families. A model code (Code.ModelFault) says the
// model wrote something the runtime could not act on — an unknown verb, a
// missing argument — and is logged so that the weekly report can suggest
// aliases. A world code says the action was understood but the world said
// no: the block does not exist, the network failed, the time ran out.
//
// The package also has Error, a failure with a code and a sentence the
// model or a person can act on.
package codes

import (
	"errors"
	"fmt"
)

// Code is a failure code: upper-case words joined by '_'.
type Code string

// The codes of the language reference (docs/language.md, "Failures"): the
// model wrote something that cannot run as written.
const (
	UnknownVerb             Code = "UNKNOWN_VERB"
	AmbiguousVerb           Code = "AMBIGUOUS_VERB"
	AmbiguousArgs           Code = "AMBIGUOUS_ARGS"
	MissingArg              Code = "MISSING_ARG"
	MalformedSyntax         Code = "MALFORMED_SYNTAX"
	UnknownModifier         Code = "UNKNOWN_MODIFIER"
	InvalidReference        Code = "INVALID_REFERENCE"
	PermissionMarkerInvalid Code = "PERMISSION_MARKER_INVALID"
	PermissionDenied        Code = "PERMISSION_DENIED"
	PendingApproval         Code = "PENDING_APPROVAL"
	InputTooLarge           Code = "INPUT_TOO_LARGE"
	MixedScript             Code = "MIXED_SCRIPT"
	BannedKey               Code = "BANNED_KEY"
)

// The codes of the runtime and its executors: the action was understood,
// and carrying it out failed.
const (
	NotFound          Code = "NOT_FOUND"           // the block, pending action or page named does not exist
	AlreadyDecided    Code = "ALREADY_DECIDED"     // a pending action someone already decided
	PatchFailed       Code = "PATCH_FAILED"        // a diff that does not apply safely
	Timeout           Code = "TIMEOUT"             // the action timeout passed
	Cancelled         Code = "CANCELLED"           // the caller's context was cancelled
	ExecFailed        Code = "EXEC_FAILED"         // an executor failed for a reason it did not type
	NotConfigured     Code = "NOT_CONFIGURED"      // no provider, target or tool for the request
	MathError         Code = "MATH_ERROR"          // division by zero, a result that is not a number
	UnitMismatch      Code = "UNIT_MISMATCH"       // converting between units of different kinds
	BlockedAddress    Code = "BLOCKED_ADDRESS"     // a private or loopback address refused by fetch
	FetchFailed       Code = "FETCH_FAILED"        // the network request itself failed
	HTTPStatus        Code = "HTTP_STATUS"         // a response with a non-2xx status
	TooManyRedirects  Code = "TOO_MANY_REDIRECTS"  // more redirects than allowed
	UnsupportedType   Code = "UNSUPPORTED_CONTENT" // a response that is neither text nor HTML
	NoPreviousFetch   Code = "NO_PREVIOUS_FETCH"   // /fetch continue with nothing to continue
	CommandFailed     Code = "COMMAND_FAILED"      // a command exited non-zero or could not start
	DeliveryFailed    Code = "DELIVERY_FAILED"     // a target could not be written to
	BadOutput         Code = "BAD_OUTPUT"          // a provider's output could not be read
	UnsupportedIntent Code = "UNSUPPORTED_INTENT"  // an intent no executor carries out
	ServerFailed      Code = "SERVER_FAILED"       // an MCP server could not start, or its connection broke
	ToolFailed        Code = "TOOL_FAILED"         // an MCP tool answered with an error (isError)
	BlockFull         Code = "BLOCK_FULL"          // a memory write that would pass the block's size limit
)

// modelCodes are the codes of a model's mistake, in the order of the
// language reference.
var modelCodes = [...]Code{UnknownVerb, AmbiguousVerb, AmbiguousArgs, MissingArg, MalformedSyntax,
	UnknownModifier, InvalidReference, PermissionMarkerInvalid, PermissionDenied,
	PendingApproval, InputTooLarge, MixedScript, BannedKey}

// Model returns the model codes, in the order of the language reference.
func Model() []Code { m := modelCodes; return m[:] }

// ModelFault reports whether c is a model code: the model wrote something
// that cannot run as written, and the failure log records it.
func (c Code) ModelFault() bool {
	for _, m := range modelCodes {
		if c == m {
			return true
		}
	}
	return false
}

// Valid reports whether c has the shape of a code: A-Z, 0-9 and '_',
// starting with a letter, at most 64 bytes. Codes a host adds (a tool's own)
// need only this shape.
func (c Code) Valid() bool {
	if c == "" || len(c) > 64 || c[0] < 'A' || c[0] > 'Z' {
		return false
	}
	for i := 0; i < len(c); i++ {
		b := c[i]
		if !(b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_') {
			return false
		}
	}
	return true
}

// Error is a failure with a code a program switches on, a sentence (Msg) a
// model or a person can act on, and the cause, if any.
// errors.Is(err, &Error{Code: c}) matches any *Error with code c.
type Error struct {
	Code Code
	Msg  string
	Err  error
	// Subject is what the failure is about, as the model wrote it (the
	// unit calc did not know, the format fetch was asked for), when one
	// word or phrase is; the failure log groups model codes by it.
	Subject string
}

// Errorf returns an *Error with code and a formatted message.
func Errorf(code Code, format string, a ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, a...)}
}

// Wrap returns an *Error with code and message that wraps cause.
func Wrap(code Code, cause error, format string, a ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, a...), Err: cause}
}

// Error returns the message, then the cause when there is one.
func (e *Error) Error() string {
	if e.Err == nil {
		return e.Msg
	}
	return e.Msg + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same code (a target with
// an empty code matches every *Error).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && (t.Code == "" || t.Code == e.Code)
}

// Coded is implemented by errors that carry a code besides *Error, such as
// a parse error with a position.
type Coded interface {
	error
	FailureCode() Code
}

// FailureCode returns e.Code.
func (e *Error) FailureCode() Code { return e.Code }

// Of returns the code of the first error in err's chain that carries one,
// or "".
func Of(err error) Code {
	var c Coded
	if errors.As(err, &c) {
		return c.FailureCode()
	}
	return ""
}
