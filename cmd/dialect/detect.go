package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/detect"
)

func init() {
	register(&command{
		name:  "detect",
		usage: "[--json] [--jsonl] [--chunk N] [--config F] < message",
		short: "find the actions in a message and say which would execute",
		run:   runDetect,
	})
}

// detectOutput is one line of `dialect detect --json`, a form outside
// checks rely on;
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

func runDetect(ctx context.Context, sio *stdio, args []string) error {
	f := newFlags(commands["detect"], sio).state()
	asJSON := f.Bool("json", false, "print one JSON object per detected action")
	jsonl := f.Bool("jsonl", false, `read JSON Lines {"id":..., "text":...} and add "id" to each action (implies --json)`)
	chunk := f.Int("chunk", 0, "feed the scanner N bytes at a time, as a stream would (0: the whole message)")
	if _, err := f.parse(args, 0, 0); err != nil {
		return err
	}
	if *chunk < 0 {
		return usageError("--chunk must be 0 or more, not %d", *chunk)
	}
	rt, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer rt.Close()
	d := rt.NewDetector()
	out := bufio.NewWriter(sio.out)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)

	if !*jsonl {
		// Stream stdin into the detector, N bytes per Write (64 KiB when
		// N is 0): memory stays bounded by the longest line, not the
		// input.
		buf := make([]byte, *chunk)
		if *chunk == 0 {
			buf = make([]byte, 64<<10)
		}
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			n, err := io.ReadFull(sio.in, buf)
			d.Write(buf[:n])
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			if err != nil {
				return fmt.Errorf("reading stdin: %w", err)
			}
		}
		results := d.Close()
		if *asJSON {
			return encodeActions(enc, nil, results)
		}
		printActions(out, results)
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
			d.Reset()
			if eerr := encodeActions(enc, rec.ID, detectChunked(d, []byte(*rec.Text), *chunk)); eerr != nil {
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

// detectChunked feeds msg to d n bytes at a time (all at once for n = 0).
func detectChunked(d *dialect.Detector, msg []byte, n int) []dialect.Result {
	if n <= 0 {
		n = len(msg) + 1
	}
	for i := 0; i < len(msg); i += n {
		d.Write(msg[i:min(i+n, len(msg))])
	}
	return d.Close()
}

func encodeActions(enc *json.Encoder, id json.RawMessage, results []dialect.Result) error {
	for _, r := range results {
		a := &r.Action
		o := detectOutput{
			ID: id, Token: r.Token, Line: a.Span.Line, Col: a.Span.Col, Start: a.Span.Start, End: a.Span.End,
			Executable: a.Executable, Reason: r.Reason, Code: string(r.Code),
			Do: a.Do, Trailing: a.Trailing, Inline: a.Inline, Tier: r.Tier,
			Args: a.Args, Content: a.Content, Kind: a.Kind.String(), Marker: a.Marker, Chain: a.Chain,
		}
		if r.Verb != "" {
			verb := r.Verb
			o.Verb = &verb
		}
		if err := enc.Encode(o); err != nil {
			return err
		}
	}
	return nil
}

// printActions writes the human form: one line per action.
func printActions(w io.Writer, results []dialect.Result) {
	if len(results) == 0 {
		fmt.Fprintln(w, "no actions")
		return
	}
	for _, r := range results {
		a := &r.Action
		verb := r.Verb
		if verb == "" {
			verb = "?"
		}
		status := "execute"
		if !a.Executable {
			status = "skip: " + r.Reason
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
		fmt.Fprintln(w, safeText(fmt.Sprintf("%d:%d /%s → %s  %s%s  %q", a.Span.Line, a.Span.Col, r.Token, verb, status, extra, a.Args)))
	}
}
