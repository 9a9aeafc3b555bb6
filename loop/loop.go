// Package loop closes the agent loop: it asks a model, runs the actions
// its reply meant to run, gives the results back as the next turn (the
// text of package turn) and asks again, until a reply runs nothing, the
// turn limit or a budget is reached, or the context ends.
//
// A Model is one method; HTTP speaks OpenAI Chat Completions, OpenAI
// Responses and Anthropic Messages over plain HTTP, streaming. The loop
// adds the dialect's instructions (verbs.Registry.WriteInstructions) to
// the system prompt, can hide action lines from the text it shows, and
// calls back per turn and per result. It decides nothing about actions:
// the runtime's pipeline does, through dialect.Stream.
package loop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/turn"
)

// Roles of a Message.
const (
	User      = "user"
	Assistant = "assistant"
)

// Message is one message of a conversation.
type Message struct {
	Role string // User or Assistant
	Text string
}

// Request is what a Model is asked: the system prompt and the
// conversation so far, ending with a user message.
type Request struct {
	System   string
	Messages []Message
}

// Usage is what a reply cost, as the model reports it.
type Usage struct {
	Input  int // prompt tokens
	Output int // completion tokens
}

// Total is Input + Output.
func (u Usage) Total() int { return u.Input + u.Output }

// Reply is a model's answer to one Request.
type Reply struct {
	Text      string // the assistant's text, all of it
	ToolCalls bool   // the reply also calls tools (of the API's own): the loop stops for the host
	Usage     Usage
}

// Model answers one request, writing the reply's text to text as it is
// generated (in pieces of any size) and returning the whole reply. An
// error means the reply is incomplete; nothing of it is run.
type Model interface {
	Reply(ctx context.Context, req Request, text io.Writer) (Reply, error)
}

// ModelFunc makes a function a Model.
type ModelFunc func(ctx context.Context, req Request, text io.Writer) (Reply, error)

// Reply calls f.
func (f ModelFunc) Reply(ctx context.Context, req Request, text io.Writer) (Reply, error) {
	return f(ctx, req, text)
}

// DefaultMaxTurns is the turn limit when Options.MaxTurns is 0.
const DefaultMaxTurns = 8

// Options configure Run.
type Options struct {
	// MaxTurns is the most model turns (replies) in one Run; 0 means
	// DefaultMaxTurns. 1 asks once and runs the reply's actions.
	MaxTurns int
	// MaxTokens ends the loop once the turns so far used this many
	// tokens (input and output, as the model reports them); 0: no limit.
	MaxTokens int
	// Budget is the time the whole Run may take; 0: no limit. It ends a
	// model call in flight, and stops a message's actions between two
	// actions, never inside a write.
	Budget time.Duration
	// System is the system prompt; the dialect's instructions are added
	// after it unless NoInstructions.
	System         string
	NoInstructions bool
	// HideActions leaves the lines of line actions out of the text given
	// to OnText (the runtime still reads all of it).
	HideActions bool
	// MaxOutput is turn.Options.MaxOutput: the most bytes of one
	// action's output given back to the model.
	MaxOutput int
	// Meta names the agent, model and session the runtime records.
	Meta dialect.Meta

	// OnText receives the assistant's text as it streams (see
	// HideActions).
	OnText func(text string)
	// OnResult receives each result when its message is complete, in
	// message order (after Decide).
	OnResult func(dialect.Result)
	// Decide, when not nil, is asked about each action queued for
	// approval before the results turn is written; it returns the result
	// to report instead (e.g. of rt.Approve after asking a person), or
	// the one it got to leave the action queued.
	Decide func(ctx context.Context, r dialect.Result) dialect.Result
	// OnTurn receives each turn when its actions have run.
	OnTurn func(Turn)
}

// Turn is one model turn: the reply, what its actions did, and the results
// turn given back ("" when the loop ended with it).
type Turn struct {
	N       int // 1-based
	Reply   Reply
	Results []dialect.Result
	// ResultsText is the results turn (turn.Text) appended after the
	// reply; "" when the reply ran nothing.
	ResultsText string
}

// Stop says why a Run ended.
type Stop string

// Why a loop ends.
const (
	StopDone      Stop = "done"       // a reply ran nothing: the answer is final
	StopTurns     Stop = "turns"      // MaxTurns replies, the last still acting
	StopTokens    Stop = "tokens"     // MaxTokens reached
	StopToolCalls Stop = "tool-calls" // a reply called the API's own tools: the host must answer them
	StopHalted    Stop = "halted"     // an authorised /halt (Run returns dialect.ErrHalted)
	StopError     Stop = "error"      // the model, the runtime or the context failed (Run returns the error)
)

// Outcome is what a Run did.
type Outcome struct {
	// Messages is the conversation given to Run with every turn
	// appended: each reply as an assistant message, each results turn as
	// a user message. Pass it to the next Run after adding the user's
	// next message.
	Messages []Message
	Turns    []Turn
	Stop     Stop
	Usage    Usage // summed over the turns
}

// Text is the last reply's text: the final answer when Stop is
// StopDone.
func (o *Outcome) Text() string {
	if len(o.Turns) == 0 {
		return ""
	}
	return o.Turns[len(o.Turns)-1].Reply.Text
}

// Run runs the loop on conv (ending with the user's message): ask the
// model, run the reply's actions as it streams (early execution when the
// configuration enables it), append the reply and the results turn, and
// ask again, until a reply runs nothing, or a limit is reached. It
// returns the outcome so far with any error: a model error (nothing of
// that reply ran), ctx's error or the budget's (context.DeadlineExceeded),
// dialect.ErrHalted, or the runtime's.
func Run(ctx context.Context, rt *dialect.Runtime, m Model, conv []Message, o Options) (*Outcome, error) {
	if o.MaxTurns <= 0 {
		o.MaxTurns = DefaultMaxTurns
	}
	if o.Budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Budget)
		defer cancel()
	}
	system, err := System(ctx, rt, o.Meta.Agent, o.System, o.NoInstructions)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Messages: append([]Message(nil), conv...)}
	for n := 1; ; n++ {
		t, err := step(ctx, rt, m, system, out.Messages, o)
		t.N = n
		if err != nil && t.Results == nil {
			out.Stop = StopError
			return out, err
		}
		out.Messages = append(out.Messages, Message{Assistant, t.Reply.Text})
		out.Usage.Input += t.Reply.Usage.Input
		out.Usage.Output += t.Reply.Usage.Output
		t.ResultsText = turn.Text(t.Results, turn.Options{MaxOutput: o.MaxOutput})
		if t.ResultsText != "" {
			out.Messages = append(out.Messages, Message{User, t.ResultsText})
		}
		out.Turns = append(out.Turns, t)
		if o.OnTurn != nil {
			o.OnTurn(t)
		}
		switch {
		case errors.Is(err, dialect.ErrHalted):
			out.Stop = StopHalted
			return out, err
		case err != nil:
			out.Stop = StopError
			return out, err
		case t.ResultsText == "":
			out.Stop = StopDone
		case t.Reply.ToolCalls:
			out.Stop = StopToolCalls
		case ctx.Err() != nil:
			out.Stop = StopError
			return out, context.Cause(ctx)
		case o.MaxTokens > 0 && out.Usage.Total() >= o.MaxTokens:
			out.Stop = StopTokens
		case n >= o.MaxTurns:
			out.Stop = StopTurns
		default:
			continue
		}
		return out, nil
	}
}

// step is one turn: the model's reply streamed into the runtime, then its
// actions run. A model error returns no results: nothing ran.
func step(ctx context.Context, rt *dialect.Runtime, m Model, system string, msgs []Message, o Options) (Turn, error) {
	var t Turn
	meta := o.Meta
	s := rt.NewStream(ctx, meta.Message(""), nil)
	var shown io.Writer = io.Discard
	var filter io.WriteCloser
	if o.OnText != nil {
		shown = textFunc(o.OnText)
		if o.HideActions {
			filter = rt.Filter(shown)
			shown = filter
		}
	}
	reply, err := m.Reply(ctx, Request{System: system, Messages: msgs}, io.MultiWriter(s, shown))
	if err != nil {
		return t, err
	}
	if filter != nil {
		filter.Close()
	}
	t.Reply = reply
	results, err := s.Close()
	if results == nil {
		results = []dialect.Result{}
	}
	for i := range results {
		if results[i].Status == dialect.StatusPending && o.Decide != nil {
			results[i] = o.Decide(ctx, results[i])
		}
		if o.OnResult != nil {
			o.OnResult(results[i])
		}
	}
	t.Results = results
	return t, err
}

// System is the system prompt with the dialect's instructions for agent —
// what works in the runtime's configuration, for that agent — added after
// base (unless without).
func System(ctx context.Context, rt *dialect.Runtime, agent, base string, without bool) (string, error) {
	if without {
		return base, nil
	}
	var b strings.Builder
	if err := rt.Instructions(ctx, &b, agent); err != nil {
		return "", fmt.Errorf("instructions: %w", err)
	}
	if base == "" {
		return b.String(), nil
	}
	return strings.TrimRight(base, "\n") + "\n\n" + b.String(), nil
}

type textFunc func(string)

func (f textFunc) Write(p []byte) (int, error) {
	f(string(p))
	return len(p), nil
}
