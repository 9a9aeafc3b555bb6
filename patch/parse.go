package patch

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// maxLineNumber bounds the numbers of a hunk header; anything larger is a
// malformed header, not a very long text.
const maxLineNumber = 1 << 30

// Parse reads a unified or git-style diff of one text. It is lenient in the
// ways models are wrong and strict where leniency could change the wrong
// text:
//
//   - anything before the first header or hunk (prose, "diff --git",
//     "index" lines, a commit message) is skipped, and the ---/+++ headers
//     may be missing altogether;
//   - a header without usable numbers ("@@", "@@ ... @@") gives a hunk
//     with NoNumbers set, placed by content alone;
//   - when the header's counts disagree with the body, the body wins and
//     the hunk has Recounted set; a blank line inside a hunk is an empty
//     context line (editors strip the lone space);
//   - a diff saved with CRLF line ends is read as if it had LF ends;
//   - headers repeated before each hunk are fine when they name the same
//     file;
//   - a context line that lost its leading space is still a context line
//     when hunk lines follow it, in a hunk whose counts do not fit anyway;
//   - file headers or a ```diff fence followed by hunk lines with no @@
//     line at all give one hunk with NoNumbers.
//
// A diff with no hunk, or that touches a second file, is a *ParseError.
func Parse(diff string) (*Patch, error) {
	return parse(nil, diff)
}

// parse is Parse that gives up when ctx (unless nil) is done, looking at
// it every parseCheck lines.
func parse(ctx context.Context, diff string) (*Patch, error) {
	lines := splitDiff(diff)
	p := &Patch{}
	if n := strings.Count(diff, "\n@@"); n > 0 {
		p.Hunks = make([]Hunk, 0, n+1)
	}
	// Models repeat the headers of the same file before each hunk; only
	// headers that name another file start a second file.
	gitLine, headers := "", false
	check := parseCheck
	for i := 0; i < len(lines); {
		if ctx != nil && i >= check {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("patch not applied: stopped reading the diff: %w", err)
			}
			check = i + parseCheck
		}
		line := lines[i]
		switch {
		case strings.HasPrefix(line, "diff --git ") || strings.HasPrefix(line, "diff -"):
			same := line == gitLine || headers && line == "diff --git "+p.OldName+" "+p.NewName
			if !same && (gitLine != "" || len(p.Hunks) > 0) {
				return nil, secondFile(i)
			}
			gitLine = line
			i++
		case isFileHeader(lines, i):
			oldName, newName := headerName(lines[i][4:]), headerName(lines[i+1][4:])
			if headers && (oldName != p.OldName || newName != p.NewName) || !headers && len(p.Hunks) > 0 {
				return nil, secondFile(i)
			}
			headers = true
			p.OldName, p.NewName = oldName, newName
			i += 2
		case strings.HasPrefix(line, "@@"):
			h, next, err := parseHunk(lines, i)
			if err != nil {
				return nil, err
			}
			p.Hunks = append(p.Hunks, h)
			i = next
		default:
			i++ // preamble, or prose between hunks
		}
	}
	if len(p.Hunks) == 0 {
		h, ok := headerless(lines)
		if !ok {
			return nil, &ParseError{Msg: "no @@ hunk found", Kind: ErrNoHunks}
		}
		p.Hunks = append(p.Hunks, h)
	}
	return p, nil
}

func secondFile(i int) error {
	return &ParseError{Line: i + 1, Msg: "a second file starts here; a patch may change one text only", Kind: ErrMultipleFiles}
}

// parseCheck is how many lines of a diff are read between two looks at
// the context: about a millisecond's reading.
const parseCheck = 1 << 14

// splitDiff splits the diff into lines without their "\n". When every line
// ends in "\r" the diff was saved with CRLF ends and the "\r" is dropped
// too, as GNU patch does.
func splitDiff(diff string) []string {
	diff = strings.TrimSuffix(diff, "\n")
	if diff == "" {
		return nil
	}
	lines := strings.Split(diff, "\n")
	for _, l := range lines {
		if !strings.HasSuffix(l, "\r") {
			return lines
		}
	}
	for i, l := range lines {
		lines[i] = l[:len(l)-1]
	}
	return lines
}

// isFileHeader reports whether lines[i:] starts with a "--- "/"+++ " pair.
func isFileHeader(lines []string, i int) bool {
	return i+1 < len(lines) && strings.HasPrefix(lines[i], "--- ") && strings.HasPrefix(lines[i+1], "+++ ")
}

// headerName returns the file name of a ---/+++ header without the
// timestamp diff -u appends after a tab.
func headerName(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// isBody reports whether a line can belong to a hunk's body.
func isBody(l string) bool {
	return l == "" || l[0] == ' ' || l[0] == '-' || l[0] == '+' || l[0] == '\\'
}

// parseHunk reads the hunk whose @@ line is lines[at] and returns it with
// the index of the first line after it.
func parseHunk(lines []string, at int) (Hunk, int, error) {
	h := Hunk{Header: lines[at], Pos: at + 1}
	if strings.HasPrefix(lines[at], "@@@") {
		return h, 0, &ParseError{Line: at + 1, Msg: "combined diffs (@@@) are not supported", Kind: ErrMalformed}
	}
	ok, err := parseHeader(&h)
	if err != nil {
		return h, 0, &ParseError{Line: at + 1, Msg: err.Error(), Kind: ErrMalformed}
	}
	h.NoNumbers = !ok
	return readBody(lines, at+1, h, ok)
}

// readBody reads h's lines from lines[from] and returns h with the index
// of the first line after them. counted says whether h's counts can be
// trusted to find the end.
func readBody(lines []string, from int, h Hunk, counted bool) (Hunk, int, error) {
	end := -1
	if counted {
		greedy := bodyEnd(lines, from, false)
		if k, fits := countedEnd(lines, from, h.OldLines, h.NewLines); fits && ignorableTail(lines[min(k, greedy):greedy]) {
			end = k
		}
	}
	if end < 0 {
		end = bodyEnd(lines, from, true)
		for end > from && lines[end-1] == "" {
			end-- // blank lines after a hunk separate it; they are not context
		}
		h.Recounted = counted
	}

	h.Lines = make([]Line, 0, end-from)
	for _, l := range lines[from:end] {
		switch {
		case l == "":
			h.Lines = append(h.Lines, Line{Op: Context})
		case l[0] == '\\':
			if n := len(h.Lines); n > 0 {
				h.Lines[n-1].NoEOL = true
			}
		case l[0] == ' ' || l[0] == '-' || l[0] == '+':
			h.Lines = append(h.Lines, Line{Op: Op(l[0]), Text: l[1:]})
		default: // a context line whose leading space was lost
			h.Lines = append(h.Lines, Line{Op: Context, Text: l})
		}
	}
	if len(h.Lines) == 0 {
		return h, 0, &ParseError{Line: h.Pos, Msg: "hunk has no lines", Kind: ErrMalformed}
	}
	if h.Recounted || h.NoNumbers {
		oldLines, newLines := 0, 0
		for _, l := range h.Lines {
			if l.old() {
				oldLines++
			}
			if l.new() {
				newLines++
			}
		}
		if h.Recounted {
			// A start names the first line of a non-empty side but the line
			// before an empty one: keep it pointing at the same place.
			h.OldStart = restart(h.OldStart, h.OldLines, oldLines)
			h.NewStart = restart(h.NewStart, h.NewLines, newLines)
		}
		h.OldLines, h.NewLines = oldLines, newLines
	}
	return h, end, nil
}

// bodyEnd returns the index after the run of hunk lines that starts at
// lines[from], stopping before the next @@ line or file header. With loose,
// lines without a prefix count as context lines when a line with a prefix
// follows them before anything that ends a hunk: models drop the space of
// context lines. A run of them at the end is prose, not context.
func bodyEnd(lines []string, from int, loose bool) int {
	i := from
	for i < len(lines) && !isFileHeader(lines, i) {
		if isBody(lines[i]) {
			i++
			continue
		}
		if !loose || endsHunk(lines[i]) {
			break
		}
		r := i
		for r < len(lines) && !isBody(lines[r]) && !endsHunk(lines[r]) {
			r++
		}
		if r == len(lines) || lines[r] == "" || isFileHeader(lines, r) || !isBody(lines[r]) {
			break
		}
		i = r
	}
	return i
}

// endsHunk reports whether a line without a hunk prefix ends a hunk rather
// than being a context line that lost its space.
func endsHunk(l string) bool {
	for _, p := range []string{"@@", "```", "~~~", "diff ", "index "} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// headerless reads a diff that has file headers or a ```diff fence but no
// @@ line: the lines after them are one hunk without numbers, placed by
// content alone. It returns false when there is no such hunk.
func headerless(lines []string) (Hunk, bool) {
	for i, l := range lines {
		from := -1
		switch {
		case isFileHeader(lines, i):
			from = i + 2
		case strings.HasPrefix(l, "```diff") || strings.HasPrefix(l, "```patch"):
			from = i + 1
		default:
			continue
		}
		end := bodyEnd(lines, from, true)
		changes := false
		for _, b := range lines[from:end] {
			changes = changes || b != "" && (b[0] == '+' || b[0] == '-')
		}
		if !changes {
			continue
		}
		h, _, err := readBody(lines, from, Hunk{Pos: from + 1, NoNumbers: true}, false)
		return h, err == nil
	}
	return Hunk{}, false
}

// restart moves start when a side's count changes between empty and not.
func restart(start, was, is int) int {
	switch {
	case was == 0 && is > 0:
		return start + 1
	case was > 0 && is == 0:
		return max(start-1, 0)
	}
	return start
}

// countedEnd reads a hunk body from lines[from] as the header's counts say
// and returns the index after it, and whether the body had exactly the
// lines the counts ask for.
func countedEnd(lines []string, from, oldLines, newLines int) (int, bool) {
	k, o, n := from, 0, 0
	for k < len(lines) && (o < oldLines || n < newLines) {
		l := lines[k]
		if !isBody(l) {
			break
		}
		op := byte(' ')
		if l != "" {
			op = l[0]
		}
		switch op {
		case ' ':
			if o >= oldLines || n >= newLines {
				return k, false
			}
			o++
			n++
		case '-':
			if o >= oldLines {
				return k, false
			}
			o++
		case '+':
			if n >= newLines {
				return k, false
			}
			n++
		}
		k++
	}
	for k < len(lines) && strings.HasPrefix(lines[k], "\\") {
		k++
	}
	return k, o == oldLines && n == newLines
}

// ignorableTail reports whether the body-like lines after a well-counted
// hunk are only blank lines and git format-patch's "-- " signature line.
func ignorableTail(tail []string) bool {
	for _, l := range tail {
		if l != "" && l != "-- " {
			return false
		}
	}
	return true
}

// parseHeader reads "@@ -a[,b] +c[,d] @@ section" into h. It returns false
// (and no error) when the header has no usable numbers, and an error when
// the numbers are present but impossible.
func parseHeader(h *Hunk) (bool, error) {
	s := strings.TrimPrefix(h.Header, "@@")
	s = strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(s, "-") {
		return false, nil
	}
	oldStart, oldLines, rest, ok := parseRange(s[1:])
	if !ok {
		return false, nil
	}
	rest = strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(rest, "+") {
		return false, nil
	}
	newStart, newLines, rest, ok := parseRange(rest[1:])
	if !ok {
		return false, nil
	}
	rest = strings.TrimLeft(rest, " \t")
	rest = strings.TrimPrefix(rest, "@@")
	h.Section = strings.TrimSpace(rest)
	for _, n := range []int{oldStart, oldLines, newStart, newLines} {
		if n > maxLineNumber {
			return false, fmt.Errorf("line number %d in %q is too large", n, h.Header)
		}
	}
	if oldStart == 0 && oldLines > 0 || newStart == 0 && newLines > 0 {
		return false, nil // impossible numbers are as good as none
	}
	h.OldStart, h.OldLines, h.NewStart, h.NewLines = oldStart, oldLines, newStart, newLines
	return true, nil
}

// parseRange reads "start[,count]" and returns the rest of s.
func parseRange(s string) (start, count int, rest string, ok bool) {
	start, s, ok = parseNumber(s)
	if !ok {
		return 0, 0, "", false
	}
	count = 1
	if strings.HasPrefix(s, ",") {
		count, s, ok = parseNumber(s[1:])
		if !ok {
			return 0, 0, "", false
		}
	}
	return start, count, s, true
}

// parseNumber reads leading decimal digits; numbers too large for an int
// saturate so the caller reports them.
func parseNumber(s string) (int, string, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, s, false
	}
	n, err := strconv.Atoi(s[:i])
	if err != nil {
		n = maxLineNumber + 1
	}
	return n, s[i:], true
}
