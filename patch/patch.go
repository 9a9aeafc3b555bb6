package patch

import (
	"strconv"
	"strings"
)

// Op is the role of one line of a hunk.
type Op byte

// The three roles, spelled as the first character of the line in a diff.
const (
	Context Op = ' '
	Delete  Op = '-'
	Insert  Op = '+'
)

// Line is one line of a hunk.
type Line struct {
	Op   Op
	Text string // the line without its "\n" (a "\r" before it is kept)
	// NoEOL is set when "\ No newline at end of file" followed the line:
	// the line is the last of its text and has no "\n".
	NoEOL bool
}

// old reports whether the line belongs to the text before the change.
func (l Line) old() bool { return l.Op != Insert }

// new reports whether the line belongs to the text after the change.
func (l Line) new() bool { return l.Op != Delete }

// raw returns the line as it appears in a text, terminator included.
func (l Line) raw() string {
	if l.NoEOL {
		return l.Text
	}
	return l.Text + "\n"
}

// Hunk is one @@ section of a diff.
type Hunk struct {
	// OldStart and NewStart are the 1-based lines the header names; for an
	// empty side they name the line after which the change goes. OldLines
	// and NewLines are the line counts, always those of Lines (see
	// Recounted).
	OldStart, OldLines int
	NewStart, NewLines int
	Section            string // text after the closing @@, often a function name
	Lines              []Line

	Header string // the @@ line as written
	Pos    int    // 1-based line of the @@ line in the diff text
	// NoNumbers is set when the header carries no usable line numbers
	// ("@@" alone, or "@@ ... @@"); such a hunk is placed by content only.
	NoNumbers bool
	// Recounted is set when the header's counts disagreed with the body
	// and the counts were taken from the body.
	Recounted bool
}

// Patch is a parsed diff of one text.
type Patch struct {
	OldName, NewName string // from the ---/+++ headers, "" when absent
	Hunks            []Hunk
}

// prefixContext returns the number of context lines before the first change.
func (h *Hunk) prefixContext() int {
	n := 0
	for _, l := range h.Lines {
		if l.Op != Context {
			break
		}
		n++
	}
	return n
}

// suffixContext returns the number of context lines after the last change.
func (h *Hunk) suffixContext() int {
	n := 0
	for i := len(h.Lines) - 1; i >= 0 && h.Lines[i].Op == Context; i-- {
		n++
	}
	return n
}

// String renders the patch as a unified diff that Parse reads back to the
// same hunks (headers are written only when a name is known; a patch
// without hunks renders as "").
func (p *Patch) String() string {
	if len(p.Hunks) == 0 {
		return ""
	}
	var b strings.Builder
	if p.OldName != "" || p.NewName != "" {
		b.WriteString("--- ")
		b.WriteString(orDevNull(p.OldName))
		b.WriteString("\n+++ ")
		b.WriteString(orDevNull(p.NewName))
		b.WriteString("\n")
	}
	for i := range p.Hunks {
		p.Hunks[i].format(&b)
	}
	return b.String()
}

func orDevNull(name string) string {
	if name == "" {
		return "/dev/null"
	}
	return name
}

// format writes the hunk with a header computed from its lines.
func (h *Hunk) format(b *strings.Builder) {
	b.WriteString("@@ -")
	writeRange(b, h.OldStart, h.OldLines)
	b.WriteString(" +")
	writeRange(b, h.NewStart, h.NewLines)
	b.WriteString(" @@")
	if h.Section != "" {
		b.WriteString(" ")
		b.WriteString(h.Section)
	}
	b.WriteString("\n")
	for _, l := range h.Lines {
		b.WriteByte(byte(l.Op))
		b.WriteString(l.Text)
		b.WriteString("\n")
		if l.NoEOL {
			b.WriteString("\\ No newline at end of file\n")
		}
	}
}

// writeRange writes "start,count", or "start" alone when count is 1, as
// diff -u does.
func writeRange(b *strings.Builder, start, count int) {
	b.WriteString(strconv.Itoa(start))
	if count != 1 {
		b.WriteString(",")
		b.WriteString(strconv.Itoa(count))
	}
}
