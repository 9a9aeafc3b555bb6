package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/executor"
	"github.com/pattern-dialect/dialect/intent"
)

func init() {
	register(&command{
		name:  "exec",
		usage: "calc EXPR... | fetch [--format text|html] [--offset N] [--chunk BYTES] [--allow-private] URL  [--json]",
		short: "run one calc or fetch executor directly (no configuration, no permission gate)",
		run:   runExec,
	})
}

// execOutput is what `dialect exec --json` prints.
type execOutput struct {
	Text    string `json:"text"`
	Data    any    `json:"data,omitempty"`
	Code    string `json:"code"`
	Message string `json:"message,omitempty"`
}

func runExec(ctx context.Context, sio *stdio, args []string) error {
	f := newFlags(commands["exec"], sio)
	asJSON := f.Bool("json", false, "print {text, data, code, message} as JSON")
	format := f.String("format", "text", "fetch: text (readable markdown) or html")
	offset := f.Int("offset", 0, "fetch: start at this byte of the text (what /fetch continue does)")
	chunk := f.Int("chunk", 0, "fetch: bytes of text to print (default 16384)")
	allowPrivate := f.Bool("allow-private", false, "fetch: allow loopback and private addresses")
	pos, err := f.parse(args, 1, -1)
	if err != nil {
		return err
	}
	sub, rest := pos[0], pos[1:]

	var res executor.Result
	switch sub {
	case "calc":
		if len(rest) == 0 {
			return usageError("exec calc needs an expression")
		}
		res, err = executor.NewCalc(executor.CalcOptions{}).Eval(ctx, intent.Calc{Expr: strings.Join(rest, " ")})
	case "fetch":
		if len(rest) != 1 {
			return usageError("exec fetch needs one URL")
		}
		f := executor.NewFetcher(executor.FetchOptions{AllowPrivate: *allowPrivate, ChunkBytes: *chunk})
		in := intent.Fetch{URL: rest[0], Format: *format}
		var prev *executor.Cursor
		if *offset > 0 {
			in = intent.Fetch{Continue: true}
			prev = &executor.Cursor{URL: rest[0], Format: *format, Offset: *offset}
		}
		res, err = f.Fetch(ctx, in, prev)
	default:
		return usageError("exec runs calc or fetch, not %q", sub)
	}

	if *asJSON {
		out := execOutput{Text: res.Text, Data: res.Data}
		if err != nil {
			out.Code, out.Message = string(codes.Of(err)), err.Error()
		}
		b, jerr := json.Marshal(out)
		if jerr != nil {
			return jerr
		}
		fmt.Fprintf(sio.out, "%s\n", b)
		if err != nil {
			return exitStatus(1)
		}
		return nil
	}
	if err != nil {
		if code := codes.Of(err); code != "" {
			return fmt.Errorf("%s: %w", code, err)
		}
		return err
	}
	fmt.Fprintln(sio.out, res.Text)
	return nil
}
