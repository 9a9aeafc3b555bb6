package detect

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"unicode/utf8"
)

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("detect: write to a closed scanner")

// block is the scanner's state between lines.
type block int

const (
	inProse        block = iota // ordinary text
	inCode                      // a fenced code block that belongs to no action
	inFencedBlock               // a fenced block that is the current action's content
	inTripleBlock               // a """ block that is the current action's content
	afterAction                 // the line before was an action line: content may follow
	inQuoteContent              // "> " lines that are the current action's content
)

// lineKind classifies the last completed line, for the display Filter.
type lineKind int

const (
	kindProse   lineKind = iota // shown to a person
	kindAction                  // the line of a line action
	kindContent                 // part of a line action's content block
)

// pending is an action waiting out its early-execution window.
type pending struct {
	idx  int // index in Scanner.actions
	line int // last line of the action; only later lines count
	seen int // words or bytes written after it so far
}

// Scanner finds actions in one message written to it in chunks of any
// size. It is an io.Writer; call Close when the message ends, then Actions.
// What it reports never depends on where the chunks split: all decisions
// are taken on whole lines, and only the current incomplete line (or the
// current action's content block) is kept in memory.
//
// A Scanner is not safe for concurrent use. Reset makes it ready for the
// next message and keeps its buffers.
type Scanner struct {
	vocab  Vocabulary
	opt    Options
	recon  *phraseMatcher
	flags  map[string]bool // lower-cased permission flags, "ask" included
	closed bool
	noSkip bool // tests only: read every line, to check the skipping against

	buf  []byte // the current incomplete line
	off  int    // message offset of the first byte not yet processed (buf[0] when buf is not empty)
	line int    // 1-based line number at off

	state      block
	fenceC     byte  // fence character of the open fenced block
	fenceN     int   // fence length of the open fenced block
	fenceInd   int   // indentation of its opening fence, in columns past its containers
	boxes      []box // containers of the open code block (inCode)
	boxScratch []box // for codeLine
	cur        int   // index of the action whose content is open, or -1

	// A fence opened inside the open action's quote lines or """ block:
	// CommonMark reads the lines after it as code (cfN is 0 when none).
	cfC     byte
	cfN     int
	cfInd   int
	cfBoxes []box

	content []byte      // content of the current action, at most MaxActionSize+1 bytes
	hid     []hidden    // code spans and comments of the current line
	scratch spanScratch // for walkInline
	kind    lineKind    // kind of the last completed line
	lastEnd int         // message offset of the end of the last line read, line ending excluded

	// Inline state between lines (inline.go).
	inComment bool       // an HTML comment is open
	spanOpen  int        // a code span of this many backticks is open (past the held-text limit)
	pend      []byte     // lines held while a span may be open, each followed by '\n'
	pendLines []pendLine // where they are
	pendHid   []hidden   // their code and comment ranges so far, offsets in pend
	pendOpen  int        // offset in pend of the backtick run that may open a span
	pendN     int        // its length; 0 when nothing is held

	track bool       // record marks for the display Filter
	marks []lineMark // kinds of processed lines that are not prose, in order

	actions    []Action
	proseAfter int  // actions[:proseAfter] have prose after them
	reconDone  int  // actions[:reconDone] have been checked for a phrase after them
	reconOpen  bool // some action in actions[reconDone:] wants a phrase check
	early      []pending
	fired      []int // actions given to OnEarly
}

// NewScanner returns a scanner that resolves verbs through v, configured by
// opt (start from DefaultOptions).
func NewScanner(v Vocabulary, opt Options) *Scanner {
	s := &Scanner{vocab: v, opt: opt, recon: newPhraseMatcher(opt.Reconsideration), flags: map[string]bool{"ask": true}}
	for _, f := range opt.PermissionFlags {
		s.flags[strings.ToLower(f)] = true
	}
	s.buf = make([]byte, 0, 256)
	if s.opt.MaxActionSize <= 0 {
		s.opt.MaxActionSize = 64 << 10
	}
	s.Reset()
	return s
}

// Scan scans one whole message.
func Scan(v Vocabulary, opt Options, msg []byte) []Action {
	return NewScanner(v, opt).Scan(msg)
}

// Scan resets s, scans msg as one whole message and returns its actions,
// which stay valid until the next Reset. It reports what writing msg in
// chunks and closing would, without buffering its last line.
func (s *Scanner) Scan(msg []byte) []Action {
	s.Reset()
	s.feed(msg, true)
	s.Close()
	return s.Actions()
}

// Reset discards the current message so the scanner can take the next one.
func (s *Scanner) Reset() {
	s.closed = false
	s.buf = s.buf[:0]
	s.off, s.line = 0, 1
	s.state, s.cur, s.cfN = inProse, -1, 0
	s.content = s.content[:0]
	s.kind = kindProse
	s.inComment, s.spanOpen, s.pendN = false, 0, 0
	s.pend, s.pendLines, s.pendHid = s.pend[:0], s.pendLines[:0], s.pendHid[:0]
	s.marks = s.marks[:0]
	s.actions = s.actions[:0]
	s.proseAfter, s.reconDone, s.reconOpen = 0, 0, false
	s.early, s.fired = s.early[:0], s.fired[:0]
}

// Actions returns the actions detected so far. After Close every field is
// final; before it, Trailing, Executable and Reason are not yet decided.
// The slice is the scanner's own until the next Reset.
func (s *Scanner) Actions() []Action { return s.actions }

// Write takes the next chunk of the message. It never fails before Close.
func (s *Scanner) Write(p []byte) (int, error) {
	// The common streaming case, up to 8 bytes inside a line, is a few
	// word operations: load, test for a newline, store. The line is looked
	// at when it ends.
	n := len(s.buf)
	if len(p) == 0 || len(p) > 8 || n+8 > cap(s.buf) || s.closed {
		return s.write(p)
	}
	var x uint64
	switch {
	case len(p) == 8:
		x = binary.LittleEndian.Uint64(p)
	case len(p) >= 4:
		x = uint64(binary.LittleEndian.Uint32(p))
		for i := 4; i < len(p); i++ {
			x |= uint64(p[i]) << (8 * i)
		}
	default:
		for i, c := range p {
			x |= uint64(c) << (8 * i)
		}
	}
	if zeroLanes(x^(lanes*'\n')) != 0 {
		return s.write(p)
	}
	binary.LittleEndian.PutUint64(s.buf[n:n+8], x)
	s.buf = s.buf[:n+len(p)]
	return len(p), nil
}

// lanes times a byte repeats it in all eight bytes of a word.
const lanes = 0x0101010101010101

// zeroLanes returns a word with 0x80 in each byte where x has a zero byte,
// exactly (no borrow between bytes). Bytes past a short chunk are zero in x
// but never zero after XOR with '\n', so they never count.
func zeroLanes(x uint64) uint64 {
	const m = 0x7f7f7f7f7f7f7f7f
	return ^(((x & m) + m) | x | m)
}

func (s *Scanner) write(p []byte) (int, error) {
	if s.closed {
		return 0, ErrClosed
	}
	n := len(p)
	if len(s.buf) > 0 {
		i := indexNL(p)
		if i < 0 {
			s.buffer(p)
			return n, nil
		}
		s.buffer(p[:i])
		s.buf = append(s.buf, '\n')
		if s.quiet() && bytes.IndexByte(s.buf, '/') < 0 && bytes.IndexByte(s.buf, '`') < 0 && bytes.IndexByte(s.buf, '~') < 0 &&
			bytes.Index(s.buf, commentOpen) < 0 {
			// A line with no sigil, no backtick or tilde and no comment
			// changes nothing: four vectorised searches settle it without a
			// feed.
			s.off += len(s.buf)
			s.line++
			s.kind = kindProse
		} else {
			s.feed(s.buf, false)
		}
		s.buf = s.buf[:0]
		p = p[i+1:]
		if len(p) <= 16 && indexNL(p) < 0 {
			s.buffer(p) // the start of the next line, as when streaming
			return n, nil
		}
	}
	c := s.feed(p, false)
	s.buffer(p[c:])
	return n, nil
}

// buffer appends part of the current line to buf.
func (s *Scanner) buffer(p []byte) {
	s.buf = append(s.buf, p...)
}

// indexNL is bytes.IndexByte(p, '\n') without the call for tiny chunks.
func indexNL(p []byte) int {
	if len(p) <= 8 {
		for i, c := range p {
			if c == '\n' {
				return i
			}
		}
		return -1
	}
	return bytes.IndexByte(p, '\n')
}

// Close ends the message and takes the decisions of docs/language.md §2.
func (s *Scanner) Close() error {
	if s.closed {
		return nil
	}
	if len(s.buf) > 0 {
		s.feed(s.buf, true)
		s.buf = s.buf[:0]
	}
	if s.pendN > 0 {
		s.resolvePending() // the message ended, and the paragraph with it
	}
	s.closed = true
	if s.cur >= 0 {
		switch s.state {
		case inTripleBlock:
			s.actions[s.cur].unclosed = true
			s.actions[s.cur].Span.End = s.lastEnd
		case inFencedBlock:
			s.actions[s.cur].Span.End = s.lastEnd // CommonMark: it runs to the end
		}
		s.finishAction(s.line)
	}
	s.state = inProse
	s.early = s.early[:0]
	s.decide()
	for _, i := range s.fired {
		if a := &s.actions[i]; !a.Executable && !a.withdrawn {
			s.withdraw(i)
		}
	}
	return nil
}

// quiet reports whether lines without a sigil or fence can be skipped
// unread: nothing waits on the next prose line.
func (s *Scanner) quiet() bool {
	return !s.noSkip && s.state == inProse && !s.reconOpen && s.proseAfter == len(s.actions) && len(s.early) == 0 &&
		s.pendN == 0 && !s.inComment && s.spanOpen == 0
}

// feed processes data, which starts at a line start, up to its last
// complete line (all of it when final is set) and returns how much it took.
func (s *Scanner) feed(data []byte, final bool) int {
	// s.line is the number of the line at data[counted]: skipped lines are
	// counted only when a later line is read.
	pos, counted := 0, 0
	nextSlash, nextTick, nextTilde, nextCmt := -1, -1, -1, -1 // cached search results, absolute in data
	for pos < len(data) {
		if s.quiet() {
			// Skip to the line of the next byte that may matter: a sigil
			// at a boundary before a letter, a fence at a line start, a
			// backtick run that finds no closer on its line, a comment.
			if nextSlash < pos {
				nextSlash = indexFrom(data, pos, '/')
			}
			for nextSlash < len(data) && !plausibleSigil(data, nextSlash) {
				nextSlash = indexFrom(data, nextSlash+1, '/')
			}
			if nextTick < pos {
				nextTick = indexFrom(data, pos, '`')
			}
			for nextTick < len(data) {
				le := indexFrom(data, nextTick, '\n')
				if s.ticksMatter(data, nextTick, le, final || le < len(data)) {
					break
				}
				nextTick = indexFrom(data, le, '`')
			}
			if nextTilde < pos {
				nextTilde = indexStrFrom(data, pos, "~~~")
			}
			for nextTilde < len(data) && !plausibleFence(data, nextTilde) {
				nextTilde = indexStrFrom(data, nextTilde+3, "~~~")
			}
			if nextCmt < pos {
				nextCmt = indexStrFrom(data, pos, "<!--")
			}
			h := min(nextSlash, nextTick, nextTilde, nextCmt, len(data))
			if h == len(data) && final {
				// Nothing left matters, the last line included. Its line
				// number is never needed: lines are counted only up to a
				// line that is read.
				s.off += len(data) - pos
				s.kind = kindProse
				return len(data)
			}
			ls := pos
			if h > pos {
				if k := lastIndexNL(data[pos:h]); k >= 0 {
					ls = pos + k + 1
				}
			}
			if ls > pos {
				s.off += ls - pos
				s.kind = kindProse
				pos = ls
			}
			if pos >= len(data) {
				break
			}
		}
		e := bytes.IndexByte(data[pos:], '\n')
		next := pos + e + 1
		if e < 0 {
			if !final {
				break
			}
			e = len(data) - pos
			next = len(data)
		}
		line := data[pos : pos+e]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if counted < pos {
			s.line += bytes.Count(data[counted:pos], []byte{'\n'})
		}
		s.takeLine(line, s.off)
		s.off += next - pos
		s.line++
		pos, counted = next, next
	}
	if counted < pos && !final {
		s.line += bytes.Count(data[counted:pos], []byte{'\n'})
	}
	return pos
}

// plausibleSigil is a cheap test that a '/' at data[i] (data starting at a
// line start) may start an action: what precedes it may be a boundary, a
// line prefix or a code span's backticks, and what follows may start a
// word. Anything it rejects, processLine would reject too.
func plausibleSigil(data []byte, i int) bool {
	if i+1 >= len(data) {
		return false
	}
	if c := data[i+1]; c < utf8.RuneSelf && (c|0x20 < 'a' || c|0x20 > 'z') {
		return false
	}
	if i == 0 {
		return true
	}
	switch c := data[i-1]; c {
	case ' ', '\t', '(', '[', '>', '\n', '\f', '\v', '`':
		return true
	default:
		return c >= utf8.RuneSelf
	}
}

// plausibleFence reports whether only a line prefix (indentation, quote
// markers, list markers) precedes data[i] on its line.
func plausibleFence(data []byte, i int) bool {
	for i > 0 && isPrefixByte(data[i-1]) {
		i--
	}
	return i == 0 || data[i-1] == '\n'
}

// ticksMatter reports whether the line holding data[t], its first
// backtick (the line ends at le), must be read: it may open a fence, or a
// backtick run on it finds no closer on the line. whole is false when the
// line may still go on.
func (s *Scanner) ticksMatter(data []byte, t, le int, whole bool) bool {
	if !whole || t+2 < le && data[t+1] == '`' && data[t+2] == '`' && plausibleFence(data, t) {
		return true
	}
	// Usually single backticks, which pair up in order.
	n := 0
	for i := t; i < le; {
		if i+1 < le && data[i+1] == '`' {
			_, open, _, cmt := walkInline(data[t:le], 0, false, s.hid[:0], &s.scratch)
			return open >= 0 || cmt
		}
		n++
		i = indexFrom(data[:le], i+1, '`')
	}
	return n%2 == 1
}

// lastIndexNL is bytes.LastIndexByte(b, '\n') using the vectorised forward
// search on 64-byte blocks from the end.
func lastIndexNL(b []byte) int {
	end := len(b)
	for end > 0 {
		start := max(0, end-64)
		if bytes.IndexByte(b[start:end], '\n') >= 0 {
			return bytes.LastIndexByte(b[:end], '\n')
		}
		end = start
	}
	return -1
}

func indexFrom(b []byte, from int, c byte) int {
	if i := bytes.IndexByte(b[from:], c); i >= 0 {
		return from + i
	}
	return len(b)
}

func indexStrFrom(b []byte, from int, sep string) int {
	if i := bytes.Index(b[from:], []byte(sep)); i >= 0 {
		return from + i
	}
	return len(b)
}

// processLine takes one whole line (without its line ending) that starts
// at message offset start; s.hid holds its code spans and comments.
func (s *Scanner) processLine(line []byte, start int) {
	s.kind = kindProse
	s.lastEnd = start + len(line)
	switch s.state {
	case inCode:
		if k, ok := inBoxes(line, s.boxes); ok {
			if fenceClosesAt(line[k:], s.fenceC, s.fenceN, s.fenceInd) {
				s.state = inProse
			} else {
				s.noteHidden(line, k, len(line), start, asCode)
			}
			s.countEarly(line)
			return
		}
		s.state = inProse // its container ended, and the block with it
	case inFencedBlock:
		s.markContent()
		if fenceClosesAt(line, s.fenceC, s.fenceN, s.fenceInd) {
			s.actions[s.cur].Span.End = start + len(line)
			s.finishAction(s.line)
			s.state = inProse
		} else {
			s.addContent(line, true)
		}
		s.countEarly(line)
		return
	case inTripleBlock:
		s.markContent()
		if k := bytes.Index(line, []byte(`"""`)); k >= 0 {
			body := line[:k]
			s.mentionText(line, 0, k)
			cf := s.cfN > 0
			if len(bytes.TrimSpace(body)) > 0 {
				s.addContent(body, false)
			} else if n := len(s.content); n > 0 && s.content[n-1] == '\n' {
				s.content = s.content[:n-1]
			}
			s.closingTail(line[k+3:])
			s.actions[s.cur].Span.End = start + len(line)
			s.finishAction(s.line)
			s.state = inProse
			if cf {
				// The block ended inside a fence it opened: what follows is
				// code until that fence closes, as CommonMark shows it.
				s.state, s.fenceC, s.fenceN, s.fenceInd = inCode, s.cfC, s.cfN, s.cfInd
				s.boxes = append(s.boxes[:0], s.cfBoxes...)
				s.cfN = 0
			}
		} else {
			s.mentionText(line, 0, len(line))
			s.contentFence(line)
			s.addContent(line, true)
		}
		s.countEarly(line)
		return
	case afterAction:
		if ch, n, ok := fenceOpen(line); ok {
			s.markContent()
			s.state, s.fenceC, s.fenceN = inFencedBlock, ch, n
			_, s.fenceInd = skipCols(line, 0, 0)
			s.actions[s.cur].Kind = Fenced
			s.countEarly(line)
			return
		}
		fallthrough
	case inQuoteContent:
		if body, ok := s.quoteContent(line); ok {
			s.markContent()
			a := &s.actions[s.cur]
			if a.Kind == NoContent {
				a.Kind = QuoteLines
			} else {
				s.content = append(s.content, '\n')
			}
			s.mentionText(line, len(line)-len(body), len(line))
			s.contentFence(body)
			s.addContent(body, false)
			a.Span.End = start + len(line)
			s.state = inQuoteContent
			s.countEarly(line)
			return
		}
		s.finishAction(s.line - 1)
		s.state, s.cfN = inProse, 0 // the quote ended, and any fence in it
	}

	// Prose: a code fence, a line with an action, or plain text.
	if !s.startsHidden() {
		if boxes, ch, n, ind, ok := openFence(line, s.boxes); ok {
			s.boxes = boxes
			s.state, s.fenceC, s.fenceN, s.fenceInd = inCode, ch, n, ind
			s.markProse()
			s.countEarly(line)
			return
		}
	}
	i, cs := s.findSigil(line)
	to := len(line)
	if i >= 0 {
		to = i
	}
	for _, h := range s.hid {
		if h.start < to {
			s.noteHidden(line, h.start, min(h.end, to), start, h.kind)
		}
	}
	if i >= 0 {
		inline := i != cs
		if inline {
			s.markProse()
		}
		n := len(s.actions)
		s.parseAction(line, i, start, inline)
		switch a := &s.actions[n]; {
		case inline && !a.Do || a.Verb == "":
			s.checkRecon(line, 0, len(line), n) // a mention: its text is prose
		case inline:
			s.checkRecon(line, 0, i, n)
		}
		s.countEarly(line)
		return
	}
	if !isBlankLine(line) {
		s.markProse()
		s.checkRecon(line, 0, len(line), len(s.actions))
	}
	s.countEarly(line)
}

// mentionText reads line[from:to], part of the content of the open action,
// as prose for the actions before it when that action is a mere mention
// (inline without /do, or a verb that did not resolve).
func (s *Scanner) mentionText(line []byte, from, to int) {
	if a := &s.actions[s.cur]; s.cfN == 0 && (a.Inline && !a.Do || a.Verb == "") {
		s.checkRecon(line, from, to, s.cur)
	}
}

// findSigil returns the offset of the first action sigil on line (or -1)
// and the line's content start.
func (s *Scanner) findSigil(line []byte) (int, int) {
	cs := -1
	si := 0 // hidden ranges before si end before the current sigil
	for from := 0; from < len(line); {
		k := bytes.IndexByte(line[from:], '/')
		if k < 0 {
			break
		}
		i := from + k
		from = i + 1
		if cs < 0 {
			cs = contentStart(line)
		}
		if i != cs && !boundaryBefore(line, i) {
			continue
		}
		e := wordEnd(line, i+1)
		if e == i+1 || pathAfter(line, e) {
			continue
		}
		for si < len(s.hid) && s.hid[si].end <= i {
			si++
		}
		if si < len(s.hid) && s.hid[si].start <= i {
			continue // inside inline code or a comment
		}
		return i, cs
	}
	return -1, cs
}

// markProse records prose at the current point: every action so far has
// prose after it, so none of them is trailing.
func (s *Scanner) markProse() { s.proseAfter = len(s.actions) }

// markContent classifies the current line as content of the open action.
func (s *Scanner) markContent() {
	if s.cur >= 0 && s.actions[s.cur].lineAction && s.actions[s.cur].Verb != "" {
		s.kind = kindContent
	}
}

// quoteContent returns the text of a "> " line that continues the current
// action's content; a quoted line that holds an action of its own is not
// content.
func (s *Scanner) quoteContent(line []byte) ([]byte, bool) {
	i := skipBlank(line, 0)
	if i >= len(line) || line[i] != '>' {
		return nil, false
	}
	cs := contentStart(line)
	if s.cfN == 0 && cs < len(line) && line[cs] == '/' { // inside a fence it is code: content
		if e := wordEnd(line, cs+1); e > cs+1 && !pathAfter(line, e) {
			return nil, false
		}
	}
	i++
	if i < len(line) && line[i] == ' ' {
		i++
	}
	return line[i:], true
}

// contentFence follows CommonMark fences in a line of the open action's
// quote lines or """ block (body is the text inside the quote markers).
func (s *Scanner) contentFence(body []byte) {
	if s.cfN > 0 {
		k, ok := inBoxes(body, s.cfBoxes)
		if !ok || fenceClosesAt(body[k:], s.cfC, s.cfN, s.cfInd) {
			s.cfN = 0
		}
		return
	}
	var ok bool
	var n int
	if s.cfBoxes, s.cfC, n, s.cfInd, ok = openFence(body, s.cfBoxes); ok {
		s.cfN = n
	}
}

// addContent appends text (and a newline when nl) to the open content,
// stopping one byte past MaxActionSize so that memory stays bounded.
func (s *Scanner) addContent(text []byte, nl bool) {
	room := s.opt.MaxActionSize + 1 - len(s.content)
	if room <= 0 {
		s.actions[s.cur].tooLarge = true
		return
	}
	if len(text) > room {
		text = text[:room]
	}
	s.content = append(s.content, text...)
	if nl && len(s.content) <= s.opt.MaxActionSize {
		s.content = append(s.content, '\n')
	}
}

// closingTail handles the text after a closing """: a permission marker or
// a chain; anything else is appended to the arguments.
func (s *Scanner) closingTail(tail []byte) {
	a := &s.actions[s.cur]
	args, chain := splitChain(tail)
	if len(chain) > 0 && a.Chain == "" {
		a.Chain = cleanText(chain)
	}
	args, marker := s.splitMarker(args)
	if marker != "" && a.Marker == "" {
		a.Marker = marker
		a.badMarker = !s.validMarker(marker)
	}
	if t := bytes.TrimSpace(args); len(t) > 0 {
		if a.Args != "" {
			a.Args += " "
		}
		a.Args += cleanText(t)
	}
}

// finishAction completes the current action once its content is known;
// lastLine is the last line of its text.
func (s *Scanner) finishAction(lastLine int) {
	a := &s.actions[s.cur]
	if len(s.content) > s.opt.MaxActionSize || len(a.Args)+len(s.content) > s.opt.MaxActionSize {
		a.tooLarge = true
	}
	if len(s.content) > s.opt.MaxActionSize {
		s.content = s.content[:s.opt.MaxActionSize]
	}
	if a.Kind != NoContent {
		a.Content = cleanText(s.content)
		if a.Kind == Quoted {
			a.Content = unescape(a.Content)
		}
	}
	s.content = s.content[:0]
	if s.opt.EarlyExecution && a.Do && !s.closed && a.Verb != "" && !a.badMarker && !a.tooLarge && !a.unclosed &&
		s.opt.ReadOnly != nil && s.opt.ReadOnly(a) {
		s.early = append(s.early, pending{idx: s.cur, line: lastLine})
	}
	s.cur = -1
}
