package dialect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/failures"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/store"
	"github.com/pattern-dialect/dialect/verbs"
)

// parseDetail turns a parse failure into the failure log's typed detail,
// whose subject is what the model wrote (ParseError.Token), not the
// suggestion or the sentence written back.
func parseDetail(pe *verbs.ParseError, limit int) failures.Detail {
	switch pe.Code {
	case codes.MissingArg:
		arg := strings.Join(pe.Expected, " | ")
		if arg == "" {
			arg = needs(pe.Message)
		}
		return failures.MissingArgDetail{Verb: pe.Verb, Arg: arg}
	case codes.MalformedSyntax:
		issue := shortIssue(pe.Message)
		if pe.Token != "" {
			issue = "unexpected " + strconv.Quote(pe.Token)
		}
		return failures.MalformedSyntaxDetail{Verb: pe.Verb, Issue: issue, Column: pe.Pos}
	case codes.UnknownModifier:
		d := failures.UnknownModifierDetail{Verb: pe.Verb, Modifier: cmpOr(pe.Token, pe.Suggestion)}
		if pe.Suggestion != "" {
			d.Valid = []string{pe.Suggestion}
		}
		return d
	case codes.AmbiguousArgs:
		return failures.AmbiguousArgsDetail{Verb: pe.Verb, Args: pe.Token, Possibilities: pe.Candidates}
	case codes.AmbiguousVerb:
		return failures.AmbiguousVerbDetail{Options: pe.Candidates}
	case codes.InvalidReference:
		d := failures.InvalidReferenceDetail{Reference: cmpOr(pe.Token, pe.Message)}
		if pe.Suggestion != "" {
			d.Available = []string{pe.Suggestion}
		}
		return d
	case codes.InputTooLarge:
		return failures.InputTooLargeDetail{Limit: limit}
	case codes.BannedKey:
		return failures.BannedKeyDetail{Key: pe.Suggestion}
	}
	return otherDetail(pe.Code, pe.Message)
}

// shortIssue is a failure sentence without what varies between
// occurrences of the same mistake: columns, and the usage appended.
func shortIssue(msg string) string {
	msg, _, _ = strings.Cut(msg, " Usage: ")
	return strings.TrimSpace(columnRe.ReplaceAllString(msg, ""))
}

var columnRe = regexp.MustCompile(` ?(at )?column \d+,?`)

// needs is what a MISSING_ARG sentence says is missing: "a URL" of "/fetch
// needs a URL.", or the sentence without its details when it says no
// such thing.
func needs(msg string) string {
	if m := needsRe.FindStringSubmatch(msg); m != nil {
		return strings.TrimSpace(m[1])
	}
	return shortIssue(msg)
}

var needsRe = regexp.MustCompile(`needs (?:more: expected )?([^:.(]+)`)

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// execDetail is the failure log's detail of a model code an executor
// reported: its subject is what the executor names (the unit, the format),
// else the argument the model wrote.
func execDetail(ce *codes.Error, c *verbs.Call) failures.Detail {
	subject := ce.Subject
	verb := ""
	if c != nil {
		verb = c.Verb
		if subject == "" {
			subject = store.Excerpt(c.Args, 60)
		}
	}
	switch ce.Code {
	case codes.UnknownModifier:
		return failures.UnknownModifierDetail{Verb: verb, Modifier: subject}
	case codes.MissingArg:
		return failures.MissingArgDetail{Verb: verb, Arg: cmpOr(ce.Subject, needs(ce.Msg))}
	case codes.MalformedSyntax:
		return failures.MalformedSyntaxDetail{Verb: verb, Issue: cmpOr(subject, shortIssue(ce.Msg))}
	case codes.InputTooLarge:
		return failures.InputTooLargeDetail{}
	}
	return otherDetail(ce.Code, ce.Msg)
}

func otherDetail(code codes.Code, msg string) failures.Detail {
	b, _ := json.Marshal(map[string]string{"message": msg})
	return failures.OtherDetail{C: code, JSON: b}
}

// resolveRefs substitutes the references an intent carries (@last,
// @last.output, @last.message) with what they name in the message's
// session, in every text of the intent: a search's terms as much as a
// message's content. A reference that names nothing is INVALID_REFERENCE,
// never an empty string or the reference's own text; @thread, @parent and
// @[uri] need a host that knows them.
func (rt *Runtime) resolveRefs(ctx context.Context, msg Message, it intent.Intent) (intent.Intent, error) {
	if cu, ok := it.(intent.Custom); ok && cu.Inner != nil {
		inner, err := rt.resolveRefs(ctx, msg, cu.Inner)
		cu.Inner = inner
		return cu, err
	}
	refs := intentRefs(it)
	if len(refs) == 0 {
		return it, nil
	}
	vals := make([]string, 0, 2*len(refs))
	for _, ref := range refs {
		val, err := rt.refValue(ctx, msg, ref)
		if err != nil {
			return nil, err
		}
		vals = append(vals, ref.Token, val)
	}
	sub := strings.NewReplacer(vals...).Replace
	switch in := it.(type) {
	case intent.Recall:
		in.Block, in.Query, in.Content = sub(in.Block), sub(in.Query), sub(in.Content)
		return in, nil
	case intent.Context:
		in.Block, in.Content, in.Old, in.New, in.Label = sub(in.Block), sub(in.Content), sub(in.Old), sub(in.New), sub(in.Label)
		return in, nil
	case intent.Search:
		in.Terms = sub(in.Terms)
		return in, nil
	case intent.Send:
		in.Content = sub(in.Content)
		return in, nil
	case intent.Fetch:
		in.URL = strings.TrimSpace(sub(in.URL))
		return in, nil
	case intent.Web:
		in.Query = sub(in.Query)
		return in, nil
	case intent.Calc:
		in.Expr = sub(in.Expr)
		return in, nil
	}
	return it, nil
}

// intentRefs are the references an intent lists.
func intentRefs(it intent.Intent) []intent.Ref {
	switch in := it.(type) {
	case intent.Recall:
		return in.Refs
	case intent.Context:
		return in.Refs
	case intent.Search:
		return in.Refs
	case intent.Send:
		return in.Refs
	case intent.Fetch:
		return in.Refs
	case intent.Web:
		return in.Refs
	case intent.Calc:
		return in.Refs
	}
	return nil
}

// Refs are the references this runtime resolves: the previous action's
// output always, the previous message when messages are logged.
func (rt *Runtime) Refs() []intent.RefKind {
	refs := []intent.RefKind{intent.RefLast, intent.RefLastOutput}
	if rt.cfg.Store.LogMessages {
		refs = append(refs, intent.RefLastMessage)
	}
	return refs
}

func (rt *Runtime) refValue(ctx context.Context, msg Message, ref intent.Ref) (string, error) {
	bad := func(why string) error {
		return &verbs.ParseError{Code: codes.InvalidReference, Message: ref.Token + ": " + why, Token: ref.Token}
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
