package grammarbridge

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors, one per kind of failure; every error this package returns
// matches exactly one of them with errors.Is.
var (
	ErrSyntax          = errors.New("syntax error")
	ErrUndefinedRule   = errors.New("undefined rule")
	ErrUndefinedEntity = errors.New("undefined entity")
	ErrConflict        = errors.New("name conflict")
	ErrNoValue         = errors.New("rule produces no value")
	ErrUndefinedVar    = errors.New("undefined variable")
	ErrImport          = errors.New("import failed")
	ErrWorkLimit       = errors.New("work limit exceeded")
	ErrNoMatch         = errors.New("no match")
	ErrEval            = errors.New("value evaluation failed")
)

// Error is a grammar error with a position in a source file: a syntax error
// or a compile error. Kind is one of the sentinel errors above.
type Error struct {
	File string
	Pos  Pos
	Kind error
	Msg  string // a sentence saying what was wrong or expected
}

// Error formats the error as file:line:col: message.
func (e *Error) Error() string {
	file := e.File
	if file == "" {
		file = "<input>"
	}
	return fmt.Sprintf("%s:%d:%d: %s", file, e.Pos.Line, e.Pos.Col, e.Msg)
}

// Unwrap returns the kind, so errors.Is(err, ErrSyntax) works.
func (e *Error) Unwrap() error { return e.Kind }

// ErrorList is several grammar errors, in source order. It is returned when
// compilation finds more than one problem.
type ErrorList []*Error

// Error returns the errors one per line.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the individual errors, for errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// err returns the list as an error: nil when empty, the single *Error when
// there is one.
func (l ErrorList) err() error {
	switch len(l) {
	case 0:
		return nil
	case 1:
		return l[0]
	}
	return l
}

// NoMatchError says that an input matched nothing, and what the grammar
// would have accepted at the furthest point any alternative reached.
type NoMatchError struct {
	Input    string
	Offset   int      // byte offset in Input of the furthest point reached
	Expected []string // literal tokens ("play") and captures ("$(name)"), sorted, distinct
}

// Error says where matching stopped and what was expected there.
func (e *NoMatchError) Error() string {
	if len(e.Expected) == 0 {
		return fmt.Sprintf("no match at offset %d", e.Offset)
	}
	return fmt.Sprintf("no match at offset %d: expected one of: %s", e.Offset, strings.Join(e.Expected, ", "))
}

// Unwrap returns ErrNoMatch.
func (e *NoMatchError) Unwrap() error { return ErrNoMatch }
