package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/pattern-dialect/dialect/grammarbridge"
)

func init() {
	register(&command{
		name:  "grammar",
		usage: "check FILE.agr\nmatch FILE.agr [--json] [--compat typeagent] [--work-limit N] < inputs",
		short: "check an .agr grammar, or match stdin lines against it",
		run:   runGrammar,
	})
}

func runGrammar(ctx context.Context, sio *stdio, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		_, err := newFlags(commands["grammar"], sio).parse(args, 1, -1)
		return err
	}
	switch args[0] {
	case "check":
		return runGrammarCheck(sio, args[1:])
	case "match":
		return runGrammarMatch(ctx, sio, args[1:])
	}
	return usageError("unknown grammar action %q: want check or match", args[0])
}

func runGrammarCheck(sio *stdio, args []string) error {
	pos, err := newFlags(commands["grammar"], sio).parse(args, 1, 1)
	if err != nil {
		return err
	}
	if _, err := grammarbridge.Compile(grammarbridge.OSLoader{}, pos[0], grammarbridge.Options{}); err != nil {
		printGrammarErrors(sio.err, err)
		return exitStatus(1)
	}
	warnQuantifiedRefs(sio.err, pos[0])
	fmt.Fprintf(sio.out, "%s: ok\n", pos[0])
	return nil
}

// warnQuantifiedRefs writes a warning for each ?, * or + directly after a
// rule reference in file (not its imports): TypeAgent reads it as literal
// text, `grammar match` by default as a quantifier (docs/grammar.md,
// "Deviations from TypeAgent"), and a group means the same in both.
func warnQuantifiedRefs(w io.Writer, file string) {
	src, err := grammarbridge.OSLoader{}.Load(file)
	if err != nil {
		return
	}
	f, err := grammarbridge.Parse(file, src)
	if err != nil {
		return
	}
	var walk func([]*grammarbridge.Alt)
	walk = func(alts []*grammarbridge.Alt) {
		for _, a := range alts {
			for _, e := range a.Parts {
				switch e := e.(type) {
				case *grammarbridge.RuleRef:
					if e.Quant != grammarbridge.QuantOne {
						q := "?*+"[e.Quant-grammarbridge.QuantOpt]
						fmt.Fprintf(w, "%s:%d:%d: warning: the %c after <%s> is literal text to TypeAgent (--compat typeagent) and a quantifier by default; (<%s>)%c means the same to both\n",
							file, e.Pos.Line, e.Pos.Col, q, e.Name, e.Name, q)
					}
				case *grammarbridge.Group:
					walk(e.Alts)
				}
			}
		}
	}
	for _, r := range f.Rules {
		walk(r.Alts)
	}
}

// printGrammarErrors writes one positioned error a line.
func printGrammarErrors(w io.Writer, err error) {
	var list grammarbridge.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			fmt.Fprintln(w, e)
		}
		return
	}
	fmt.Fprintln(w, err)
}

// grammarMatchLine is one line of `grammar match --json` output.
type grammarMatchLine struct {
	Input   string            `json:"input"`
	Matches []json.RawMessage `json:"matches"`
	Error   string            `json:"error,omitempty"`
}

func runGrammarMatch(ctx context.Context, sio *stdio, args []string) error {
	fs := newFlags(commands["grammar"], sio)
	asJSON := fs.Bool("json", false, "print one JSON object per input line")
	compat := fs.String("compat", "", "reproduce another matcher exactly: typeagent")
	limit := fs.Int("work-limit", 0, "matcher steps allowed per input (0: the default)")
	pos, err := fs.parse(args, 1, 1)
	if err != nil {
		return err
	}
	// The default reads a grammar as its author means it; --compat
	// typeagent leaves the deviations off (docs/grammar.md).
	opts := grammarbridge.Options{WorkLimit: *limit}
	switch *compat {
	case "":
		opts = opts.AsAuthored()
	case "typeagent":
	default:
		return usageError("unknown --compat %q: want typeagent", *compat)
	}
	g, err := grammarbridge.Compile(grammarbridge.OSLoader{}, pos[0], opts)
	if err != nil {
		printGrammarErrors(sio.err, err)
		return exitStatus(1)
	}
	out := bufio.NewWriter(sio.out)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	sc := bufio.NewScanner(sio.in)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	failed := false
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return err
		}
		input := strings.TrimSuffix(sc.Text(), "\r")
		ms, err := g.Match(input)
		if *asJSON {
			line := grammarMatchLine{Input: input, Matches: sortedValues(ms)}
			if err != nil {
				line.Error = err.Error()
				failed = true
			}
			if err := enc.Encode(line); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(out, "%s\n", input)
		switch {
		case err != nil:
			fmt.Fprintf(out, "  error: %v\n", err)
			failed = true
		case len(ms) == 0:
			fmt.Fprintf(out, "  no match: %v\n", g.Explain(input))
		default:
			for i, m := range ms {
				mark := " "
				if i == 0 {
					mark = "*"
				}
				fmt.Fprintf(out, "  %s %s  (values %d, wildcard chars %d)\n", mark, grammarbridge.Canonical(m.Value), m.MatchedValues, m.WildcardChars)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if failed {
		out.Flush()
		return exitStatus(1)
	}
	return nil
}

// sortedValues returns the match values as canonical JSON (keys sorted,
// numbers as JavaScript prints them), sorted by that text, as TypeAgent's
// reference cases list them.
func sortedValues(ms []grammarbridge.Match) []json.RawMessage {
	out := make([]json.RawMessage, len(ms))
	for i, m := range ms {
		out[i] = json.RawMessage(grammarbridge.Canonical(m.Value))
	}
	sort.Slice(out, func(i, j int) bool { return string(out[i]) < string(out[j]) })
	return out
}
