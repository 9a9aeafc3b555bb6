package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/detect"
)

func init() {
	register(&command{
		name:  "detect",
		usage: "[--json] [--jsonl] [--chunk N] < message",
		short: "find the actions in a message and say which would execute",
		run:   runDetect,
	})
}

// detectOutput is one line of `dialect detect --json` (ARCHITECTURE.md);
// fields after args extend the contract.
type detectOutput struct {
	ID         json.RawMessage `json:"id,omitempty"`
	Verb       *string         `json:"verb"`
	Token      string          `json:"token"`
	Line       int             `json:"line"`
	Col        int             `json:"col"`
	Start      int             `json:"start"`
	End        int             `json:"end"`
	Executable bool            `json:"executable"`
	Reason     string          `json:"reason"`
	Code       string          `json:"code"`
	Do         bool            `json:"do"`
	Trailing   bool            `json:"trailing"`
	Inline     bool            `json:"inline"`
	Tier       string          `json:"tier"`
	Args       string          `json:"args"`
	Content    string          `json:"content"`
	Kind       string          `json:"content_kind"`
	Marker     string          `json:"marker"`
	Chain      string          `json:"chain"`
}

// tierOf says how a resolved action's verb token matched: the resolver's
// tier ("exact", "case", "morph", ...), or "" when unresolved.
func tierOf(rt *dialect.Runtime, a *detect.Action) string {
	if a.Verb == "" {
		return ""
	}
	res := rt.Resolver().Resolve(a.Token)
	if !res.OK() && len(res.Candidates) > 0 {
		// An alias several verbs claim: the tier that found the claimants.
		return res.Candidates[0].Tier.String()
	}
	return res.Tier.String()
}

func runDetect(ctx context.Context, sio *stdio, args []string) error {
	fs := flag.NewFlagSet("detect", flag.ContinueOnError)
	fs.SetOutput(sio.err)
	asJSON := fs.Bool("json", false, "print one JSON object per detected action")
	jsonl := fs.Bool("jsonl", false, `read JSON Lines {"id":..., "text":...} and add "id" to each action (implies --json)`)
	chunk := fs.Int("chunk", 0, "feed the scanner N bytes at a time, as a stream would (0: the whole message)")
	config := fs.String("config", "", "configuration file (default: lookup order)")
	if err := fs.Parse(args); err != nil {
		return usageError("%v", err)
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument %q (the message is read from stdin)", fs.Arg(0))
	}
	if *chunk < 0 {
		return usageError("--chunk must be 0 or more, not %d", *chunk)
	}
	cfg, err := loadConfig(*config)
	if err != nil {
		return err
	}
	rt, err := dialect.New(cfg)
	if err != nil {
		return usageErr{err}
	}
	sc := rt.NewScanner()
	out := bufio.NewWriter(sio.out)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)

	if !*jsonl {
		// Stream stdin into the scanner, N bytes per Write (64 KiB when N
		// is 0): memory stays bounded by the longest line, not the input.
		buf := make([]byte, *chunk)
		if *chunk == 0 {
			buf = make([]byte, 64<<10)
		}
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			n, err := io.ReadFull(sio.in, buf)
			sc.Write(buf[:n])
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			if err != nil {
				return fmt.Errorf("reading stdin: %w", err)
			}
		}
		sc.Close()
		actions := sc.Actions()
		if *asJSON {
			return encodeActions(enc, rt, nil, actions)
		}
		printActions(out, rt, actions)
		return nil
	}

	in := bufio.NewReader(sio.in)
	for lineNo := 1; ; lineNo++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		raw, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(raw)) > 0 {
			var rec struct {
				ID   json.RawMessage `json:"id"`
				Text *string         `json:"text"`
			}
			if jerr := json.Unmarshal(raw, &rec); jerr != nil {
				return fmt.Errorf("stdin line %d: %w", lineNo, jerr)
			}
			if rec.Text == nil {
				return fmt.Errorf("stdin line %d: no \"text\" field", lineNo)
			}
			sc.Reset()
			if eerr := encodeActions(enc, rt, rec.ID, scanChunked(sc, []byte(*rec.Text), *chunk)); eerr != nil {
				return eerr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading stdin: %w", err)
		}
	}
}

// scanChunked feeds msg to sc n bytes at a time (all at once for n = 0).
func scanChunked(sc *detect.Scanner, msg []byte, n int) []detect.Action {
	if n <= 0 {
		n = len(msg) + 1
	}
	for i := 0; i < len(msg); i += n {
		sc.Write(msg[i:min(i+n, len(msg))])
	}
	sc.Close()
	return sc.Actions()
}

func encodeActions(enc *json.Encoder, rt *dialect.Runtime, id json.RawMessage, actions []detect.Action) error {
	for i := range actions {
		a := &actions[i]
		o := detectOutput{
			ID: id, Token: a.Token, Line: a.Span.Line, Col: a.Span.Col, Start: a.Span.Start, End: a.Span.End,
			Executable: a.Executable, Reason: a.ReasonText(), Code: a.Reason.Code(),
			Do: a.Do, Trailing: a.Trailing, Inline: a.Inline, Tier: tierOf(rt, a),
			Args: a.Args, Content: a.Content, Kind: a.Kind.String(), Marker: a.Marker, Chain: a.Chain,
		}
		if a.Verb != "" {
			verb := a.Verb
			o.Verb = &verb
		}
		if err := enc.Encode(o); err != nil {
			return err
		}
	}
	return nil
}

// printActions writes the human form: one line per action.
func printActions(w io.Writer, rt *dialect.Runtime, actions []detect.Action) {
	if len(actions) == 0 {
		fmt.Fprintln(w, "no actions")
		return
	}
	for i := range actions {
		a := &actions[i]
		verb := a.Verb
		if verb == "" {
			verb = "?"
		}
		status := "execute"
		if !a.Executable {
			status = "skip: " + a.ReasonText()
		}
		var flags []string
		if a.Do {
			flags = append(flags, "/do")
		}
		if a.Trailing {
			flags = append(flags, "trailing")
		}
		if a.Marker != "" {
			flags = append(flags, "marker "+a.Marker)
		}
		if a.Kind != detect.NoContent {
			flags = append(flags, fmt.Sprintf("%s content, %d bytes", a.Kind, len(a.Content)))
		}
		if a.Chain != "" {
			flags = append(flags, "then "+a.Chain)
		}
		extra := ""
		if len(flags) > 0 {
			extra = " [" + strings.Join(flags, "; ") + "]"
		}
		fmt.Fprintf(w, "%d:%d /%s → %s  %s%s  %q\n", a.Span.Line, a.Span.Col, a.Token, verb, status, extra, a.Args)
	}
}
