package patch

import (
	"context"
	"fmt"
	"strings"
)

// DefaultFuzz is the number of outer context lines Apply may drop at each
// end of a hunk, as GNU patch's default --fuzz=2.
const DefaultFuzz = 2

// Options says how carefully a patch may be applied.
type Options struct {
	// Strict applies every hunk at its stated line with every line equal,
	// byte for byte, and nothing else.
	Strict bool
	// Fuzz is the most context lines that may be dropped at each end of a
	// hunk when it does not match whole (GNU patch's --fuzz). 0 keeps all.
	Fuzz int
	// IgnoreWhitespace lets context and removed lines match lines that
	// differ only in whitespace (GNU patch's -l). Lines kept from the text
	// keep their own whitespace.
	IgnoreWhitespace bool
}

// Report says where and how each hunk was applied.
type Report struct {
	// Strict is set when every hunk applied at its stated line with every
	// line equal.
	Strict bool
	Hunks  []HunkReport
}

// HunkReport says where one hunk was applied.
type HunkReport struct {
	Hunk int // 1-based index of the hunk in the diff
	// Line is the 1-based line of the original where the hunk's first old
	// line is (counting context that fuzz dropped, as far as the text
	// goes back); for a hunk with no old lines, the line after which its
	// lines went.
	Line   int
	Offset int // Line minus the line the header states (0 when it has none)
	// Fuzz is the number of outer context lines that had to be dropped at
	// the end that lost most.
	Fuzz int
	// Whitespace is set when the hunk matched only by ignoring whitespace.
	Whitespace bool
}

// Apply applies diff to original the way a careful person would (see the
// package documentation), with DefaultFuzz and whitespace compared, never
// guessing between equally good places. On error the result is "" and
// original is untouched. Callers that apply model-written patches may want
// ApplyWith and IgnoreWhitespace.
func Apply(original, diff string) (string, *Report, error) {
	return ApplyWith(original, diff, Options{Fuzz: DefaultFuzz})
}

// ApplyWith is Apply with explicit options.
func ApplyWith(original, diff string, opt Options) (string, *Report, error) {
	return ApplyContext(context.Background(), original, diff, opt)
}

// ApplyContext is ApplyWith that gives up when ctx is done: the search for
// the hunks' places looks at ctx every few microseconds, and the error
// then wraps ctx.Err(), so errors.Is(err, context.DeadlineExceeded) tells
// a timeout from a patch that does not apply. Nothing is changed either way.
func ApplyContext(ctx context.Context, original, diff string, opt Options) (string, *Report, error) {
	if err := ctx.Err(); err != nil {
		return "", nil, fmt.Errorf("patch not applied: %w", err)
	}
	p, err := parse(ctx, diff)
	if err != nil {
		return "", nil, err
	}
	return p.ApplyContext(ctx, original, opt)
}

// Apply applies the patch to original with opt. It is all or nothing: on
// error it returns "" and a nil report.
func (p *Patch) Apply(original string, opt Options) (string, *Report, error) {
	return p.ApplyContext(context.Background(), original, opt)
}

// ApplyContext is Apply that gives up when ctx is done (see the function
// ApplyContext).
func (p *Patch) ApplyContext(ctx context.Context, original string, opt Options) (string, *Report, error) {
	if err := ctx.Err(); err != nil {
		return "", nil, p.stopped(-1, err)
	}
	t := newText(original)
	if opt.Strict {
		places, err := p.placeStrict(t)
		if err != nil {
			return "", nil, err
		}
		return p.build(t, places, false), p.report(t, places), nil
	}
	places, err := p.placeCareful(ctx, t, opt)
	if err != nil {
		return "", nil, err
	}
	return p.build(t, places, true), p.report(t, places), nil
}

// text is the original, indexed by line. Lines are substrings of s, so
// splitting allocates one int per line and unchanged runs of lines are
// copied to the output in one piece.
type text struct {
	s    string
	off  []int           // off[i] is where line i starts; off[n] == len(s)
	lead map[string]bool // the indentations of the lines; filled on first use
	crlf bool            // most lines end in "\r\n"
}

func newText(s string) *text {
	t := &text{s: s, off: make([]int, 0, strings.Count(s, "\n")+2)}
	crlf := 0
	for i := 0; i < len(s); {
		t.off = append(t.off, i)
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			break
		}
		if j > 0 && s[i+j-1] == '\r' {
			crlf++
		}
		i += j + 1
	}
	t.off = append(t.off, len(s))
	t.crlf = crlf > 0 && 2*crlf >= t.n()
	return t
}

// n returns the number of lines.
func (t *text) n() int { return len(t.off) - 1 }

// line returns line i with its terminator.
func (t *text) line(i int) string { return t.s[t.off[i]:t.off[i+1]] }

// span returns lines i to j-1 with their terminators.
func (t *text) span(i, j int) string { return t.s[t.off[i]:t.off[j]] }

// leads returns the set of the lines' indentations, computing it once.
func (t *text) leads() map[string]bool {
	if t.lead == nil {
		t.lead = map[string]bool{}
		for i := range t.n() {
			if k := lineKey(t.line(i)); strings.TrimLeft(k, " \t") != "" {
				t.lead[leading(k)] = true
			}
		}
	}
	return t.lead
}

// splitLines splits s after each "\n"; the last line may lack one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// lineKey is a line as the careful applier compares it: without its
// terminator, whether "\n" or "\r\n".
func lineKey(l string) string {
	l = strings.TrimSuffix(l, "\n")
	return strings.TrimSuffix(l, "\r")
}

// wsKey normalises whitespace: runs of blanks become one space, and blanks
// at either end go.
func wsKey(s string) string { return string(appendWSKey(nil, s)) }

// appendWSKey appends s's wsKey to b.
func appendWSKey(b []byte, s string) []byte {
	start, space := len(b), false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' {
			space = true
			continue
		}
		if space && len(b) > start {
			b = append(b, ' ')
		}
		space = false
		b = append(b, c)
	}
	return b
}

// place is where one hunk goes.
type place struct {
	at      int // 0-based index in the original of the first line of lines
	lines   []Line
	offset  int  // at minus the stated index (0 for hunks without numbers)
	dropped int  // leading context lines dropped by fuzz
	fuzz    int  // most context lines dropped at one end
	ws      bool // matched ignoring whitespace
}

// statedIndex is the 0-based index of the hunk's first old line as the
// header states it; for a hunk without old lines, the index before which
// its lines go.
func (h *Hunk) statedIndex() int {
	if h.OldLines == 0 {
		return h.OldStart
	}
	return h.OldStart - 1
}

// placeStrict places every hunk at its stated line, byte for byte.
func (p *Patch) placeStrict(t *text) ([]place, error) {
	places := make([]place, len(p.Hunks))
	next := 0
	for i := range p.Hunks {
		h := &p.Hunks[i]
		switch {
		case h.NoNumbers:
			return nil, p.applyError(i, ErrNoMatch, nil, "the header has no line numbers, so it cannot be applied strictly")
		case h.Recounted:
			return nil, p.applyError(i, ErrNoMatch, nil, "the header's line counts disagree with the hunk's lines, so it cannot be applied strictly")
		}
		at := h.statedIndex()
		if at < next {
			return nil, p.applyError(i, ErrNoMatch, nil, "it overlaps the hunk before it")
		}
		j := at
		for _, l := range h.Lines {
			if !l.old() {
				continue
			}
			if j >= t.n() || !rawEqual(t.line(j), l) {
				return nil, p.applyError(i, ErrNoMatch, nil, fmt.Sprintf("line %d of the text is not the hunk's line %q", j+1, l.Text))
			}
			j++
		}
		if j > t.n() || at > t.n() {
			return nil, p.applyError(i, ErrNoMatch, nil, fmt.Sprintf("the text has only %d lines", t.n()))
		}

		places[i] = place{at: at, lines: h.Lines}
		next = j
	}
	return places, nil
}

// applyError builds the error for hunk i.
func (p *Patch) applyError(i int, kind error, places []int, msg string) error {
	h := &p.Hunks[i]
	return &ApplyError{Hunk: i + 1, Header: h.Header, Line: h.Pos, Msg: msg, Places: places, Kind: kind}
}

// build writes the patched text. Context lines are copied from the
// original, so a careful match keeps the text's own whitespace.
func (p *Patch) build(t *text, places []place, careful bool) string {
	w := lineWriter{crlf: t.crlf}
	w.b.Grow(len(t.s) + p.insertedSize())
	cur := 0
	for _, pl := range places {
		w.line(t.span(cur, pl.at), "")
		convert, crlf := false, false
		var indent *reindent
		if careful {
			convert, crlf = pl.eol(t)
			if pl.ws {
				indent = learnIndent(t, pl)
			}
		}
		j := pl.at
		for _, l := range pl.lines {
			switch l.Op {
			case Context:
				w.line(t.line(j), "")
				j++
			case Delete:
				j++
			case Insert:
				text := l.Text
				if indent != nil {
					text = indent.line(text)
				}
				switch {
				case l.NoEOL:
					w.line(text, "")
				case !convert:
					w.line(text, "\n")
				case crlf:
					w.line(strings.TrimSuffix(text, "\r"), "\r\n")
				default:
					w.line(strings.TrimSuffix(text, "\r"), "\n")
				}
			}
		}
		cur = j
	}
	w.line(t.span(cur, t.n()), "")
	return w.b.String()
}

// lineWriter writes lines. A line that lost its "\n" (the patch or the
// text said it was the last) but is no longer last gets one back.
type lineWriter struct {
	b      strings.Builder
	crlf   bool // the text's line ends, for a "\n" given back
	needNL bool // the last line written has no "\n"
}

func (w *lineWriter) line(s, eol string) {
	if s == "" && eol == "" {
		return // an empty run of lines
	}
	if w.needNL {
		if w.crlf {
			w.b.WriteByte('\r')
		}
		w.b.WriteByte('\n')
	}
	w.b.WriteString(s)
	w.b.WriteString(eol)
	w.needNL = eol == "" && !strings.HasSuffix(s, "\n")
}

// insertedSize is the bytes the patch's inserted lines take at most.
func (p *Patch) insertedSize() int {
	n := 0
	for _, h := range p.Hunks {
		for _, l := range h.Lines {
			if l.Op == Insert {
				n += len(l.Text) + 2
			}
		}
	}
	return n
}

// rawEqual reports whether the text's line s is l, terminator included,
// without building l's text.
func rawEqual(s string, l Line) bool {
	if l.NoEOL {
		return s == l.Text
	}
	return len(s) == len(l.Text)+1 && s[len(s)-1] == '\n' && s[:len(l.Text)] == l.Text
}

// eol says whether the place's inserted lines must take the text's line
// ends, and which: only when some old line matched just by ignoring a
// "\r" (a patch written with "\n" for a text with "\r\n", or the other
// way), and then the ends most of the matched lines have.
func (pl place) eol(t *text) (convert, crlf bool) {
	j, n, withCR := pl.at, 0, 0
	for _, l := range pl.lines {
		if !l.old() {
			continue
		}
		fileCR := strings.HasSuffix(t.line(j), "\r\n") || strings.HasSuffix(t.line(j), "\r")
		if fileCR != strings.HasSuffix(l.Text, "\r") {
			convert = true
		}
		if fileCR {
			withCR++
		}
		n++
		j++
	}
	return convert, 2*withCR > n
}

// report describes places.
func (p *Patch) report(t *text, places []place) *Report {
	r := &Report{Strict: true, Hunks: make([]HunkReport, len(places))}
	for i, pl := range places {
		h := &p.Hunks[i]
		// The hunk's first old line sits before any context fuzz dropped,
		// if the text has lines there.
		line := max(pl.at-pl.dropped, 0) + 1
		if h.OldLines == 0 {
			line = pl.at
		}
		r.Hunks[i] = HunkReport{Hunk: i + 1, Line: line, Offset: pl.offset, Fuzz: pl.fuzz, Whitespace: pl.ws}
		if pl.offset != 0 || pl.fuzz != 0 || pl.ws || h.NoNumbers || h.Recounted || !pl.exact(t) {
			r.Strict = false
		}
	}
	return r
}

// exact reports whether the place's old lines equal the text's byte for byte.
func (pl place) exact(t *text) bool {
	j := pl.at
	for _, l := range pl.lines {
		if l.old() {
			if !rawEqual(t.line(j), l) {
				return false
			}
			j++
		}
	}
	return true
}
