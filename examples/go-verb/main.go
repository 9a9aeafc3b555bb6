// Command go-verb shows a Go program giving the runtime a verb of its own:
// /ticket, which files an issue in an in-memory tracker. The verb is a
// verbs.Definition passed to dialect.Open with dialect.WithVerb: it
// resolves like a built-in (/tikcet is forgiven), its arguments are read
// by a TypeAgent grammar, it is gated (it requires approval when marked
// "!"), it appears in the instructions, and its executor runs it.
//
//	go run ./examples/go-verb
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/verbs"
)

// ticketGrammar reads "/ticket TITLE [priority high|low]". The value it
// gives becomes the intent's Args.
const ticketGrammar = `<Start> = $(title:wildcard) priority $(p:<Priority>) -> { title, priority: p }
        | $(title:wildcard) -> { title, priority: "normal" };
<Priority> = high -> "high" | low -> "low";`

// tracker is the outside system the verb reaches: here, a list.
type tracker struct {
	mu      sync.Mutex
	tickets []string
}

// Execute implements verbs.Executor: it files the call's ticket.
func (t *tracker) Execute(ctx context.Context, c verbs.Call) (verbs.Output, error) {
	in, ok := c.Intent.(intent.Custom)
	title, _ := in.Args["title"].(string)
	if !ok || strings.TrimSpace(title) == "" {
		return verbs.Output{}, codes.Errorf(codes.MissingArg, "/ticket needs a title")
	}
	prio, _ := in.Args["priority"].(string)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tickets = append(t.tickets, title)
	id := len(t.tickets)
	return verbs.Output{
		Text: fmt.Sprintf("filed #%d %q (%s), for %s", id, title, prio, c.Agent),
		Data: map[string]any{"id": id, "title": title, "priority": prio},
	}, nil
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run opens a runtime with /ticket and runs three messages through it.
func run(ctx context.Context, out io.Writer) error {
	dir, err := os.MkdirTemp("", "go-verb")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg, err := dialect.ParseConfig("embedded default", nil)
	if err != nil {
		return err
	}
	cfg.Store.Path = filepath.Join(dir, "state.db")

	t := &tracker{}
	rt, err := dialect.Open(ctx, cfg, dialect.WithVerb(verbs.Definition{
		Name:        "ticket",
		Aliases:     []string{"file issue"},
		Description: "file an issue in the team's tracker",
		Examples:    []string{"/ticket login page times out priority high"},
		Form:        "/ticket TITLE [priority high|low]",
		Grammar:     ticketGrammar,
		Executor:    t,
	}))
	if err != nil {
		return err
	}
	defer rt.Close()

	// The instructions a model gets list the verb with its form.
	var instr strings.Builder
	if err := rt.Instructions(ctx, &instr, "scout"); err != nil {
		return err
	}
	for _, l := range strings.Split(instr.String(), "\n") {
		if strings.Contains(l, "/ticket") {
			fmt.Fprintln(out, "instructions:", strings.TrimSpace(l))
		}
	}

	for _, text := range []string{
		"The login page hangs.\n/ticket login page times out priority high\n",
		"Also this one, spelled badly.\n/tikcet search results are stale\n",
		"This needs a person first.\n/file issue delete the staging database !\n",
	} {
		results, err := rt.Run(ctx, dialect.Message{Text: text, Agent: "scout"})
		if err != nil {
			return err
		}
		for _, r := range results {
			fmt.Fprintf(out, "/%s (%s, tier %s): %s %s\n", r.Verb, r.Token, r.Tier, r.Status, r.Output)
		}
	}
	if len(t.tickets) != 2 {
		return fmt.Errorf("the tracker has %d tickets, want 2 (the third waits for approval)", len(t.tickets))
	}
	return nil
}
