package failures

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"
)

// WriteJSON writes the report as one indented JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// safe makes text from the log fit to print: control and terminal escape
// characters are shown as \xNN or \u escapes, newlines as spaces.
func safe(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t' || r == '\r':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) && r != '\u200d':
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCell escapes text for a Markdown table cell.
func mdCell(s string) string {
	s = safe(s)
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "|", `\|`)
	for _, c := range []string{"*", "_", "<", ">", "[", "]", "`"} {
		s = strings.ReplaceAll(s, c, `\`+c)
	}
	return s
}

// mdCode writes s as an inline code span that s's own backticks cannot end.
func mdCode(s string) string {
	s = strings.ReplaceAll(safe(s), "|", "¦")
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || s == "" {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// sortedCounts lists a model→count map, largest first.
func sortedCounts(m map[string]int) []struct {
	Key string
	N   int
} {
	out := make([]struct {
		Key string
		N   int
	}, 0, len(m))
	for k, n := range m {
		out = append(out, struct {
			Key string
			N   int
		}{k, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].N != out[j].N {
			return out[i].N > out[j].N
		}
		return out[i].Key < out[j].Key
	})
	return out
}

func countsText(m map[string]int) string {
	var parts []string
	for _, kv := range sortedCounts(m) {
		name := kv.Key
		if name == "" {
			name = "(unknown)"
		}
		parts = append(parts, fmt.Sprintf("%s %d", name, kv.N))
	}
	return strings.Join(parts, ", ")
}

func modelName(m string) string {
	if m == "" {
		return "(unknown)"
	}
	return m
}

// WriteMarkdown writes the report as Markdown.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# Dialect failure report\n\n")
	rate := 0.0
	if r.Actions > 0 {
		rate = float64(r.Failures) / float64(r.Actions)
	}
	fmt.Fprintf(&b, "Since %s UTC, generated %s UTC: **%d failures** in %d actions (%s).\n\n",
		r.Since.Format("2006-01-02 15:04"), r.Generated.Format("2006-01-02 15:04"), r.Failures, r.Actions, pct(rate))

	b.WriteString("## Failures per model\n\n")
	if len(r.Models) == 0 {
		b.WriteString("No actions recorded.\n\n")
	} else {
		b.WriteString("| model | failures | actions | failure rate | by code |\n|---|---:|---:|---:|---|\n")
		for _, m := range r.Models {
			codes := map[string]int{}
			for c, n := range m.ByCode {
				codes[string(c)] = n
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %s | %s |\n", mdCell(modelName(m.Model)), m.Failures, m.Actions, pct(m.Rate), mdCell(countsText(codes)))
		}
		b.WriteString("\n")
	}

	b.WriteString("## Top failure patterns\n\n")
	if len(r.Patterns) == 0 {
		b.WriteString("No failures.\n\n")
	}
	for i, p := range r.Patterns {
		fmt.Fprintf(&b, "%d. **%s**", i+1, p.Code)
		if p.Verb != "" {
			fmt.Fprintf(&b, " /%s", mdCell(p.Verb))
		}
		if p.Subject != "" {
			fmt.Fprintf(&b, " %s", mdCode(p.Subject))
		}
		fmt.Fprintf(&b, " — %d (%s)\n   - fix: %s\n", p.Count, mdCell(countsText(p.ByModel)), mdCell(p.Fix))
		for _, e := range p.Examples {
			fmt.Fprintf(&b, "   - e.g. %s%s\n", mdCode(e.Raw), ctxText(e))
		}
	}
	if len(r.Patterns) > 0 {
		b.WriteString("\n")
	}

	b.WriteString("## Alias candidates\n\n")
	if len(r.Aliases) == 0 {
		b.WriteString("None: no unknown verb was frequent and close enough to an existing verb.\n\n")
	} else {
		b.WriteString("| alias | verb | count | confidence | score | by model |\n|---|---|---:|---:|---:|---|\n")
		for _, a := range r.Aliases {
			fmt.Fprintf(&b, "| %s | %s | %d | %.2f | %.1f | %s |\n", mdCode("/"+a.Alias), mdCode("/"+a.Verb), a.Count, a.Confidence, a.Score, mdCell(countsText(a.ByModel)))
		}
		b.WriteString("\nExample usages:\n\n")
		for _, a := range r.Aliases {
			for _, e := range a.Examples {
				fmt.Fprintf(&b, "- %s → /%s: %s%s\n", mdCode("/"+a.Alias), mdCell(a.Verb), mdCode(e.Raw), ctxText(e))
			}
		}
		b.WriteString("\n")
	}

	if len(r.UnknownVerbs) > 0 {
		b.WriteString("## Unknown verbs\n\n")
		if r.UnknownVerbsTotal > len(r.UnknownVerbs) {
			fmt.Fprintf(&b, "The %d most frequent of %d.\n\n", len(r.UnknownVerbs), r.UnknownVerbsTotal)
		}
		b.WriteString("| token | count | by model |\n|---|---:|---|\n")
		for _, t := range r.UnknownVerbs {
			fmt.Fprintf(&b, "| %s | %d | %s |\n", mdCode("/"+t.Token), t.Count, mdCell(countsText(t.ByModel)))
		}
		b.WriteString("\n")
	}

	b.WriteString("## dialect.toml\n\n")
	if r.Snippet == "" {
		b.WriteString("Nothing to add.\n")
	} else {
		b.WriteString("Paste into dialect.toml (or run `dialect report --apply`):\n\n```toml\n" + safeBlock(r.Snippet) + "```\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// safeBlock is safe for multi-line text: it keeps newlines.
func safeBlock(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = safe(l)
	}
	return strings.Join(lines, "\n")
}

func ctxText(e Example) string {
	var parts []string
	if e.Context != "" {
		parts = append(parts, "after “"+mdCell(e.Context)+"”")
	}
	if e.Model != "" {
		parts = append(parts, mdCell(e.Model))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
