package detect

import (
	"bytes"
	"io"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// filterMode is how Filter treats the rest of the current line.
type filterMode int

const (
	undecided filterMode = iota // only a line prefix seen so far: held
	pass                        // shown as it arrives
	hide                        // part of a line action's content block: dropped
	hold                        // may be an action line: held until the scanner has read it
	holdSigil                   // starts with a sigil: held until it is known whether it is an action
	queue                       // an earlier line waits for the scanner: held behind it
)

// Filter is an io.Writer for text shown to a person while a model streams:
// it passes the text through to its writer but hides the lines of line
// actions whose verb resolves and of their content blocks. Text goes out as
// it arrives, except:
//
//   - a line that starts (after indentation, bullets or quote markers) with
//     "/" is held only until it is known whether it is an action: "/usr/"
//     is released at its second slash, "/tmp " at its space when "tmp" is no
//     verb, and "/recall x" is dropped once the scanner has read its line;
//   - just after an action line, a line that may open its content block is
//     held until the scanner has read it;
//   - while the scanner holds a paragraph back to learn whether a backtick
//     run opens a code span (see inline.go), a held line keeps the lines
//     after it held too, so that text never goes out of order.
//
// Inline actions, candidates whose verb does not resolve, code and
// comments are text and stay visible: the filter never hides prose.
//
// Filter scans as it goes: after Close, Scanner().Actions() holds the
// message's actions. Like the Scanner, its output does not depend on where
// chunks split.
type Filter struct {
	s        *Scanner
	w        io.Writer
	held     []byte   // the current line, held back
	waiting  []byte   // complete lines waiting for the scanner's verdict
	lines    [][3]int // their number, start and end in waiting
	mode     filterMode
	line     int   // the current line's number
	atStart  bool  // the next byte starts a line
	sawQuote bool  // the current line's prefix holds a quote marker
	sigil    int   // offset in held of the line's first sigil, in holdSigil mode
	err      error // the first error from w
}

// NewFilter returns a Filter writing to w, scanning with v and opt.
func NewFilter(w io.Writer, v Vocabulary, opt Options) *Filter {
	s := NewScanner(v, opt)
	s.track = true
	return &Filter{s: s, w: w, atStart: true}
}

// Scanner returns the filter's scanner, for its Actions after Close.
func (f *Filter) Scanner() *Scanner { return f.s }

// Write shows what it can of p at once and holds back the rest. It fails
// only with an error from the underlying writer, or after Close.
func (f *Filter) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if f.s.closed {
		return 0, ErrClosed
	}
	n := len(p)
	for len(p) > 0 {
		if f.atStart {
			f.line++
			f.mode, f.atStart, f.sawQuote = f.startMode(), false, false
		}
		seg := p
		nl := bytes.IndexByte(p, '\n')
		if nl >= 0 {
			seg = p[:nl+1]
		}
		if f.mode == undecided {
			body := bytes.TrimSuffix(seg, []byte("\n"))
			k := 0
			for k < len(body) && isPrefixByte(body[k]) {
				f.sawQuote = f.sawQuote || body[k] == '>'
				k++
			}
			if k < len(body) {
				f.sigil = len(f.held) + k
				f.mode = f.decide(body[k], body[:k])
				if f.mode == pass {
					f.out(f.held)
					f.held = f.held[:0]
				}
			}
		}
		switch f.mode {
		case pass:
			f.out(seg)
		case undecided, hold, queue:
			f.held = append(f.held, seg...)
		case holdSigil:
			f.held = append(f.held, seg...)
			if known, candidate := sigilKnown(f.held[f.sigil:]); known {
				switch {
				case !candidate || f.noVerb(f.held[f.sigil:]):
					f.mode = pass
					f.out(f.held)
					f.held = f.held[:0]
				default:
					f.mode = hold
				}
			}
		}
		f.s.Write(seg)
		if nl >= 0 {
			f.endLine()
		}
		p = p[len(seg):]
	}
	return n, f.err
}

// Close ends the message: the held lines are shown or dropped, and the
// scanner takes its decisions.
func (f *Filter) Close() error {
	if f.s.closed {
		return f.err
	}
	f.s.Close()
	if !f.atStart {
		f.endLine()
	}
	f.release()
	return f.err
}

// endLine settles the line the scanner has just been given all of: a held
// line waits for the scanner's verdict.
func (f *Filter) endLine() {
	switch f.mode {
	case undecided, hold, holdSigil, queue:
		lo := len(f.waiting)
		f.waiting = append(f.waiting, f.held...)
		f.lines = append(f.lines, [3]int{f.line, lo, len(f.waiting)})
	}
	f.held = f.held[:0]
	f.atStart = true
	f.release()
}

// release shows or drops, in order, the waiting lines the scanner has
// read.
func (f *Filter) release() {
	s := f.s
	done := s.settled()
	k := 0
	for ; k < len(f.lines) && f.lines[k][0] <= done; k++ {
		ln := f.lines[k]
		for len(s.marks) > 0 && s.marks[0].line < ln[0] {
			s.marks = s.marks[1:]
		}
		if len(s.marks) > 0 && s.marks[0].line == ln[0] {
			continue // a line action or its content
		}
		f.out(f.waiting[ln[1]:ln[2]])
	}
	f.lines = f.lines[k:]
	if len(f.lines) == 0 {
		f.waiting = f.waiting[:0]
	}
	for len(s.marks) > 0 && s.marks[0].line <= done {
		s.marks = s.marks[1:]
	}
}

func (f *Filter) out(b []byte) {
	if f.err == nil && len(b) > 0 {
		_, f.err = f.w.Write(b)
	}
}

// startMode is the mode of a new line, from the scanner's state after the
// lines before it.
func (f *Filter) startMode() filterMode {
	s := f.s
	if len(f.lines) > 0 || s.pendN > 0 && s.state != inProse {
		// An earlier line waits, or the scanner has not read the lines
		// before this one and may leave prose when it does.
		return queue
	}
	switch s.state {
	case inCode:
		if len(s.boxes) > 0 {
			return undecided // the line may end the block's container
		}
		return pass
	case inFencedBlock, inTripleBlock:
		if a := &s.actions[s.cur]; a.lineAction && a.Verb != "" {
			return hide
		}
		return pass
	}
	return undecided
}

// decide picks the mode once c, the first byte after the line prefix, is
// known; rest is the part of the prefix not yet held.
func (f *Filter) decide(c byte, rest []byte) filterMode {
	s := f.s
	if (s.state == afterAction || s.state == inQuoteContent) && s.cur >= 0 && s.actions[s.cur].lineAction &&
		(c == '`' || c == '~' || f.sawQuote) {
		return hold // may open or continue the action's content: wait for the scanner
	}
	if c == '/' {
		// The scanner's own notion of a line prefix decides whether the
		// sigil starts the line ("- /x" does, "0/x" does not).
		line := append(append(f.held[:len(f.held):len(f.held)], rest...), '/')
		if contentStart(line) == f.sigil {
			return holdSigil
		}
	}
	return pass
}

// noVerb reports whether the candidate starting b (its first word complete)
// is certainly no action: its word is neither a verb, nor the start of a
// longer one, nor /do.
func (f *Filter) noVerb(b []byte) bool {
	e := wordEnd(b, 1)
	w := b[1:e]
	if len(w) == 2 && (w[0]|0x20) == 'd' && (w[1]|0x20) == 'o' {
		return false
	}
	name := norm.NFC.String(string(w))
	if _, ok := f.s.vocab.Resolve(name); ok {
		return false
	}
	return !f.s.vocab.Extends(name)
}

// isPrefixByte reports whether c may belong to a line prefix: indentation,
// quote markers, bullets and list numbers.
func isPrefixByte(c byte) bool {
	switch c {
	case ' ', '\t', '>', '-', '*', '+', '.', ')':
		return true
	}
	return c >= '0' && c <= '9'
}

// sigilKnown decides, as soon as the bytes allow, whether a line whose
// first sigil starts b is a line action: a sigil, then a word not followed
// by a path character (the scanner's own test, so the two agree).
func sigilKnown(b []byte) (known, action bool) {
	if len(b) < 2 || !utf8.FullRune(b[1:]) {
		return false, false
	}
	if e := wordEnd(b, 1); e == 1 {
		return true, false // not a word: "/2", "/-x", "//"
	} else if e == len(b) || !utf8.FullRune(b[e:]) {
		return false, false // the word may go on
	} else if b[e] == '.' || b[e] == ':' {
		if e+1 == len(b) || !utf8.FullRune(b[e+1:]) {
			return false, false
		}
		return true, !pathAfter(b, e)
	} else {
		return true, !pathAfter(b, e)
	}
}
