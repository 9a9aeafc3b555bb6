// Package memory carries out the verbs that read and change the runtime's
// own state: /recall (archival memory), /context (working memory) and
// /search (memory and logged conversations). Each is a verbs.Executor over
// a store.Store; the store is reached through a function so that it is
// opened only when an action first needs it.
//
// Every write records the agent that made it, keeps the block within its
// size limit (refused before anything is written), and labels the block
// with the tags and project written with it. Nothing is ever lost: a
// deletion, a patch or a restore is a new version, and /recall history
// and /recall restore reach every earlier one.
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
	// Limits bound the blocks' sizes.
	Limits Limits
}

// Execute implements verbs.Executor.
func (x Executor) Execute(ctx context.Context, c verbs.Call) (verbs.Output, error) {
	st, err := x.Store(ctx)
	if err != nil {
		return verbs.Output{}, err
	}
	m := mem{st: st, agent: c.Agent, limits: x.Limits}
	switch in := c.Intent.(type) {
	case intent.Recall:
		text, err := m.recall(ctx, in)
		return verbs.Output{Text: text}, err
	case intent.Context:
		text, err := m.context(ctx, in)
		return verbs.Output{Text: text}, err
	case intent.Search:
		return m.search(ctx, in)
	}
	return verbs.Output{}, codes.Errorf(codes.UnsupportedIntent, "/%s: memory does not carry out this intent", c.Verb)
}

// mem is memory in one store, changed on behalf of one agent.
type mem struct {
	st     store.Store
	agent  string
	limits Limits
}

// write applies one change, checking the result against the block's limit
// before anything is written.
func (m mem) write(ctx context.Context, c store.Change) (store.Block, error) {
	c.Agent = m.agent
	if edit := c.Edit; edit != nil {
		c.Edit = func(old string, exists bool) (string, error) {
			s, err := edit(old, exists)
			if err != nil {
				return "", err
			}
			return s, m.limits.check(c.Kind, c.Name, s)
		}
	}
	return m.st.Apply(ctx, c)
}

// recall carries out a recall intent on archival memory.
func (m mem) recall(ctx context.Context, in intent.Recall) (string, error) {
	switch in.Op {
	case intent.RecallRead:
		return m.read(ctx, store.Archival, in.Block, in.Version)
	case intent.RecallHistory:
		return m.history(ctx, store.Archival, in.Block)
	case intent.RecallRestore:
		return m.restore(ctx, store.Archival, in.Block, in.Version)
	case intent.RecallSearch:
		out, err := m.searchBlocks(ctx, store.Archival, in.Query, in.Filters, intent.TimeRange{})
		return out.Text, err
	case intent.RecallInsert:
		b, err := m.write(ctx, store.Change{Kind: store.Archival, Op: "create", Tags: in.Tags, Project: in.Project,
			Edit: func(string, bool) (string, error) { return in.Content, nil }})
		if err != nil {
			return "", err
		}
		return "saved as " + b.Name + labelText(b), nil
	case intent.RecallAppend:
		b, err := m.write(ctx, store.Change{Kind: store.Archival, Name: in.Block, Op: "append", Tags: in.Tags, Project: in.Project, Edit: appendEdit(in.Content)})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("appended to %s (now v%d)%s", b.Name, b.Version, labelText(b)), nil
	case intent.RecallDelete:
		b, err := m.write(ctx, store.Change{Kind: store.Archival, Name: in.Block, Op: "delete", Remove: true})
		if err != nil {
			return "", notFound(err, "there is no memory block %q", in.Block)
		}
		return fmt.Sprintf("deleted %s; its history is kept (/recall restore %s v%d brings it back)", in.Block, in.Block, b.Version-1), nil
	case intent.RecallPatch:
		return m.patchBlock(ctx, store.Archival, in.Block, in.Patch)
	}
	return "", fmt.Errorf("recall: unknown operation %q", in.Op)
}

// appendEdit adds content on a new line, creating the block if needed.
func appendEdit(content string) store.Edit {
	return func(old string, exists bool) (string, error) {
		if !exists || old == "" {
			return content, nil
		}
		return strings.TrimRight(old, "\n") + "\n" + content, nil
	}
}

// labelText writes a block's labels as a model writes them: " #a #b *p".
func labelText(b store.Block) string {
	var s strings.Builder
	for _, t := range b.Tags {
		s.WriteString(" #" + t)
	}
	if b.Project != "" {
		s.WriteString(" *" + b.Project)
	}
	return s.String()
}

// patchBlock applies a unified diff to a block in one transaction: a patch
// that does not apply safely changes nothing.
func (m mem) patchBlock(ctx context.Context, kind store.Kind, name, diff string) (string, error) {
	var rep *patch.Report
	b, err := m.write(ctx, store.Change{Kind: kind, Name: name, Op: "patch", Edit: func(old string, exists bool) (string, error) {
		if !exists {
			return "", fmt.Errorf("%w: there is no memory block %q to patch", store.ErrNotFound, name)
		}
		// Models get whitespace and context slightly wrong; context lines
		// are always checked against the stored text, and a hunk that fits
		// two places is refused, so this cannot change the wrong place.
		out, r, err := patch.ApplyContext(ctx, old, diff, patch.Options{Fuzz: patch.DefaultFuzz, IgnoreWhitespace: true})
		rep = r
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return "", err // the pipeline reports TIMEOUT or CANCELLED
		}
		if err != nil {
			return "", &codes.Error{Code: codes.PatchFailed, Msg: "the patch was not applied, the block is unchanged: " + err.Error(), Err: err}
		}
		return out, nil
	}})
	if err != nil {
		return "", notFound(err, "there is no memory block %q to patch", name)
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
	switch in.Op {
	case intent.ContextAppend:
		b, err := m.write(ctx, store.Change{Kind: store.Working, Name: in.Block, Op: "append", Edit: appendEdit(in.Content)})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("working memory %s updated (v%d)", b.Name, b.Version), nil
	case intent.ContextReplace:
		b, err := m.write(ctx, store.Change{Kind: store.Working, Name: in.Block, Op: "replace", Edit: func(old string, exists bool) (string, error) {
			if !exists {
				return "", fmt.Errorf("%w: no working block %q", store.ErrNotFound, in.Block)
			}
			switch n := strings.Count(old, in.Old); {
			case n == 0:
				return "", codes.Errorf(codes.NotFound, "%q is not in working memory %s; nothing changed (quote the text exactly as it is there)", in.Old, in.Block)
			case n > 1:
				return "", codes.Errorf(codes.AmbiguousArgs, "%q occurs %d times in %s — quote more of it", in.Old, n, in.Block)
			}
			return strings.Replace(old, in.Old, in.New, 1), nil
		}})
		if err != nil {
			return "", notFound(err, "there is no working memory block %q", in.Block)
		}
		return fmt.Sprintf("replaced in %s (v%d)", b.Name, b.Version), nil
	case intent.ContextArchive:
		b, err := store.Move(ctx, m.st, store.Working, in.Block, store.Archival, archiveName(in.Block, in.Label), false, m.agent)
		if err != nil {
			return "", notFound(err, "there is no working memory block %q", in.Block)
		}
		return fmt.Sprintf("archived %s as %s", in.Block, b.Name), nil
	case intent.ContextLoad:
		name := in.Block
		if name == "" {
			name = in.Label
		}
		if err := m.fits(ctx, in.Label, name); err != nil {
			return "", err
		}
		b, err := store.Move(ctx, m.st, store.Archival, in.Label, store.Working, name, true, m.agent)
		if err != nil {
			return "", notFound(err, "there is no memory block %q to load", in.Label)
		}
		return fmt.Sprintf("loaded %s into working memory (%d characters)", b.Name, chars(b.Content)), nil
	case intent.ContextSwap:
		if err := m.fits(ctx, in.Label, in.Block); err != nil {
			return "", err
		}
		if _, err := store.Move(ctx, m.st, store.Working, in.Block, store.Archival, archiveName(in.Block, ""), false, m.agent); err != nil && !errors.Is(err, store.ErrNotFound) {
			return "", err
		}
		b, err := store.Move(ctx, m.st, store.Archival, in.Label, store.Working, in.Block, true, m.agent)
		if err != nil {
			return "", notFound(err, "there is no memory block %q to swap in", in.Label)
		}
		return fmt.Sprintf("swapped %s for %s", b.Name, in.Label), nil
	}
	return "", fmt.Errorf("context: unknown operation %q", in.Op)
}

// fits checks that archival block label would fit working block name
// before it is loaded there.
func (m mem) fits(ctx context.Context, label, name string) error {
	src, err := m.st.Get(ctx, store.Archival, label)
	if err != nil {
		return nil // Move says what is missing
	}
	return m.limits.check(store.Working, name, src.Content)
}

func archiveName(block, label string) string {
	if label != "" {
		return label
	}
	return block + "-" + time.Now().UTC().Format("20060102-150405")
}

// notFound turns a store ErrNotFound into a NOT_FOUND failure saying msg;
// a failure that already has a code keeps it.
func notFound(err error, format string, a ...any) error {
	if codes.Of(err) != "" {
		return err
	}
	if errors.Is(err, store.ErrNotFound) {
		return codes.Wrap(codes.NotFound, err, format, a...)
	}
	return err
}
