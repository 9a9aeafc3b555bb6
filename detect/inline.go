package detect

import "bytes"

// Inline code spans and HTML comments, as CommonMark reads them
// (DIALECT.md §1): a span opened by a backtick run closes at the next run of
// the same length, on the same line or a later line of the same paragraph;
// a comment opened by "<!--" closes at the next "-->".
//
// Whether a run that finds no closer on its line opens a span depends on
// the lines after it, so the scanner holds the paragraph's lines back
// ("pending") until a closer arrives or the paragraph certainly ends, and
// then processes them with the answer. The decision depends only on the
// bytes, never on where chunks split. The held text is bounded by
// MaxActionSize; past it the run is taken to open a span, which can only
// make more text code, never less.
//
// A comment with no closer is taken to run to the end of the message,
// across paragraphs (CommonMark would show an unclosed "<!--" inside a
// paragraph as text): text a person may never see is never an action.

// hideKind says whether a piece of text is read as prose, code or a
// comment.
type hideKind uint8

const (
	asText    hideKind = iota // prose: actions here may run
	asCode                    // inside a code span or fenced code
	asComment                 // inside an HTML comment
)

// hidden is a range [start, end) of a line that is code or a comment.
type hidden struct {
	start, end int
	kind       hideKind
}

// pendLine is one line held back while a code span may be open.
type pendLine struct {
	start, line int // message offset and line number
	lo, hi      int // the line's bytes in Scanner.pend (its line ending excluded)
}

var commentOpen = []byte("<!--")

// walkInline reads text[from:], which starts outside code spans and
// comments, left to right as CommonMark reads inline code and HTML
// comments: whichever opens first wins, a backtick run closes at the next
// run of the same length, "<!--" at the next "-->". It appends the ranges
// that are code or comment to dst. Unless final is set, the text may not be
// the whole paragraph yet: the walk stops at the first backtick run with no
// closer in text and returns its offset and length (open is -1 when there
// is none). When final is set such a run is literal. A comment with no
// closer runs to the end of text, and cmt is set. The work is linear in
// the length of text.
func walkInline(text []byte, from int, final bool, dst []hidden, sc *spanScratch) (out []hidden, open, openN int, cmt bool) {
	out = dst
	runs := sc.runs[:0]
	for i := indexFrom(text, from, '`'); i < len(text); {
		j := i
		for j < len(text) && text[j] == '`' {
			j++
		}
		runs = append(runs, [2]int{i, j})
		i = indexFrom(text, j, '`')
	}
	sc.runs = runs
	next := sc.next[:0]
	for range runs {
		next = append(next, -1)
	}
	if len(runs) > 1 {
		if sc.last == nil {
			sc.last = map[int]int{}
		}
		clear(sc.last)
		for r := len(runs) - 1; r >= 0; r-- {
			n := runs[r][1] - runs[r][0]
			if m, ok := sc.last[n]; ok {
				next[r] = m
			}
			sc.last[n] = r
		}
	}
	sc.next = next
	c, cSearched := 0, -1 // next "<!--" at or after cSearched (len(text) when none)
	for p, r := from, 0; ; {
		for r < len(runs) && runs[r][0] < p {
			r++
		}
		if c < p || cSearched < 0 {
			c, cSearched = len(text), p
			if k := bytes.Index(text[p:], commentOpen); k >= 0 {
				c = p + k
			}
		}
		runAt := len(text)
		if r < len(runs) {
			runAt = runs[r][0]
		}
		switch {
		case c < runAt:
			k := bytes.Index(text[c+2:], []byte("-->"))
			if k < 0 {
				return append(out, hidden{c, len(text), asComment}), -1, 0, true
			}
			end := c + 2 + k + 3
			out = append(out, hidden{c, end, asComment})
			p = end
		case r == len(runs):
			return out, -1, 0, false
		case next[r] >= 0:
			m := next[r]
			out = append(out, hidden{runs[r][0], runs[m][1], asCode})
			p = runs[m][1]
		case !final:
			return out, runs[r][0], runs[r][1] - runs[r][0], false
		default:
			p = runs[r][1] // a literal run
		}
	}
}

// runOfLen returns the bounds of the first backtick run of exactly n
// backticks in b[from:], or -1, -1.
func runOfLen(b []byte, from, n int) (int, int) {
	for i := indexFrom(b, from, '`'); i < len(b); {
		j := i
		for j < len(b) && b[j] == '`' {
			j++
		}
		if j-i == n {
			return i, j
		}
		i = indexFrom(b, j, '`')
	}
	return -1, -1
}

// takeLine processes one complete line, or holds it back while a code span
// may be open before it.
func (s *Scanner) takeLine(line []byte, start int) {
	if s.pendN > 0 {
		s.pendMore(line, start)
		return
	}
	s.freshLine(line, start)
}

// freshLine classifies the code spans and comments of a line that nothing
// holds back, then processes it, unless a backtick run on it may open a
// span that closes on a later line.
func (s *Scanner) freshLine(line []byte, start int) {
	s.hid = s.hid[:0]
	if s.spanOpen > 0 && paraEnd(line) {
		s.spanOpen = 0
	}
	if s.codeLine(line) {
		s.processLine(line, start)
		s.lineDone()
		return
	}
	from := 0
	switch {
	case s.inComment:
		k := bytes.Index(line, []byte("-->"))
		if k < 0 {
			s.hid = append(s.hid, hidden{0, len(line), asComment})
			s.processLine(line, start)
			s.lineDone()
			return
		}
		s.hid = append(s.hid, hidden{0, k + 3, asComment})
		s.inComment, from = false, k+3
	case s.spanOpen > 0:
		k, e := runOfLen(line, 0, s.spanOpen)
		if k < 0 {
			s.hid = append(s.hid, hidden{0, len(line), asCode})
			s.processLine(line, start)
			s.lineDone()
			return
		}
		s.hid = append(s.hid, hidden{0, e, asCode})
		s.spanOpen, from = 0, e
	}
	var open, n int
	s.hid, open, n, s.inComment = walkInline(line, from, false, s.hid, &s.scratch)
	if open < 0 {
		s.processLine(line, start)
		s.lineDone()
		return
	}
	s.pend = append(append(s.pend[:0], line...), '\n')
	s.pendLines = append(s.pendLines[:0], pendLine{start: start, line: s.line, lo: 0, hi: len(line)})
	s.pendHid = append(s.pendHid[:0], s.hid...)
	s.pendOpen, s.pendN = open, n
}

// pendMore takes the next line while a span may be open.
func (s *Scanner) pendMore(line []byte, start int) {
	if paraEnd(line) {
		s.resolvePending()
		s.freshLine(line, start)
		return
	}
	if len(s.pend)+len(line)+1 > s.opt.MaxActionSize {
		// Too much to hold: the run opens a span that runs on.
		n := s.pendN
		s.pendHid = append(s.pendHid, hidden{s.pendOpen, len(s.pend), asCode})
		s.flushPending()
		s.spanOpen = n
		s.freshLine(line, start)
		return
	}
	lo := len(s.pend)
	s.pend = append(append(s.pend, line...), '\n')
	s.pendLines = append(s.pendLines, pendLine{start: start, line: s.line, lo: lo, hi: lo + len(line)})
	k, e := runOfLen(s.pend[:lo+len(line)], lo, s.pendN)
	if k < 0 {
		return // still inside the span, if it is one
	}
	s.pendHid = append(s.pendHid, hidden{s.pendOpen, e, asCode})
	var open, n int
	s.pendHid, open, n, s.inComment = walkInline(s.pend[:lo+len(line)], e, false, s.pendHid, &s.scratch)
	if open >= 0 {
		s.pendOpen, s.pendN = open, n
		return
	}
	s.flushPending()
}

// resolvePending settles the held paragraph once it has ended: the run
// that found no closer is literal, and the text after it is read again.
func (s *Scanner) resolvePending() {
	s.pendHid, _, _, s.inComment = walkInline(s.pend, s.pendOpen+s.pendN, true, s.pendHid, &s.scratch)
	s.flushPending()
}

// flushPending processes the held lines with their code and comment
// ranges.
func (s *Scanner) flushPending() {
	s.pendN = 0
	cur := s.line
	hid := s.pendHid
	h := 0
	for _, pl := range s.pendLines {
		s.hid = s.hid[:0]
		for k := h; k < len(hid) && hid[k].start < pl.hi; k++ {
			if hid[k].end > pl.lo {
				s.hid = append(s.hid, hidden{max(hid[k].start, pl.lo) - pl.lo, min(hid[k].end, pl.hi) - pl.lo, hid[k].kind})
			}
		}
		for h < len(hid) && hid[h].end <= pl.hi {
			h++
		}
		if n := len(s.hid); n > 0 && s.hid[n-1].start == s.hid[n-1].end {
			s.hid = s.hid[:n-1] // a range that only covered the line ending
		}
		s.line = pl.line
		s.processLine(s.pend[pl.lo:pl.hi], pl.start)
		s.lineDone()
	}
	s.line = cur
	s.pendLines = s.pendLines[:0]
}

// codeLine reports whether line will be read as fenced code (the open
// block continues, or the line opens one), so that it has no inline code
// spans or comments. It changes nothing: processLine takes the same
// decision.
func (s *Scanner) codeLine(line []byte) bool {
	switch s.state {
	case inCode:
		if _, ok := inBoxes(line, s.boxes); ok {
			return true
		}
	case inFencedBlock:
		return true
	case inTripleBlock:
		return s.cfN > 0
	case afterAction, inQuoteContent:
		if _, _, ok := fenceOpen(line); ok && s.state == afterAction {
			return true
		}
		if _, ok := s.quoteContent(line); ok {
			return s.cfN > 0
		}
	}
	if s.inComment || s.spanOpen > 0 {
		return false
	}
	var ok bool
	s.boxScratch, _, _, _, ok = openFence(line, s.boxScratch)
	return ok
}

// startsHidden reports whether the current line starts inside a code span
// or a comment, so that it cannot open a fence.
func (s *Scanner) startsHidden() bool {
	return len(s.hid) > 0 && s.hid[0].start == 0
}

// lineDone records the kind of the line just processed for the display
// Filter.
func (s *Scanner) lineDone() {
	if s.track && s.kind != kindProse {
		s.marks = append(s.marks, lineMark{line: s.line, kind: s.kind})
	}
}

// settled returns the number of the last line whose processing is final
// (every line, after Close).
func (s *Scanner) settled() int {
	if s.closed {
		return int(^uint(0) >> 1)
	}
	if s.pendN > 0 {
		return s.pendLines[0].line - 1
	}
	return s.line - 1
}

// lineMark is the kind of a processed line that is not prose.
type lineMark struct {
	line int
	kind lineKind
}
