// Package memory carries out the verbs that read and change the runtime's
// own state: /recall (archival memory), /context (working memory) and
// /search (memory and logged conversations). Each is a verbs.Executor over
// a store.Store; the store is reached through a function so that it is
// opened only when an action first needs it.
package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/patch"
	"github.com/pattern-dialect/dialect/store"
	"github.com/pattern-dialect/dialect/verbs"
)

// Blocks answers the parser's question "is there a block of that name?"
// from archival memory (verbs.Blocks and verbs.BlockMatcher).
type Blocks struct {
	Store func(context.Context) (store.Store, error)
}

// HasBlock implements verbs.Blocks.
func (b Blocks) HasBlock(ctx context.Context, name string) (bool, error) {
	st, err := b.Store(ctx)
	if err != nil {
		return false, err
	}
	_, err = st.Get(ctx, store.Archival, name)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// MatchBlocks implements verbs.BlockMatcher: the archival blocks whose
// name contains name as a whole word-part (notes → project_notes).
func (b Blocks) MatchBlocks(ctx context.Context, name string) ([]string, error) {
	st, err := b.Store(ctx)
	if err != nil {
		return nil, err
	}
	names, err := st.Names(ctx, store.Archival)
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

// Executor carries out recall, context and search calls.
type Executor struct {
	// Store opens (once) and returns the store.
	Store func(context.Context) (store.Store, error)
}

// Execute implements verbs.Executor.
func (x Executor) Execute(ctx context.Context, c verbs.Call) (verbs.Output, error) {
	st, err := x.Store(ctx)
	if err != nil {
		return verbs.Output{}, err
	}
	m := mem{st}
	var text string
	switch in := c.Intent.(type) {
	case intent.Recall:
		text, err = m.recall(ctx, in)
	case intent.Context:
		text, err = m.context(ctx, in)
	case intent.Search:
		text, err = m.search(ctx, in)
	default:
		return verbs.Output{}, codes.Errorf(codes.UnsupportedIntent, "/%s: memory does not carry out this intent", c.Verb)
	}
	return verbs.Output{Text: text}, err
}

// mem is memory in one store.
type mem struct{ st store.Store }

// recall carries out a recall intent on archival memory.
func (m mem) recall(ctx context.Context, in intent.Recall) (string, error) {
	st := m.st
	switch in.Op {
	case intent.RecallRead:
		b, err := st.Get(ctx, store.Archival, in.Block)
		if err != nil {
			return "", notFound(err, "there is no memory block %q", in.Block)
		}
		return fmt.Sprintf("%s (v%d):\n%s", b.Name, b.Version, b.Content), nil
	case intent.RecallSearch:
		return m.searchBlocks(ctx, store.Archival, in.Query, in.Filters)
	case intent.RecallInsert:
		b, err := st.Insert(ctx, store.Archival, in.Content)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("saved as %s", b.Name), nil
	case intent.RecallAppend:
		b, err := store.Append(ctx, st, store.Archival, in.Block, in.Content)
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
		return m.patchBlock(ctx, store.Archival, in.Block, in.Patch)
	}
	return "", fmt.Errorf("recall: unknown operation %q", in.Op)
}

// patchBlock applies a unified diff to a block in one transaction: a patch
// that does not apply safely changes nothing.
func (m mem) patchBlock(ctx context.Context, kind store.Kind, name, diff string) (string, error) {
	var rep *patch.Report
	b, err := m.st.Update(ctx, kind, name, "patch", func(old string, exists bool) (string, error) {
		if !exists {
			return "", fmt.Errorf("%w: there is no memory block %q to patch", store.ErrNotFound, name)
		}
		// Models get whitespace and context slightly wrong; context lines
		// are always checked against the stored text, and a hunk that fits
		// two places is refused, so this cannot change the wrong place.
		out, r, err := patch.ApplyContext(ctx, old, diff, patch.Options{Fuzz: patch.DefaultFuzz, IgnoreWhitespace: true})
		rep = r
		return out, err
	})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return "", err // the pipeline reports TIMEOUT or CANCELLED
		}
		return "", &codes.Error{Code: codes.PatchFailed, Msg: "the patch was not applied, the block is unchanged: " + err.Error(), Err: err}
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

// context carries out a context intent on working memory.
func (m mem) context(ctx context.Context, in intent.Context) (string, error) {
	st := m.st
	switch in.Op {
	case intent.ContextAppend:
		b, err := store.Append(ctx, st, store.Working, in.Block, in.Content)
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
				return "", codes.Errorf(codes.AmbiguousArgs, "%q occurs %d times in %s — quote more of it", in.Old, n, in.Block)
			}
			return strings.Replace(old, in.Old, in.New, 1), nil
		})
		switch {
		case errors.Is(err, errNoChange):
			return "", codes.Errorf(codes.MissingArg, "%q is not in working memory %s; nothing changed", in.Old, in.Block)
		case err != nil:
			return "", notFound(err, "there is no working memory block %q", in.Block)
		}
		return fmt.Sprintf("replaced in %s (v%d)", b.Name, b.Version), nil
	case intent.ContextArchive:
		b, err := store.Move(ctx, st, store.Working, in.Block, store.Archival, archiveName(in.Block, in.Label), false)
		if err != nil {
			return "", notFound(err, "there is no working memory block %q", in.Block)
		}
		return fmt.Sprintf("archived %s as %s", in.Block, b.Name), nil
	case intent.ContextLoad:
		name := in.Block
		if name == "" {
			name = in.Label
		}
		b, err := store.Move(ctx, st, store.Archival, in.Label, store.Working, name, true)
		if err != nil {
			return "", notFound(err, "there is no memory block %q to load", in.Label)
		}
		return fmt.Sprintf("loaded %s into working memory (%d bytes)", b.Name, len(b.Content)), nil
	case intent.ContextSwap:
		if _, err := store.Move(ctx, st, store.Working, in.Block, store.Archival, archiveName(in.Block, ""), false); err != nil && !errors.Is(err, store.ErrNotFound) {
			return "", err
		}
		b, err := store.Move(ctx, st, store.Archival, in.Label, store.Working, in.Block, true)
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

// search searches archival memory and logged conversations.
func (m mem) search(ctx context.Context, in intent.Search) (string, error) {
	domains := map[string]bool{}
	for _, d := range in.Domains {
		domains[d] = true
	}
	all := len(domains) == 0 || domains["all"]
	var parts []string
	if all || domains[intent.DomainArchival] {
		s, err := m.searchBlocks(ctx, "", in.Terms, in.Filters, in.Time)
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
		hits, err := m.st.SearchMessages(ctx, in.Terms, q)
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
func (m mem) searchBlocks(ctx context.Context, kind store.Kind, query string, f intent.Filters, tr ...intent.TimeRange) (string, error) {
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
	hits, err := m.st.Search(ctx, kind, query, o)
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

// notFound turns a store ErrNotFound into a NOT_FOUND failure saying msg.
func notFound(err error, format string, a ...any) error {
	if errors.Is(err, store.ErrNotFound) {
		return codes.Wrap(codes.NotFound, err, format, a...)
	}
	return err
}
