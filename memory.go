package dialect

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/internal/store"
	"github.com/pattern-dialect/dialect/patch"
)

// blockLookup answers the parser's question "is there a block of that
// name?" from archival memory.
type blockLookup struct{ st *store.Store }

// HasBlock implements verbs.Blocks.
func (b blockLookup) HasBlock(ctx context.Context, name string) (bool, error) {
	_, err := b.st.Get(ctx, store.Archival, name)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// MatchBlocks implements verbs.BlockMatcher: the archival blocks whose
// name contains name as a whole word-part (notes → project_notes).
func (b blockLookup) MatchBlocks(ctx context.Context, name string) ([]string, error) {
	names, err := b.st.Names(ctx, store.Archival)
	if err != nil {
		return nil, err
	}
	var out []string
	low := strings.ToLower(name)
	for _, n := range names {
		for _, part := range strings.FieldsFunc(strings.ToLower(n), func(r rune) bool { return r == '_' || r == '-' || r == ' ' }) {
			if part == low {
				out = append(out, n)
				break
			}
		}
	}
	return out, nil
}

// execRecall carries out a recall intent on archival memory.
func (rt *Runtime) execRecall(ctx context.Context, in intent.Recall) (string, error) {
	st := rt.store
	switch in.Op {
	case intent.RecallRead:
		b, err := st.Get(ctx, store.Archival, in.Block)
		if err != nil {
			return "", notFound(err, "there is no memory block %q", in.Block)
		}
		return fmt.Sprintf("%s (v%d):\n%s", b.Name, b.Version, b.Content), nil
	case intent.RecallSearch:
		return rt.searchBlocks(ctx, store.Archival, in.Query, in.Filters)
	case intent.RecallInsert:
		b, err := st.Insert(ctx, store.Archival, in.Content)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("saved as %s", b.Name), nil
	case intent.RecallAppend:
		b, err := st.Append(ctx, store.Archival, in.Block, in.Content)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("appended to %s (now v%d)", b.Name, b.Version), nil
	case intent.RecallDelete:
		if err := st.Delete(ctx, store.Archival, in.Block); err != nil {
			return "", notFound(err, "there is no memory block %q", in.Block)
		}
		return fmt.Sprintf("deleted %s (its history is kept)", in.Block), nil
	case intent.RecallPatch:
		return rt.patchBlock(ctx, store.Archival, in.Block, in.Patch)
	}
	return "", fmt.Errorf("recall: unknown operation %q", in.Op)
}

// patchBlock applies a unified diff to a block in one transaction: a patch
// that does not apply safely changes nothing.
func (rt *Runtime) patchBlock(ctx context.Context, kind store.Kind, name, diff string) (string, error) {
	var rep *patch.Report
	b, err := rt.store.Update(ctx, kind, name, "patch", func(old string, exists bool) (string, error) {
		if !exists {
			return "", fmt.Errorf("%w: there is no memory block %q to patch", store.ErrNotFound, name)
		}
		// Models get whitespace and context slightly wrong; context lines
		// are always checked against the stored text, and a hunk that fits
		// two places is refused, so this cannot change the wrong place.
		out, r, err := patch.ApplyWith(old, diff, patch.Options{Fuzz: patch.DefaultFuzz, IgnoreWhitespace: true})
		rep = r
		return out, err
	})
	if err != nil {
		return "", &ActionError{Code: "PATCH_FAILED", Msg: "the patch was not applied, the block is unchanged: " + err.Error(), Err: err}
	}
	msg := fmt.Sprintf("patched %s (now v%d)", b.Name, b.Version)
	if rep != nil && !rep.Strict {
		var b strings.Builder
		b.WriteString(msg + " — applied carefully:")
		for _, h := range rep.Hunks {
			fmt.Fprintf(&b, " hunk %d at line %d (offset %+d, fuzz %d)", h.Hunk, h.Line, h.Offset, h.Fuzz)
		}
		msg = b.String()
	}
	return msg, nil
}

// execContext carries out a context intent on working memory.
func (rt *Runtime) execContext(ctx context.Context, in intent.Context) (string, error) {
	st := rt.store
	switch in.Op {
	case intent.ContextAppend:
		b, err := st.Append(ctx, store.Working, in.Block, in.Content)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("working memory %s updated (v%d)", b.Name, b.Version), nil
	case intent.ContextReplace:
		var found bool
		b, err := st.Update(ctx, store.Working, in.Block, "replace", func(old string, exists bool) (string, error) {
			if !exists {
				return "", fmt.Errorf("%w: no working block %q", store.ErrNotFound, in.Block)
			}
			if found = strings.Contains(old, in.Old); !found {
				return "", errNoChange
			}
			if n := strings.Count(old, in.Old); n > 1 {
				return "", &ActionError{Code: "AMBIGUOUS_ARGS", Msg: fmt.Sprintf("%q occurs %d times in %s — quote more of it", in.Old, n, in.Block)}
			}
			return strings.Replace(old, in.Old, in.New, 1), nil
		})
		switch {
		case errors.Is(err, errNoChange):
			return "", &ActionError{Code: "MISSING_ARG", Msg: fmt.Sprintf("%q is not in working memory %s; nothing changed", in.Old, in.Block)}
		case err != nil:
			return "", notFound(err, "there is no working memory block %q", in.Block)
		}
		return fmt.Sprintf("replaced in %s (v%d)", b.Name, b.Version), nil
	case intent.ContextArchive:
		b, err := st.Move(ctx, store.Working, in.Block, store.Archival, archiveName(in.Block, in.Label), false)
		if err != nil {
			return "", notFound(err, "there is no working memory block %q", in.Block)
		}
		return fmt.Sprintf("archived %s as %s", in.Block, b.Name), nil
	case intent.ContextLoad:
		name := in.Block
		if name == "" {
			name = in.Label
		}
		b, err := st.Move(ctx, store.Archival, in.Label, store.Working, name, true)
		if err != nil {
			return "", notFound(err, "there is no memory block %q to load", in.Label)
		}
		return fmt.Sprintf("loaded %s into working memory (%d bytes)", b.Name, len(b.Content)), nil
	case intent.ContextSwap:
		if _, err := st.Move(ctx, store.Working, in.Block, store.Archival, archiveName(in.Block, ""), false); err != nil && !errors.Is(err, store.ErrNotFound) {
			return "", err
		}
		b, err := st.Move(ctx, store.Archival, in.Label, store.Working, in.Block, true)
		if err != nil {
			return "", notFound(err, "there is no memory block %q to swap in", in.Label)
		}
		return fmt.Sprintf("swapped %s for %s", b.Name, in.Label), nil
	}
	return "", fmt.Errorf("context: unknown operation %q", in.Op)
}

var errNoChange = errors.New("no change")

func archiveName(block, label string) string {
	if label != "" {
		return label
	}
	return block + "-" + time.Now().UTC().Format("20060102-150405")
}

// execSearch searches archival memory and logged conversations.
func (rt *Runtime) execSearch(ctx context.Context, in intent.Search) (string, error) {
	domains := map[string]bool{}
	for _, d := range in.Domains {
		domains[d] = true
	}
	all := len(domains) == 0 || domains["all"]
	var parts []string
	if all || domains[intent.DomainArchival] {
		s, err := rt.searchBlocks(ctx, "", in.Terms, in.Filters, in.Time)
		if err != nil {
			return "", err
		}
		parts = append(parts, "memory: "+s)
	}
	if all || domains[intent.DomainConversations] {
		q := store.MessageQuery{Role: in.Role, Limit: in.Filters.Limit}
		now := time.Now()
		if !in.Filters.Since.IsZero() {
			q.Since = in.Filters.Since.From(now)
		}
		if in.Time.NewerThan > 0 {
			q.Since = now.Add(-in.Time.NewerThan)
		}
		if in.Time.OlderThan > 0 {
			q.Before = now.Add(-in.Time.OlderThan)
		}
		hits, err := rt.store.SearchMessages(ctx, in.Terms, q)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "conversations: %d found", len(hits))
		for _, h := range hits {
			fmt.Fprintf(&b, "\n- %s %s (%s): %s", h.At.UTC().Format("2006-01-02"), h.Role, h.Session, h.Snippet)
		}
		parts = append(parts, b.String())
	}
	if domains[intent.DomainConstellation] && !all {
		parts = append(parts, "constellation: no constellation is configured")
	}
	return strings.Join(parts, "\n"), nil
}

// searchBlocks runs a block search and formats the hits.
func (rt *Runtime) searchBlocks(ctx context.Context, kind store.Kind, query string, f intent.Filters, tr ...intent.TimeRange) (string, error) {
	o := store.SearchOptions{Limit: f.Limit}
	now := time.Now()
	if !f.Since.IsZero() {
		o.Since = f.Since.From(now)
	}
	for _, r := range tr {
		if r.NewerThan > 0 {
			o.Since = now.Add(-r.NewerThan)
		}
		if r.OlderThan > 0 {
			o.Before = now.Add(-r.OlderThan)
		}
	}
	hits, err := rt.store.Search(ctx, kind, query, o)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d found", len(hits))
	for _, h := range hits {
		fmt.Fprintf(&b, "\n- %s: %s", h.Name, h.Snippet)
	}
	return b.String(), nil
}

// notFound turns a store ErrNotFound into an ActionError with msg.
func notFound(err error, format string, a ...any) error {
	if errors.Is(err, store.ErrNotFound) {
		return &ActionError{Code: "NOT_FOUND", Msg: fmt.Sprintf(format, a...), Err: err}
	}
	return err
}
