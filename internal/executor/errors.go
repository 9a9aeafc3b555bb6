package executor

import (
	"errors"
	"fmt"
)

// The failure codes executors return. The first four are codes of
// DIALECT.md §6; the rest are the executors' own, in the same shape (upper
// case words joined by '_') so that failures.Log can record them.
const (
	CodeMissingArg      = "MISSING_ARG"         // an argument the executor needs is empty
	CodeMalformedSyntax = "MALFORMED_SYNTAX"    // an expression or URL that does not parse
	CodeInputTooLarge   = "INPUT_TOO_LARGE"     // an input over a configured bound
	CodeUnknownModifier = "UNKNOWN_MODIFIER"    // a format or unit the executor does not know
	CodeMathError       = "MATH_ERROR"          // division by zero, a result that is not a number
	CodeUnitMismatch    = "UNIT_MISMATCH"       // converting between units of different kinds
	CodeBlockedAddress  = "BLOCKED_ADDRESS"     // a private, loopback... address refused by fetch
	CodeFetchFailed     = "FETCH_FAILED"        // the network request itself failed
	CodeHTTPStatus      = "HTTP_STATUS"         // a response with a non-2xx status
	CodeTooManyRedirect = "TOO_MANY_REDIRECTS"  // more redirects than allowed
	CodeUnsupported     = "UNSUPPORTED_CONTENT" // a response that is neither text nor HTML
	CodeNoPrevious      = "NO_PREVIOUS_FETCH"   // /fetch continue with nothing to continue
	CodeTimeout         = "TIMEOUT"             // the configured time limit passed
	CodeCancelled       = "CANCELLED"           // the caller's context was cancelled
	CodeNotConfigured   = "NOT_CONFIGURED"      // no provider, target or tool for the request
	CodeCommandFailed   = "COMMAND_FAILED"      // a command exited non-zero or could not start
	CodeDeliveryFailed  = "DELIVERY_FAILED"     // a file target could not be written
	CodeBadOutput       = "BAD_OUTPUT"          // a provider's output could not be read
	CodeUnsupportedKind = "UNSUPPORTED_INTENT"  // an intent these executors do not carry out
)

// Error is a typed executor failure: a Code a program can switch on, a short
// sentence (Msg) a model can act on, and the underlying cause, if any.
// errors.Is(err, &Error{Code: c}) matches any *Error with code c.
type Error struct {
	Code string
	Msg  string
	Err  error
}

// Error returns the message, followed by the cause when there is one.
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

func errorf(code string, cause error, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// CodeOf returns the code of the first *Error in err's chain, or "" when
// there is none.
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
