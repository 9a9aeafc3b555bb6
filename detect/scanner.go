package detect

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
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

	buf  []byte // the current incomplete line
	off  int    // message offset of the first byte not yet processed (buf[0] when buf is not empty)
	line int    // 1-based line number at off

	state  block
	fenceC byte // fence character of the open fenced block
	fenceN int  // fence length of the open fenced block
	cur    int  // index of the action whose content is open, or -1

	content []byte      // content of the current action, at most MaxActionSize+1 bytes
	spans   [][2]int    // inline code spans of the current line
	scratch spanScratch // for codeSpans
	kind    lineKind    // kind of the last completed line

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
	s.state, s.cur = inProse, -1
	s.content = s.content[:0]
	s.kind = kindProse
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
		if s.quiet() && bytes.IndexByte(s.buf, '/') < 0 && bytes.IndexByte(s.buf, '`') < 0 && bytes.IndexByte(s.buf, '~') < 0 {
			// A line with no sigil and no fence character changes nothing:
			// three vectorised searches settle it without a feed.
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

// Close ends the message and takes the decisions of DIALECT.md §2.
func (s *Scanner) Close() error {
	if s.closed {
		return nil
	}
	if len(s.buf) > 0 {
		s.feed(s.buf, true)
		s.buf = s.buf[:0]
	}
	s.closed = true
	if s.cur >= 0 {
		if s.state == inTripleBlock {
			s.actions[s.cur].unclosed = true
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
	return s.state == inProse && !s.reconOpen && s.proseAfter == len(s.actions) && len(s.early) == 0
}

// feed processes data, which starts at a line start, up to its last
// complete line (all of it when final is set) and returns how much it took.
func (s *Scanner) feed(data []byte, final bool) int {
	pos := 0
	nextSlash, nextTick, nextTilde := -1, -1, -1 // cached search results, absolute in data
	for pos < len(data) {
		if s.quiet() {
			// Skip to the line of the next byte that may matter: a sigil
			// at a boundary before a letter, or a fence at a line start.
			if nextSlash < pos {
				nextSlash = indexFrom(data, pos, '/')
			}
			for nextSlash < len(data) && !plausibleSigil(data, nextSlash) {
				nextSlash = indexFrom(data, nextSlash+1, '/')
			}
			if nextTick < pos {
				nextTick = indexStrFrom(data, pos, "```")
			}
			for nextTick < len(data) && !plausibleFence(data, nextTick) {
				nextTick = indexStrFrom(data, nextTick+3, "```")
			}
			if nextTilde < pos {
				nextTilde = indexStrFrom(data, pos, "~~~")
			}
			for nextTilde < len(data) && !plausibleFence(data, nextTilde) {
				nextTilde = indexStrFrom(data, nextTilde+3, "~~~")
			}
			h := minHit(nextSlash, nextTick, nextTilde, len(data))
			ls := pos
			if h > pos {
				if k := lastIndexNL(data[pos:h]); k >= 0 {
					ls = pos + k + 1
				}
			}
			if ls > pos {
				s.line += bytes.Count(data[pos:ls], []byte{'\n'})
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
		s.processLine(line, s.off)
		s.off += next - pos
		s.line++
		pos = next
	}
	return pos
}

// plausibleSigil is a cheap test that a '/' at data[i] (data starting at a
// line start) may start an action: what precedes it may be a boundary or a
// line prefix, and what follows may start a word. Anything it rejects,
// processLine would reject too.
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
	case ' ', '\t', '(', '[', '>', '\n', '\f', '\v':
		return true
	default:
		return c >= utf8.RuneSelf
	}
}

// plausibleFence reports whether only blanks precede data[i] on its line.
func plausibleFence(data []byte, i int) bool {
	for i > 0 && isBlank(data[i-1]) {
		i--
	}
	return i == 0 || data[i-1] == '\n'
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

func minHit(a, b, c, n int) int {
	m := n
	if a < m {
		m = a
	}
	if b < m {
		m = b
	}
	if c < m {
		m = c
	}
	return m
}

// processLine takes one whole line (without its line ending) that starts
// at message offset start.
func (s *Scanner) processLine(line []byte, start int) {
	s.kind = kindProse
	switch s.state {
	case inCode:
		if fenceClose(line, s.fenceC, s.fenceN) {
			s.state = inProse
		}
		s.countEarly(line)
		return
	case inFencedBlock:
		s.markContent()
		if fenceClose(line, s.fenceC, s.fenceN) {
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
			if len(bytes.TrimSpace(body)) > 0 {
				s.addContent(body, false)
			} else if n := len(s.content); n > 0 && s.content[n-1] == '\n' {
				s.content = s.content[:n-1]
			}
			s.closingTail(line[k+3:])
			s.actions[s.cur].Span.End = start + len(line)
			s.finishAction(s.line)
			s.state = inProse
		} else {
			s.addContent(line, true)
		}
		s.countEarly(line)
		return
	case afterAction:
		if ch, n, ok := fenceOpen(line); ok {
			s.markContent()
			s.state, s.fenceC, s.fenceN = inFencedBlock, ch, n
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
			s.addContent(body, false)
			a.Span.End = start + len(line)
			s.state = inQuoteContent
			s.countEarly(line)
			return
		}
		s.finishAction(s.line - 1)
		s.state = inProse
	}

	// Prose: a code fence, a line with an action, or plain text.
	if ch, n, ok := fenceOpen(line); ok {
		s.state, s.fenceC, s.fenceN = inCode, ch, n
		s.markProse()
		s.countEarly(line)
		return
	}
	s.spans = s.spans[:0]
	if bytes.IndexByte(line, '`') >= 0 {
		s.spans = codeSpans(line, s.spans, &s.scratch)
	}
	if i, cs := s.findSigil(line); i >= 0 {
		inline := i != cs
		if inline {
			s.markProse()
			s.checkRecon(line[:i])
		}
		s.parseAction(line, i, start, inline)
		s.countEarly(line)
		return
	}
	if !isBlankLine(line) {
		s.markProse()
		s.checkRecon(line)
	}
	s.countEarly(line)
}

// findSigil returns the offset of the first action sigil on line (or -1)
// and the line's content start.
func (s *Scanner) findSigil(line []byte) (int, int) {
	cs := -1
	si := 0 // spans before si end before the current sigil
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
		for si < len(s.spans) && s.spans[si][1] <= i {
			si++
		}
		if si < len(s.spans) && s.spans[si][0] <= i {
			continue // inside inline code
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
	if s.cur >= 0 && s.actions[s.cur].lineAction {
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
	if cs < len(line) && line[cs] == '/' {
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

// parseAction reads the action whose sigil is at line[i].
func (s *Scanner) parseAction(line []byte, i, start int, inline bool) {
	if !inline {
		s.kind = kindAction
	}
	a := Action{Inline: inline, lineAction: !inline}
	a.Span = Span{Start: start + i, End: start + len(line), Line: s.line, Col: utf8.RuneCount(line[:i]) + 1}

	ts, te := i+1, wordEnd(line, i+1)
	if te-ts == 2 && (line[ts]|0x20) == 'd' && (line[ts+1]|0x20) == 'o' {
		if k := skipBlank(line, te); k > te && k < len(line) {
			k2 := k
			if line[k2] == '/' {
				k2++
			}
			if e := wordEnd(line, k2); e > k2 && !pathAfter(line, e) {
				a.Do = true
				ts, te = k2, e
			}
		}
	}

	// The verb, extended word by word while a longer phrase is registered.
	name := norm.NFC.String(string(line[ts:te]))
	verb, ok := s.vocab.Resolve(name)
	end := te
	for cur, curEnd := name, te; s.vocab.Extends(cur); {
		k := skipBlank(line, curEnd)
		if k == curEnd {
			break
		}
		e := wordEnd(line, k)
		if e == k {
			break
		}
		cur = cur + " " + norm.NFC.String(string(line[k:e]))
		curEnd = e
		if v, ok2 := s.vocab.Resolve(cur); ok2 {
			verb, ok, end = v, true, e
		}
	}
	a.Token = cleanText(line[ts:end])
	if ok {
		a.Verb = verb
	}

	rest := line[end:]
	args, chain := splitChain(rest)
	if len(chain) > 0 {
		a.Chain = cleanText(chain)
	}
	s.content = s.content[:0]
	next := afterAction
	if k := bytes.Index(args, []byte(`"""`)); k >= 0 {
		after := args[k+3:]
		args = args[:k]
		a.Kind = TripleQuoted
		if c := bytes.Index(after, []byte(`"""`)); c >= 0 {
			s.content = append(s.content, after[:c]...)
			args = append(args[:len(args):len(args)], after[c+3:]...)
			next = inProse
		} else {
			if len(bytes.TrimSpace(after)) > 0 {
				s.content = append(s.content, after...)
				s.content = append(s.content, '\n')
			}
			next = inTripleBlock
		}
	} else if k := fenceInArgs(args); k >= 0 {
		ch, n, _ := fenceAt(args, k)
		s.fenceC, s.fenceN = ch, n
		args = args[:k]
		a.Kind = Fenced
		next = inFencedBlock
	}
	args, marker := s.splitMarker(args)
	if marker != "" {
		a.Marker = marker
		a.badMarker = !s.validMarker(marker)
	}
	args = bytes.TrimSpace(args)
	if a.Kind == NoContent {
		if q, ok := trailingQuoted(args); ok {
			a.Kind = Quoted
			s.content = append(s.content, q...)
		}
	}
	if len(args) > s.opt.MaxActionSize {
		a.tooLarge = true
		args = args[:s.opt.MaxActionSize]
	}
	a.Args = cleanText(args)
	if a.lineAction || a.Do {
		s.reconOpen = true
	}
	s.actions = append(s.actions, a)
	s.cur = len(s.actions) - 1
	s.state = next
	if next == inProse {
		s.finishAction(s.line)
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

// checkRecon looks for a reconsideration phrase in prose (outside code
// spans) when some action is waiting for one.
func (s *Scanner) checkRecon(prose []byte) {
	if !s.reconOpen {
		return
	}
	found := ""
	from := 0
	for _, sp := range s.spans {
		if sp[0] >= len(prose) {
			break
		}
		if found = s.recon.find(prose[from:sp[0]]); found != "" {
			break
		}
		from = sp[1]
	}
	if found == "" && from < len(prose) {
		found = s.recon.find(prose[from:])
	}
	if found == "" {
		return
	}
	for i := s.reconDone; i < len(s.actions); i++ {
		if a := &s.actions[i]; a.lineAction || a.Do {
			a.Phrase = found
		}
	}
	s.reconDone = len(s.actions)
	s.reconOpen = false
	// A reconsideration inside the window stops early execution; after it,
	// it withdraws what already ran.
	keep := s.early[:0]
	for _, p := range s.early {
		if s.actions[p.idx].Phrase == "" {
			keep = append(keep, p)
		}
	}
	s.early = keep
	for _, i := range s.fired {
		if s.actions[i].Phrase != "" && !s.actions[i].withdrawn {
			s.withdraw(i)
		}
	}
}

// countEarly advances the confirmation windows by one line.
func (s *Scanner) countEarly(line []byte) {
	if len(s.early) == 0 {
		return
	}
	n := len(line) + 1
	if s.opt.EarlyWindowUnit == Words {
		n = countWords(line)
	}
	keep := s.early[:0]
	for _, p := range s.early {
		if s.line > p.line {
			p.seen += n
		}
		if p.seen >= s.opt.EarlyWindow && s.line > p.line {
			a := &s.actions[p.idx]
			a.Early = true
			s.fired = append(s.fired, p.idx)
			if s.opt.OnEarly != nil {
				s.opt.OnEarly(*a)
			}
			continue
		}
		keep = append(keep, p)
	}
	s.early = keep
}

func (s *Scanner) withdraw(i int) {
	a := &s.actions[i]
	a.withdrawn = true
	if s.opt.OnWithdraw != nil {
		s.opt.OnWithdraw(*a)
	}
}

// decide takes the post-completion decisions of DIALECT.md §2.
func (s *Scanner) decide() {
	cancelAt := -1
	for i := range s.actions {
		a := &s.actions[i]
		a.Trailing = a.lineAction && i >= s.proseAfter
		if a.Verb == "cancel" && (a.Trailing || a.Do) && a.Phrase == "" && a.Args == "" && a.Kind == NoContent && !a.badMarker {
			cancelAt = i
		}
	}
	for i := range s.actions {
		a := &s.actions[i]
		a.Executable, a.Reason = false, NoReason
		switch {
		case !a.Trailing && !a.Do:
			a.Reason = MidMessage
			if a.Phrase != "" && a.lineAction {
				a.Reason = Reconsidered
			}
		case a.Phrase != "":
			a.Reason = Reconsidered
		case i < cancelAt:
			a.Reason = Cancelled
		case a.Verb == "":
			a.Reason = UnknownVerb
		case a.badMarker:
			a.Reason = InvalidMarker
		case a.tooLarge:
			a.Reason = TooLarge
		case a.unclosed:
			a.Reason = Unterminated
		default:
			a.Executable = true
		}
	}
}

// splitChain splits argument text at the first "->" (outside double
// quotes, after whitespace) that is followed by a sigil and a word: the
// arguments, and the chain tail starting at that sigil.
func splitChain(rest []byte) (args, chain []byte) {
	inQ := false
	for i := 0; i+1 < len(rest); i++ {
		c := rest[i]
		switch {
		case inQ && c == '\\':
			i++
		case c == '"':
			inQ = !inQ
		case !inQ && c == '-' && rest[i+1] == '>' && (i == 0 || isBlank(rest[i-1])):
			k := skipBlank(rest, i+2)
			if k < len(rest) && rest[k] == '/' && wordEnd(rest, k+1) > k+1 {
				return rest[:i], bytes.TrimSpace(rest[k:])
			}
		}
	}
	return rest, nil
}

// fenceInArgs returns where a fence opens in an action line's arguments
// (a run of three or more backticks or tildes after whitespace), or -1. A
// backtick fence's info string holds no backtick, so only the last
// backtick run can open one.
func fenceInArgs(args []byte) int {
	if k := bytes.LastIndexByte(args, '`'); k >= 0 {
		for k > 0 && args[k-1] == '`' {
			k--
		}
		if k == 0 || isBlank(args[k-1]) {
			if _, _, ok := fenceAt(args, k); ok {
				return k
			}
		}
	}
	for from := 0; ; {
		k := bytes.Index(args[from:], []byte("~~~"))
		if k < 0 {
			return -1
		}
		k += from
		if k == 0 || isBlank(args[k-1]) {
			return k
		}
		for from = k; from < len(args) && args[from] == '~'; from++ {
		}
	}
}

// splitMarker removes a permission marker — the last whitespace-separated
// token when it is ".", "?", "!", "?ask" or "?word" — from args.
func (s *Scanner) splitMarker(args []byte) ([]byte, string) {
	t := bytes.TrimRight(args, " \t")
	k := bytes.LastIndexAny(t, " \t")
	tok := t[k+1:]
	if k < 0 || len(tok) == 0 { // glued to what precedes the arguments: content
		return args, ""
	}
	switch {
	case len(tok) == 1 && (tok[0] == '.' || tok[0] == '?' || tok[0] == '!'):
	case tok[0] == '?' && wordEnd(tok, 1) == len(tok):
	default:
		return args, ""
	}
	return t[:k+1], string(tok)
}

func (s *Scanner) validMarker(m string) bool {
	if len(m) <= 1 {
		return true
	}
	return s.flags[strings.ToLower(m[1:])]
}

// trailingQuoted returns the raw body of a double-quoted string that ends
// args, honouring \" and \\ escapes.
func trailingQuoted(args []byte) ([]byte, bool) {
	if len(args) < 2 || args[len(args)-1] != '"' {
		return nil, false
	}
	open := -1
	for i := 0; i < len(args); i++ {
		switch c := args[i]; {
		case open >= 0 && c == '\\':
			i++
		case c == '"' && open < 0:
			open = i
		case c == '"':
			if i == len(args)-1 {
				return args[open+1 : i], true
			}
			open = -1
		}
	}
	return nil, false
}

// unescape resolves \" and \\ in a quoted string's body.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// cleanText turns untrusted bytes into action text: invalid UTF-8 replaced,
// NFC-normalised (DIALECT.md §7).
func cleanText(b []byte) string {
	if !utf8.Valid(b) {
		b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
	}
	return norm.NFC.String(string(b))
}
