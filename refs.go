package dialect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/failures"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/store"
	"github.com/pattern-dialect/dialect/verbs"
)

// parseDetail turns a parse failure into the failure log's typed detail.
func parseDetail(pe *verbs.ParseError, limit int) failures.Detail {
	switch pe.Code {
	case codes.MissingArg:
		return failures.MissingArgDetail{Verb: pe.Verb, Arg: strings.Join(pe.Expected, " | ")}
	case codes.MalformedSyntax:
		return failures.MalformedSyntaxDetail{Verb: pe.Verb, Issue: pe.Message, Column: pe.Pos}
	case codes.UnknownModifier:
		return failures.UnknownModifierDetail{Verb: pe.Verb, Modifier: pe.Suggestion, Valid: pe.Expected}
	case codes.AmbiguousArgs:
		return failures.AmbiguousArgsDetail{Verb: pe.Verb, Possibilities: pe.Candidates}
	case codes.AmbiguousVerb:
		return failures.AmbiguousVerbDetail{Options: pe.Candidates}
	case codes.InvalidReference:
		return failures.InvalidReferenceDetail{Reference: pe.Message}
	case codes.InputTooLarge:
		return failures.InputTooLargeDetail{Limit: limit}
	case codes.BannedKey:
		return failures.BannedKeyDetail{Key: pe.Suggestion}
	}
	return otherDetail(pe.Code, pe.Message)
}

func otherDetail(code codes.Code, msg string) failures.Detail {
	b, _ := json.Marshal(map[string]string{"message": msg})
	return failures.OtherDetail{C: code, JSON: b}
}

// resolveRefs substitutes the references an intent carries (@last,
// @last.output, @last.message) with what they name in the message's
// session. A reference that names nothing is INVALID_REFERENCE, never an
// empty string; @thread, @parent and @[uri] need a host that knows them.
func (rt *Runtime) resolveRefs(ctx context.Context, msg Message, it intent.Intent) (intent.Intent, error) {
	var refs []intent.Ref
	var content string
	switch in := it.(type) {
	case intent.Recall:
		refs, content = in.Refs, in.Content
	case intent.Context:
		refs, content = in.Refs, in.Content
	case intent.Send:
		refs, content = in.Refs, in.Content
	}
	if len(refs) == 0 {
		return it, nil
	}
	for _, ref := range refs {
		val, err := rt.refValue(ctx, msg, ref)
		if err != nil {
			return nil, err
		}
		content = strings.ReplaceAll(content, ref.Token, val)
	}
	switch in := it.(type) {
	case intent.Recall:
		in.Content = content
		return in, nil
	case intent.Context:
		in.Content = content
		return in, nil
	case intent.Send:
		in.Content = content
		return in, nil
	}
	return it, nil
}

func (rt *Runtime) refValue(ctx context.Context, msg Message, ref intent.Ref) (string, error) {
	bad := func(why string) error {
		return &verbs.ParseError{Code: codes.InvalidReference, Message: ref.Token + ": " + why}
	}
	st, err := rt.Store(ctx)
	if err != nil {
		return "", err
	}
	switch ref.Kind {
	case intent.RefLast, intent.RefLastOutput:
		o, err := st.LastOutput(ctx, msg.Session)
		if errors.Is(err, store.ErrNotFound) {
			return "", bad("no earlier action in this session")
		}
		return o.Output, err
	case intent.RefLastMessage:
		m, err := st.LastMessage(ctx, msg.Session, "")
		if errors.Is(err, store.ErrNotFound) {
			return "", bad("no earlier message in this session")
		}
		return m.Content, err
	}
	return "", bad(fmt.Sprintf("this host cannot resolve %s references", ref.Kind))
}
