package detect

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// Byte-level helpers over one line of text (without its line ending).

// contentStart returns the offset after a line's prefix: indentation, quote
// markers "> ", and list bullets "- ", "* ", "+ ", "1. ", "1) ". A sigil at
// that offset starts a line action.
func contentStart(line []byte) int {
	i := skipBlank(line, 0)
	for i < len(line) {
		switch c := line[i]; {
		case c == '>':
			i = skipBlank(line, i+1)
		case (c == '-' || c == '*' || c == '+') && i+1 < len(line) && isBlank(line[i+1]):
			i = skipBlank(line, i+1)
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j+1 < len(line) && (line[j] == '.' || line[j] == ')') && isBlank(line[j+1]) {
				i = skipBlank(line, j+1)
				continue
			}
			return i
		default:
			return i
		}
	}
	return i
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// skipBlank returns the first offset at or after i that is not a space or tab.
func skipBlank(b []byte, i int) int {
	for i < len(b) && isBlank(b[i]) {
		i++
	}
	return i
}

// isBlankLine reports whether b holds only whitespace.
func isBlankLine(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v' {
			if c < utf8.RuneSelf {
				return false
			}
			return len(bytes.TrimFunc(b, unicode.IsSpace)) == 0
		}
	}
	return true
}

// fenceOpen reports whether line opens a fenced block (after any
// indentation: "indentation alone does not make code"): a run of at least
// three backticks or tildes; a backtick fence's info string holds no
// backtick (CommonMark).
func fenceOpen(line []byte) (ch byte, n int, ok bool) {
	i := skipBlank(line, 0)
	return fenceAt(line, i)
}

// fenceAt is fenceOpen for a fence starting exactly at i.
func fenceAt(line []byte, i int) (ch byte, n int, ok bool) {
	if i >= len(line) || (line[i] != '`' && line[i] != '~') {
		return 0, 0, false
	}
	ch = line[i]
	j := i
	for j < len(line) && line[j] == ch {
		j++
	}
	n = j - i
	if n < 3 {
		return 0, 0, false
	}
	if ch == '`' && bytes.IndexByte(line[j:], '`') >= 0 {
		return 0, 0, false
	}
	return ch, n, true
}

// fenceClose reports whether line closes a fence of n ch characters: the
// same character, at least as many, then only whitespace.
func fenceClose(line []byte, ch byte, n int) bool {
	i := skipBlank(line, 0)
	j := i
	for j < len(line) && line[j] == ch {
		j++
	}
	return j-i >= n && isBlankLine(line[j:])
}

// codeSpans appends to dst the [start, end) ranges of line's inline code
// spans: a backtick run closed by the next run of the same length. An
// unmatched run is literal text. Spans do not continue across lines. It
// runs in time linear in the line, using sc for scratch space.
func codeSpans(line []byte, dst [][2]int, sc *spanScratch) [][2]int {
	// The backtick runs of the line, and for each the next run of the
	// same length.
	sc.runs = sc.runs[:0]
	for i := bytes.IndexByte(line, '`'); i >= 0; {
		j := i
		for j < len(line) && line[j] == '`' {
			j++
		}
		sc.runs = append(sc.runs, [2]int{i, j})
		k := bytes.IndexByte(line[j:], '`')
		if k < 0 {
			break
		}
		i = j + k
	}
	if len(sc.runs) < 2 {
		return dst
	}
	sc.next = sc.next[:0]
	for range sc.runs {
		sc.next = append(sc.next, -1)
	}
	if sc.last == nil {
		sc.last = map[int]int{}
	}
	clear(sc.last)
	for r := len(sc.runs) - 1; r >= 0; r-- {
		n := sc.runs[r][1] - sc.runs[r][0]
		if m, ok := sc.last[n]; ok {
			sc.next[r] = m
		}
		sc.last[n] = r
	}
	for r := 0; r < len(sc.runs); {
		if m := sc.next[r]; m >= 0 {
			dst = append(dst, [2]int{sc.runs[r][0], sc.runs[m][1]})
			r = m + 1
		} else {
			r++ // a literal run
		}
	}
	return dst
}

// spanScratch is reusable memory for codeSpans.
type spanScratch struct {
	runs [][2]int    // backtick runs: [start, end)
	next []int       // index of the next run of the same length, or -1
	last map[int]int // run length → latest run index seen (scanning backwards)
}

// wordEnd returns the end of the verb word starting at b[i]: a letter, then
// letters, digits, marks, '_' or '-'. It returns i when b[i] does not start
// a word.
func wordEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	r, n := rune(b[i]), 1
	if r >= utf8.RuneSelf {
		r, n = utf8.DecodeRune(b[i:])
	}
	if !unicode.IsLetter(r) {
		return i
	}
	j := i + n
	for j < len(b) {
		c := b[j]
		if c < utf8.RuneSelf {
			if c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
				j++
				continue
			}
			return j
		}
		r, n := utf8.DecodeRune(b[j:])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) {
			return j
		}
		j += n
	}
	return j
}

// pathAfter reports whether the text after a verb word ending at b[j]
// makes it a path rather than a verb: "/", "." + letter, or ":" + digit.
func pathAfter(b []byte, j int) bool {
	if j >= len(b) {
		return false
	}
	switch b[j] {
	case '/':
		return true
	case '.':
		if j+1 < len(b) {
			r, _ := utf8.DecodeRune(b[j+1:])
			return unicode.IsLetter(r)
		}
	case ':':
		return j+1 < len(b) && b[j+1] >= '0' && b[j+1] <= '9'
	}
	return false
}

// boundaryBefore reports whether the byte(s) before b[i] make a token
// boundary for a sigil at i: whitespace or an opening bracket.
func boundaryBefore(b []byte, i int) bool {
	if i == 0 {
		return true
	}
	c := b[i-1]
	if c < utf8.RuneSelf {
		return c == ' ' || c == '\t' || c == '(' || c == '[' || c == '\f' || c == '\v'
	}
	r, _ := utf8.DecodeLastRune(b[:i])
	return unicode.IsSpace(r)
}

// countWords counts runs of non-whitespace bytes in b.
func countWords(b []byte) int {
	n := 0
	in := false
	for _, c := range b {
		sp := c == ' ' || c == '\t' || c == '\n' || c == '\r'
		if !sp && !in {
			n++
		}
		in = !sp
	}
	return n
}
