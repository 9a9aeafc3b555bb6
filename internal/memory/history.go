package memory

import (
	"context"
	"errors"
	"fmt"

	"github.com/pattern-dialect/dialect/codes"
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
	head := fmt.Sprintf("%s v%d (%s by %s)", name, ver.Version, ver.Stamp(), ver.Author())
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
	return store.FormatHistory(name, vs, HistoryShown), nil
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
