package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/patch"
	"github.com/pattern-dialect/dialect/store"
)

// HistoryShown is how many versions /recall history lists: the latest
// ones, with a line saying how many earlier ones there are.
const HistoryShown = 20

// read reads a block as it is, or its version v.
func (m mem) read(ctx context.Context, kind store.Kind, name string, v int) (string, error) {
	if v == 0 {
		b, err := m.st.Get(ctx, kind, name)
		if err != nil {
			return "", m.missing(ctx, kind, name, err)
		}
		return fmt.Sprintf("%s (v%d%s):\n%s", b.Name, b.Version, labelText(b), b.Content), nil
	}
	ver, err := m.st.Version(ctx, kind, name, v)
	if err != nil {
		return "", m.missingVersion(ctx, kind, name, v, err)
	}
	head := fmt.Sprintf("%s v%d (%s by %s)", name, ver.Version, stamp(ver.At), who(ver.Agent))
	if ver.Deleted() {
		return head + " deleted the block; its last content was:\n" + ver.Content, nil
	}
	return head + ":\n" + ver.Content, nil
}

// history lists a block's versions, newest last.
func (m mem) history(ctx context.Context, kind store.Kind, name string) (string, error) {
	vs, err := m.st.History(ctx, kind, name)
	if err != nil {
		return "", err
	}
	if len(vs) == 0 {
		return "", m.missing(ctx, kind, name, store.ErrNotFound)
	}
	return FormatHistory(name, vs, HistoryShown), nil
}

// FormatHistory writes a block's versions for a model or a person: one line
// each with its number, time, author, operation, size and what changed.
// At most shown versions are listed (the latest); 0 lists all.
func FormatHistory(name string, vs []store.Version, shown int) string {
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
		fmt.Fprintf(tw, "v%d\t%s\t%s\t%s\t%d chars\t%s\n", v.Version, stamp(v.At), who(v.Agent), v.Op, chars(v.Content), Summary(prev, v, i == 0))
	}
	tw.Flush()
	return strings.TrimSuffix(b.String(), "\n")
}

// Summary says in one line what version v changed after content prev:
// lines added and removed, and the first of them, clipped.
func Summary(prev string, v store.Version, first bool) string {
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
	line = store.Excerpt(line, 50)
	if more && !strings.HasSuffix(line, "…") {
		line += " …"
	}
	return fmt.Sprintf("%q", line)
}

// restore makes a new version of a block equal to version v.
func (m mem) restore(ctx context.Context, kind store.Kind, name string, v int) (string, error) {
	b, err := store.Restore(ctx, m.st, kind, name, v, m.agent, func(content string) error {
		return m.limits.check(kind, name, content)
	})
	if err != nil {
		return "", m.missingVersion(ctx, kind, name, v, err)
	}
	kept := ""
	switch last := b.Version - 1; {
	case last == v+1:
		kept = fmt.Sprintf("; v%d stays in its history", last)
	case last > v+1:
		kept = fmt.Sprintf("; v%d to v%d stay in its history", v+1, last)
	}
	return fmt.Sprintf("restored %s to v%d as v%d%s", name, v, b.Version, kept), nil
}

// missing explains a block that is not there: deleted (and how to bring
// it back), or never written.
func (m mem) missing(ctx context.Context, kind store.Kind, name string, err error) error {
	if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	word := map[store.Kind]string{store.Archival: "memory", store.Working: "working memory"}[kind]
	if vs, herr := m.st.History(ctx, kind, name); herr == nil && len(vs) > 0 {
		last := vs[len(vs)-1]
		if last.Deleted() {
			return codes.Wrap(codes.NotFound, err, "%s block %q was deleted (v%d); /recall history %s lists its versions, /recall restore %s v%d brings it back",
				word, name, last.Version, name, name, last.Version-1)
		}
	}
	return codes.Wrap(codes.NotFound, err, "there is no %s block %q", word, name)
}

// missingVersion explains a version that is not there.
func (m mem) missingVersion(ctx context.Context, kind store.Kind, name string, v int, err error) error {
	if codes.Of(err) != "" || !errors.Is(err, store.ErrNotFound) {
		return err
	}
	vs, herr := m.st.History(ctx, kind, name)
	if herr != nil || len(vs) == 0 {
		return m.missing(ctx, kind, name, err)
	}
	return codes.Wrap(codes.NotFound, err, "%s has versions v%d to v%d, not v%d (/recall history %s lists them)",
		name, vs[0].Version, vs[len(vs)-1].Version, v, name)
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }

func who(agent string) string {
	if agent == "" {
		return "-"
	}
	return agent
}
