// Package turn writes the results turn: the text a model reads after a
// message whose actions ran, telling it what each action did. It is the one
// place that text is made; the loop API, the middleware and proxy in loop
// mode, and `dialect chat` all call Text, so a model meets the same form
// however it is run.
//
// Text formats what the pipeline decided (dialect.Result) and decides
// nothing itself: it adds no status, retries nothing and reads no
// configuration. It only chooses words, so that a model can act on a
// failure in its next message: the did-you-mean and the expected form come
// from the result, a pending action says what happens next, and the rest of
// a chain is handed back to be issued again (language.md §3).
package turn

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pattern-dialect/dialect"
)

// DefaultMaxOutput is how many bytes of one action's output Text shows
// when Options.MaxOutput is 0.
const DefaultMaxOutput = 4096

// Header is the first line of every results turn.
const Header = "Results of your actions:"

// Options tune Text.
type Options struct {
	// MaxOutput is the most bytes of one result's output shown; a longer
	// output is cut on a line or rune boundary and a note says how much
	// was left out. 0 means DefaultMaxOutput; negative means no limit.
	MaxOutput int
}

// Needed reports whether results hold anything the model must be told:
// an action that ran, failed, was queued or was refused. Mentions,
// reconsidered and cancelled actions (skipped) are not reported, so a
// message whose actions were all skipped needs no results turn, and a
// loop ends there.
func Needed(results []dialect.Result) bool {
	for i := range results {
		if reported(&results[i]) {
			return true
		}
	}
	return false
}

func reported(r *dialect.Result) bool {
	return r.Status != "" && r.Status != dialect.StatusSkipped
}

// Text returns the results turn for one message's results, or "" when
// Needed is false. The form, one entry per reported action in message
// order:
//
//	Results of your actions:
//	/recall project deadlines → ok
//	  the report is due Friday
//	/serch deadline → error UNKNOWN_VERB: /serch is not a verb — did you mean /search? Write: /search deadline
//	/post @bluesky "shipped" ! → pending #12: /post needs approval (marked ! (serious)) — queued as #12. It runs once the owner approves it; do not write it again.
//
// An output is indented by two spaces under its action; a failure's
// message follows the status on the action's line.
func Text(results []dialect.Result, o Options) string {
	if !Needed(results) {
		return ""
	}
	max := o.MaxOutput
	if max == 0 {
		max = DefaultMaxOutput
	}
	var b strings.Builder
	b.WriteString(Header)
	for i := range results {
		r := &results[i]
		if !reported(r) {
			continue
		}
		b.WriteByte('\n')
		entry(&b, r, max)
	}
	return b.String()
}

// entry writes one result.
func entry(b *strings.Builder, r *dialect.Result, max int) {
	b.WriteString(oneLine(action(r)))
	b.WriteString(" → ")
	out := strings.TrimRight(r.Output, "\n")
	switch r.Status {
	case dialect.StatusOK:
		b.WriteString("ok")
		if out == "" {
			b.WriteString(" (no output)")
		} else {
			b.WriteByte('\n')
			indent(b, cut(out, max))
		}
	case dialect.StatusPending:
		fmt.Fprintf(b, "pending #%d: %s", r.Pending, oneLine(out))
		b.WriteString(sentenceEnd(out) + "It runs once the owner approves it; do not write it again.")
	case dialect.StatusDenied:
		b.WriteString("denied")
		if r.Code != "" && r.Code != "PERMISSION_DENIED" {
			b.WriteString(" " + string(r.Code))
		}
		b.WriteString(": " + oneLine(out))
		b.WriteString(sentenceEnd(out) + "It will not run; do not write it again.")
	default: // error
		b.WriteString("error")
		if r.Code != "" {
			b.WriteString(" " + string(r.Code))
		}
		if out != "" {
			b.WriteString(": " + oneLine(cut(out, max)))
		}
		if fix := fix(r); fix != "" {
			b.WriteString(sentenceEnd(out) + fix)
		}
	}
	if r.Chain != "" {
		b.WriteString("\n  rest of the chain, not run: " + oneLine(r.Chain) + " — write it again to run it")
		if r.Status == dialect.StatusOK {
			b.WriteString(" (@last.output is the output above)")
		}
	}
}

// fix is what the model can do about a failure it made: the action
// retyped with the one verb the resolver suggested, or the choice among
// several. World failures (not found, timeouts, a tool that failed) get
// none: the message says what happened, and the model decides.
func fix(r *dialect.Result) string {
	if !r.Code.ModelFault() {
		return ""
	}
	switch {
	case len(r.Candidates) == 1 && r.Verb == "" && r.Token != "":
		return "Write: " + oneLine(retyped(r, r.Candidates[0]))
	case len(r.Candidates) > 1 && r.Verb == "":
		return "Write one of /" + strings.Join(r.Candidates, ", /") + "."
	case len(r.Candidates) > 1:
		return "Name one of " + strings.Join(r.Candidates, ", ") + "."
	}
	return "Fix it and write the action again."
}

// action is the action as the model wrote it, on one line: the verb token,
// the arguments, a note for a content block, and the permission marker.
func action(r *dialect.Result) string {
	return retyped(r, r.Token)
}

func retyped(r *dialect.Result, verb string) string {
	a := &r.Action
	s := "/" + verb
	if args := strings.TrimSpace(a.Args); args != "" {
		s += " " + args
	}
	if a.Content != "" && !strings.Contains(a.Args, `"`) {
		n := strings.Count(strings.TrimRight(a.Content, "\n"), "\n") + 1
		s += fmt.Sprintf(" [+ %d-line block]", n)
	}
	if a.Marker != "" {
		s += " " + a.Marker
	}
	return s
}

// sentenceEnd returns what separates s from a following sentence.
func sentenceEnd(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	switch s[len(s)-1] {
	case '.', '!', '?':
		return " "
	}
	return ". "
}

// oneLine keeps s on one line: line breaks become " ⏎ ".
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r\n", " ⏎ ", "\n", " ⏎ ", "\r", " ⏎ ").Replace(s)
}

// indent writes s with two spaces before every line.
func indent(b *strings.Builder, s string) {
	for i, l := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		if l != "" {
			b.WriteString("  ")
		}
		b.WriteString(l)
	}
}

// cut shortens s to at most max bytes, at the last line break in its
// second half when there is one, else at a rune boundary, and says how
// much was left out.
func cut(s string, max int) string {
	if max < 0 || len(s) <= max {
		return s
	}
	end := max
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	if nl := strings.LastIndexByte(s[:end], '\n'); nl >= end/2 {
		end = nl
	}
	return fmt.Sprintf("%s\n[cut: %d of %d bytes shown]", s[:end], end, len(s))
}

// Carried returns a results turn in the form it takes inside an assistant
// message, where a proxy that ran the loop for a client puts it (see
// docs/loop.md): an HTML comment, which Markdown renderers hide from a
// person, which the scanner never reads actions from (language.md §1), and
// which a model reads as the record of what its actions did. A "-->" in the
// text is written "-- >" so that the comment cannot end early.
func Carried(text string) string {
	if text == "" {
		return ""
	}
	return "\n\n<!-- dialect\n" + strings.ReplaceAll(text, "-->", "-- >") + "\n-->\n\n"
}

// Limit is the note that ends an answer cut off by the turn limit: the
// results before it were not shown to the model.
func Limit(turns int) string {
	return fmt.Sprintf("[dialect: stopped after %d model turns; the model has not seen the last results]", turns)
}
