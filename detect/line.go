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

// spanScratch is reusable memory for walkInline.
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

// Containers (CommonMark block quotes and list items) around fenced code.

// box is one container a fenced code block was opened in: a block quote,
// or a list item whose content starts w columns in.
type box struct {
	quote bool
	w     int // a list item's content indentation, in columns
}

// skipCols skips spaces and tabs from b[i], which is at column col (tabs
// stop every four columns), and returns the offset and column reached.
func skipCols(b []byte, i, col int) (int, int) {
	for i < len(b) {
		switch b[i] {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return i, col
		}
		i++
	}
	return i, col
}

// listMarker returns the width of a list item marker at b[i] ("-", "*",
// "+", or up to nine digits and "." or ")") followed by a space or tab, or
// 0. With first set, an ordered marker must be "1." or "1)": the only one
// that may interrupt a paragraph.
func listMarker(b []byte, i int, first bool) int {
	if i >= len(b) {
		return 0
	}
	n := 0
	switch c := b[i]; {
	case c == '-' || c == '*' || c == '+':
		n = 1
	case c >= '0' && c <= '9':
		j := i
		for j < len(b) && j-i < 9 && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j >= len(b) || b[j] != '.' && b[j] != ')' || first && (j-i != 1 || c != '1') {
			return 0
		}
		n = j - i + 1
	default:
		return 0
	}
	if i+n < len(b) && isBlank(b[i+n]) {
		return n
	}
	return 0
}

// openFence reports whether line opens a fenced code block, after any
// containers (quote markers, list markers) and any indentation. It returns
// the containers (appended to dst[:0]), the fence character and length, and
// the fence's indentation in columns past the containers.
func openFence(line []byte, dst []box) (boxes []box, ch byte, n, ind int, ok bool) {
	boxes = dst[:0]
	i, col := 0, 0
	for {
		j, cj := skipCols(line, i, col)
		if j < len(line) && line[j] == '>' {
			boxes = append(boxes, box{quote: true})
			i, col = j+1, cj+1
			if i < len(line) && isBlank(line[i]) {
				i, col = i+1, col+1
			}
			continue
		}
		if m := listMarker(line, j, false); m > 0 {
			k, ck := skipCols(line, j+m, cj+m)
			if k == len(line) {
				break // an empty item holds no fence
			}
			sp := ck - (cj + m)
			if sp > 4 { // the content starts one column after the marker (and is indented)
				sp, k, ck = 1, j+m+1, cj+m+1
			}
			boxes = append(boxes, box{w: cj - col + m + sp})
			i, col = k, ck
			continue
		}
		break
	}
	j, cj := skipCols(line, i, col)
	ch, n, ok = fenceAt(line, j)
	return boxes, ch, n, cj - col, ok
}

// inBoxes reports whether line continues the containers boxes (a fenced
// block has no lazy continuation lines) and returns where the text inside
// them starts.
func inBoxes(line []byte, boxes []box) (int, bool) {
	i, col := 0, 0
	for k, b := range boxes {
		if b.quote {
			j, cj := skipCols(line, i, col)
			if cj-col > 3 || j >= len(line) || line[j] != '>' {
				return 0, false
			}
			i, col = j+1, cj+1
			if i < len(line) && isBlank(line[i]) {
				i, col = i+1, col+1
			}
			continue
		}
		if isBlankLine(line[i:]) {
			for _, rest := range boxes[k+1:] {
				if rest.quote {
					return 0, false // a blank line without ">" ends a quote
				}
			}
			return len(line), true
		}
		want := col + b.w
		for i < len(line) && col < want && isBlank(line[i]) {
			if line[i] == ' ' {
				col++
			} else {
				col += 4 - col%4
			}
			i++
		}
		if col < want {
			return 0, false
		}
	}
	return i, true
}

// paraEnd reports whether line certainly ends a paragraph it follows, as
// CommonMark reads it: a blank line (after any quote markers), or a fence
// opening after at most three columns of indentation, quote markers and at
// most one list marker that may interrupt a paragraph. Anything else may
// continue the paragraph, so an inline code span may still close on it.
func paraEnd(line []byte) bool {
	i := 0
	for {
		j, cj := skipCols(line, i, 0)
		if cj > 3 || j >= len(line) || line[j] != '>' {
			break
		}
		i = j + 1
	}
	if isBlankLine(line[i:]) {
		return true
	}
	j, cj := skipCols(line, i, 0)
	if cj > 3 {
		return false
	}
	if m := listMarker(line, j, true); m > 0 {
		k, ck := skipCols(line, j+m, 0)
		if ck > 4 {
			return false
		}
		j = k
	}
	_, _, ok := fenceAt(line, j)
	return ok
}

// fenceClosesAt reports whether body closes a fence of n ch characters
// opened with ind columns of indentation: the same character, at least as
// many, indented at most three columns more than the opener, then only
// whitespace.
func fenceClosesAt(body []byte, ch byte, n, ind int) bool {
	i, col := skipCols(body, 0, 0)
	if col > ind+3 {
		return false
	}
	j := i
	for j < len(body) && body[j] == ch {
		j++
	}
	return j-i >= n && isBlankLine(body[j:])
}
