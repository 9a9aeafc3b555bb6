package store

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/pattern-dialect/dialect/patch"
)

// FormatHistory writes a block's versions for a model or a person: one line
// each with its number, time, author, operation, size and what changed.
// At most shown versions are listed (the latest); 0 lists all.
func FormatHistory(name string, vs []Version, shown int) string {
	var b strings.Builder
	state := "current v" + fmt.Sprint(vs[len(vs)-1].Version)
	if vs[len(vs)-1].Deleted() {
		state = "deleted"
	}
	fmt.Fprintf(&b, "%s: %d versions (%s)", name, len(vs), state)
	from := 0
	if shown > 0 && len(vs) > shown {
		from = len(vs) - shown
		fmt.Fprintf(&b, "\n(%d earlier versions not shown; /recall read %s v1 reads the first)", from, name)
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for i := from; i < len(vs); i++ {
		prev := ""
		if i > 0 {
			prev = vs[i-1].Content
		}
		v := vs[i]
		fmt.Fprintf(tw, "v%d\t%s\t%s\t%s\t%d chars\t%s\n", v.Version, v.Stamp(), v.Author(), v.Op, utf8.RuneCountInString(v.Content), Summary(prev, v, i == 0))
	}
	tw.Flush()
	return strings.TrimSuffix(b.String(), "\n")
}

// Summary says in one line what version v changed after content prev:
// lines added and removed, and the first of them, clipped.
func Summary(prev string, v Version, first bool) string {
	switch {
	case v.Deleted():
		return "deleted"
	case first:
		return "new: " + clipLine(v.Content)
	case prev == v.Content:
		return "no change to the text"
	}
	var added, removed []string
	// Compared line by line, each ending in a newline: text appended to
	// a last line without one changes nothing before it.
	for _, h := range patch.Diff(withEOL(prev), withEOL(v.Content), 0).Hunks {
		for _, l := range h.Lines {
			switch l.Op {
			case patch.Insert:
				added = append(added, l.Text)
			case patch.Delete:
				removed = append(removed, l.Text)
			}
		}
	}
	out := fmt.Sprintf("+%d -%d lines", len(added), len(removed))
	switch {
	case len(added) > 0:
		out += ": + " + clipLine(added[0])
	case len(removed) > 0:
		out += ": - " + clipLine(removed[0])
	}
	return out
}

func withEOL(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// clipLine quotes the start of text's first line, at most 50 characters.
func clipLine(text string) string {
	line, _, more := strings.Cut(strings.TrimSpace(text), "\n")
	line = Excerpt(line, 50)
	if more && !strings.HasSuffix(line, "…") {
		line += " …"
	}
	return fmt.Sprintf("%q", line)
}

// Stamp is the version's time as history lists it: to the minute, UTC.
func (v Version) Stamp() string { return v.At.UTC().Format("2006-01-02 15:04") }

// Author is who made the version, "-" when nobody was named.
func (v Version) Author() string {
	if v.Agent == "" {
		return "-"
	}
	return v.Agent
}
