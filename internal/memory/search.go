package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/store"
	"github.com/pattern-dialect/dialect/verbs"
)

// Found is the Data of a search: what each domain found, whatever format
// the text was written in.
type Found struct {
	Memory        []FoundBlock   `json:"memory,omitempty"`
	Conversations []FoundMessage `json:"conversations,omitempty"`
}

// FoundBlock is one memory block a search found.
type FoundBlock struct {
	Kind    store.Kind `json:"kind"`
	Name    string     `json:"name"`
	Version int        `json:"version"`
	Updated time.Time  `json:"updated"`
	Tags    []string   `json:"tags,omitempty"`
	Project string     `json:"project,omitempty"`
	Snippet string     `json:"snippet"`
	Content string     `json:"content,omitempty"` // with &full and &json
}

// FoundMessage is one logged message a search found.
type FoundMessage struct {
	At      time.Time `json:"at"`
	Session string    `json:"session,omitempty"`
	Role    string    `json:"role"`
	Agent   string    `json:"agent,omitempty"`
	Tags    []string  `json:"tags,omitempty"`
	Project string    `json:"project,omitempty"`
	Snippet string    `json:"snippet"`
	Content string    `json:"content,omitempty"` // with &full and &json
}

// search searches memory and logged conversations, honouring every
// filter in every domain.
func (m mem) search(ctx context.Context, in intent.Search) (verbs.Output, error) {
	domains := map[string]bool{}
	for _, d := range in.Domains {
		domains[d] = true
	}
	all := len(domains) == 0 || domains["all"]
	var found Found
	var parts []string
	if all || domains[intent.DomainArchival] {
		out, err := m.searchBlocks(ctx, "", in.Terms, in.Filters, in.Time)
		if err != nil {
			return out, err
		}
		found.Memory = out.Data.(Found).Memory
		parts = append(parts, "memory: "+out.Text)
	}
	if all || domains[intent.DomainConversations] {
		hits, err := m.st.SearchMessages(ctx, in.Terms, messageQuery(in))
		if err != nil {
			return verbs.Output{}, err
		}
		for _, h := range hits {
			fm := FoundMessage{At: h.At.UTC(), Session: h.Session, Role: h.Role, Agent: h.Agent, Tags: h.Tags, Project: h.Project, Snippet: h.Snippet}
			if full(in.Filters) {
				fm.Content = h.Content
			}
			found.Conversations = append(found.Conversations, fm)
		}
		parts = append(parts, "conversations: "+formatMessages(found.Conversations, in.Filters.Format))
	}
	if domains[intent.DomainConstellation] && !all {
		parts = append(parts, "constellation: no constellation is configured")
	}
	if in.Filters.Format == "json" {
		b, err := json.Marshal(found)
		return verbs.Output{Text: string(b), Data: found}, err
	}
	return verbs.Output{Text: strings.Join(parts, "\n"), Data: found}, nil
}

// messageQuery turns a search's filters into the store's.
func messageQuery(in intent.Search) store.MessageQuery {
	f := in.Filters
	q := store.MessageQuery{Role: in.Role, Limit: f.Limit, Tags: f.Tags, Project: f.Project}
	q.Since, q.Before = bounds(f, in.Time)
	return q
}

// bounds are the time bounds of the filters and the age modifiers.
func bounds(f intent.Filters, tr intent.TimeRange) (since, before time.Time) {
	now := time.Now()
	if !f.Since.IsZero() {
		since = f.Since.From(now)
	}
	if tr.NewerThan > 0 {
		if t := now.Add(-tr.NewerThan); t.After(since) {
			since = t
		}
	}
	if tr.OlderThan > 0 {
		before = now.Add(-tr.OlderThan)
	}
	return since, before
}

func full(f intent.Filters) bool { return f.Format == "full" || f.Format == "json" }

// searchBlocks searches blocks of kind ("" both) and writes the hits in
// the filters' format; its Data is a Found.
func (m mem) searchBlocks(ctx context.Context, kind store.Kind, query string, f intent.Filters, tr intent.TimeRange) (verbs.Output, error) {
	o := store.SearchOptions{Limit: f.Limit, Tags: f.Tags, Project: f.Project}
	o.Since, o.Before = bounds(f, tr)
	hits, err := m.st.Search(ctx, kind, query, o)
	if err != nil {
		return verbs.Output{}, err
	}
	var found Found
	for _, h := range hits {
		fb := FoundBlock{Kind: h.Kind, Name: h.Name, Version: h.Version, Updated: h.Updated.UTC(), Tags: h.Tags, Project: h.Project, Snippet: h.Snippet}
		if full(f) {
			fb.Content = h.Content
		}
		found.Memory = append(found.Memory, fb)
	}
	out := verbs.Output{Data: found}
	if f.Format == "json" && kind != "" {
		b, err := json.Marshal(found)
		out.Text = string(b)
		return out, err
	}
	out.Text = formatBlocks(found.Memory, f.Format)
	return out, nil
}

// formatBlocks writes block hits: a snippet each, or with brief one line
// each, or with full the whole content.
func formatBlocks(bs []FoundBlock, format string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d found", len(bs))
	for _, h := range bs {
		labels := labelText(store.Block{Tags: h.Tags, Project: h.Project})
		switch format {
		case "brief":
			fmt.Fprintf(&b, "\n- %s (v%d, %s)%s", h.Name, h.Version, h.Updated.Format(time.DateOnly), labels)
		case "full":
			fmt.Fprintf(&b, "\n- %s (v%d)%s:\n  %s", h.Name, h.Version, labels, strings.ReplaceAll(h.Content, "\n", "\n  "))
		default:
			fmt.Fprintf(&b, "\n- %s: %s", h.Name, h.Snippet)
		}
	}
	return b.String()
}

// formatMessages writes message hits in the filters' format.
func formatMessages(ms []FoundMessage, format string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d found", len(ms))
	for _, h := range ms {
		head := fmt.Sprintf("%s %s", h.At.Format(time.DateOnly), h.Role)
		if h.Session != "" {
			head += " (" + h.Session + ")"
		}
		switch format {
		case "brief":
			fmt.Fprintf(&b, "\n- %s", head)
		case "full":
			fmt.Fprintf(&b, "\n- %s:\n  %s", head, strings.ReplaceAll(h.Content, "\n", "\n  "))
		default:
			fmt.Fprintf(&b, "\n- %s: %s", head, h.Snippet)
		}
	}
	return b.String()
}
