package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/internal/executor"
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
	if len(args) == 0 {
		return usageError("exec needs calc or fetch")
	}
	fs := flag.NewFlagSet("exec "+args[0], flag.ContinueOnError)
	fs.SetOutput(sio.err)
	asJSON := fs.Bool("json", false, "print {text, data, code, message} as JSON")
	format := fs.String("format", "text", "fetch: text (readable markdown) or html")
	offset := fs.Int("offset", 0, "fetch: start at this byte of the text (what /fetch continue does)")
	chunk := fs.Int("chunk", 0, "fetch: bytes of text to print (default 16384)")
	allowPrivate := fs.Bool("allow-private", false, "fetch: allow loopback and private addresses")
	var rest []string
	for tail := args[1:]; ; {
		if err := fs.Parse(tail); err != nil {
			return usageError("%v", err)
		}
		if fs.NArg() == 0 {
			break
		}
		rest = append(rest, fs.Arg(0))
		tail = fs.Args()[1:]
	}

	var res executor.Result
	var err error
	switch args[0] {
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
		return usageError("exec runs calc or fetch, not %q", args[0])
	}

	if *asJSON {
		out := execOutput{Text: res.Text, Data: res.Data}
		if err != nil {
			out.Code, out.Message = executor.CodeOf(err), err.Error()
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
		if code := executor.CodeOf(err); code != "" {
			return fmt.Errorf("%s: %w", code, err)
		}
		return err
	}
	fmt.Fprintln(sio.out, res.Text)
	return nil
}
