package executor

import (
	"context"
	"io"

	"github.com/pattern-dialect/dialect/intent"
)

// Config gathers the executors' options: the [exec] table of dialect.toml.
type Config struct {
	Calc  CalcOptions           `toml:"calc"`
	Fetch FetchOptions          `toml:"fetch"`
	Web   WebOptions            `toml:"web"`
	Send  SendOptions           `toml:"send"`
	Tools map[string]ToolConfig `toml:"tools"`
}

// Executor carries out the intents that touch the outside world: calc,
// fetch, web, send and custom verbs mapped to tools. It is safe for
// concurrent use.
type Executor struct {
	Calc    *Calc
	Fetcher *Fetcher
	Web     *Web
	Sender  *Sender
	Tools   *Tools
}

// New checks cfg and builds every executor; stdout targets write to out.
func New(cfg Config, out io.Writer) (*Executor, error) {
	web, err := NewWeb(cfg.Web)
	if err != nil {
		return nil, err
	}
	sender, err := NewSender(cfg.Send, out)
	if err != nil {
		return nil, err
	}
	tools, err := NewTools(cfg.Tools)
	if err != nil {
		return nil, err
	}
	return &Executor{
		Calc:    NewCalc(cfg.Calc),
		Fetcher: NewFetcher(cfg.Fetch),
		Web:     web,
		Sender:  sender,
		Tools:   tools,
	}, nil
}

// Execute carries out in. prev is the session's last fetch cursor (the
// Next of the last FetchData), used by /fetch continue; pass nil
// otherwise. A custom intent runs its tool when MapsTo names one, else its
// inner built-in intent. Memory, search and authority intents are the
// runtime's own: they give UNSUPPORTED_INTENT here.
func (x *Executor) Execute(ctx context.Context, in intent.Intent, prev *Cursor) (Result, error) {
	switch v := in.(type) {
	case intent.Calc:
		return x.Calc.Eval(ctx, v)
	case intent.Fetch:
		return x.Fetcher.Fetch(ctx, v, prev)
	case intent.Web:
		return x.Web.Search(ctx, v)
	case intent.Send:
		return x.Sender.Send(ctx, v)
	case intent.Custom:
		if x.Tools.Has(v.MapsTo) {
			return x.Tools.Run(ctx, v)
		}
		if v.Inner != nil {
			if _, nested := v.Inner.(intent.Custom); !nested {
				return x.Execute(ctx, v.Inner, prev)
			}
		}
		return x.Tools.Run(ctx, v) // reports the missing tool
	case nil:
		return Result{}, errorf(CodeUnsupportedKind, nil, "no intent to execute")
	}
	return Result{}, errorf(CodeUnsupportedKind, nil, "%s intents are carried out by the runtime, not by an executor", in.Kind())
}
