package main

// The same agent loop twice: as a program had to write it with only the
// runtime (rt.Run) and a model call, and with package loop. compare_test.go
// runs both against the scripted model; docs/loop.md shows them side by
// side.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/loop"
)

// handWritten asks the model, runs the actions of its reply, writes what
// they did as the next user message and asks again, until a reply runs
// nothing or 8 turns. It returns the conversation.
func handWritten(ctx context.Context, rt *dialect.Runtime, m loop.Model, question string) ([]loop.Message, error) {
	var sys strings.Builder
	sys.WriteString("You are a careful assistant.\n\n")
	if err := rt.Instructions(ctx, &sys, ""); err != nil {
		return nil, err
	}
	msgs := []loop.Message{{Role: loop.User, Text: question}}
	for turn := 1; turn <= 8; turn++ {
		reply, err := m.Reply(ctx, loop.Request{System: sys.String(), Messages: msgs}, io.Discard)
		if err != nil {
			return msgs, err
		}
		msgs = append(msgs, loop.Message{Role: loop.Assistant, Text: reply.Text})
		results, err := rt.Run(ctx, dialect.Message{Text: reply.Text})
		if err != nil && !errors.Is(err, dialect.ErrHalted) {
			return msgs, err
		}
		var b strings.Builder
		for _, r := range results {
			out := strings.TrimRight(r.Output, "\n")
			switch r.Status {
			case dialect.StatusOK:
				fmt.Fprintf(&b, "\n/%s → ok\n  %s", r.Token, strings.ReplaceAll(out, "\n", "\n  "))
			case dialect.StatusError:
				fmt.Fprintf(&b, "\n/%s → error %s: %s", r.Token, r.Code, out)
			case dialect.StatusPending:
				fmt.Fprintf(&b, "\n/%s → pending #%d: %s. Do not write it again.", r.Token, r.Pending, out)
			case dialect.StatusDenied:
				fmt.Fprintf(&b, "\n/%s → denied: %s. Do not write it again.", r.Token, out)
			}
		}
		if b.Len() == 0 || errors.Is(err, dialect.ErrHalted) {
			return msgs, err
		}
		msgs = append(msgs, loop.Message{Role: loop.User, Text: "Results of your actions:" + b.String()})
	}
	return msgs, nil // the turn limit
}

// withLoop is the same loop with package loop.
func withLoop(ctx context.Context, rt *dialect.Runtime, m loop.Model, question string) ([]loop.Message, error) {
	out, err := loop.Run(ctx, rt, m, []loop.Message{{Role: loop.User, Text: question}}, loop.Options{
		System: "You are a careful assistant.",
	})
	return out.Messages, err
}
