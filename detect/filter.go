package detect

import (
	"bytes"
	"io"
	"unicode/utf8"
)

// filterMode is how Filter treats the rest of the current line.
type filterMode int

const (
	undecided filterMode = iota // only a line prefix seen so far: held
	pass                        // shown as it arrives
	hide                        // part of a line action's content block: dropped
	hold                        // may be an action line: held until the line ends
	holdSigil                   // starts with a sigil: held until it is known whether it is an action
)

// Filter is an io.Writer for text shown to a person while a model streams:
// it passes the text through to its writer but hides the lines of line actions and
// of their content blocks. Text goes out as it arrives, except a line that
// starts (after indentation, bullets or quote markers) with "/", which is
// held only until it is known whether it is an action ("/usr/" is released
// at its second slash, "/recall " dropped at its space), and, just after an
// action line, a line that may open its content block, which is held until
// it ends.
// Inline actions are prose and stay visible.
//
// Filter scans as it goes: after Close, Scanner().Actions() holds the
// message's actions. Like the Scanner, its output does not depend on where
// chunks split.
type Filter struct {
	s        *Scanner
	w        io.Writer
	held     []byte // the current line, held back
	mode     filterMode
	atStart  bool  // the next byte starts a line
	sawQuote bool  // the current line's prefix holds a quote marker
	sigil    int   // offset in held of the line's first sigil, in holdSigil mode
	err      error // the first error from w
}

// NewFilter returns a Filter writing to w, scanning with v and opt.
func NewFilter(w io.Writer, v Vocabulary, opt Options) *Filter {
	return &Filter{s: NewScanner(v, opt), w: w, atStart: true}
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
		case undecided, hold:
			f.held = append(f.held, seg...)
		case holdSigil:
			f.held = append(f.held, seg...)
			if known, action := sigilKnown(f.held[f.sigil:]); known {
				if action {
					f.mode = hide
				} else {
					f.mode = pass
					f.out(f.held)
				}
				f.held = f.held[:0]
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

// Close ends the message: the last held line is shown or dropped, and the
// scanner takes its decisions.
func (f *Filter) Close() error {
	if f.s.closed {
		return f.err
	}
	f.s.Close()
	if !f.atStart {
		f.endLine()
	}
	return f.err
}

// endLine settles a held line once the scanner has read all of it.
func (f *Filter) endLine() {
	if (f.mode == undecided || f.mode == hold || f.mode == holdSigil) && f.s.kind == kindProse {
		f.out(f.held)
	}
	f.held = f.held[:0]
	f.atStart = true
}

func (f *Filter) out(b []byte) {
	if f.err == nil && len(b) > 0 {
		_, f.err = f.w.Write(b)
	}
}

// startMode is the mode of a new line, from the scanner's state after the
// previous line.
func (f *Filter) startMode() filterMode {
	s := f.s
	switch s.state {
	case inCode:
		return pass
	case inFencedBlock, inTripleBlock:
		if s.cur >= 0 && s.actions[s.cur].lineAction {
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
		return hold // may open or continue the action's content: wait for the line's end
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
