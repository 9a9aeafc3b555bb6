package verbs

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Labels returns the tags (#release) and the project (*apollo, the first
// one) written in text: words that start with '#' or '*' at a word
// boundary, in the filters' spelling (lower case, without the sigil or
// trailing punctuation). "*bold*" is emphasis, not a project; "# heading"
// and "C#" are no tags.
func Labels(text string) (tags []string, project string) {
	for _, w := range strings.Fields(text) {
		if len(w) < 2 || (w[0] != '#' && w[0] != '*') {
			continue
		}
		if w[0] == '*' && strings.HasSuffix(strings.TrimRight(w, ".,;:!?)\"'"), "*") {
			continue
		}
		body := label(w[1:])
		if body == "" {
			continue
		}
		if w[0] == '#' {
			tags = append(tags, body)
		} else if project == "" && isLetter(body) {
			project = body
		}
	}
	return normLabels(tags), project
}

// label is one tag or project word in the filters' spelling, or "" when w
// is not one: letters, digits, '_', '-', '.' and '/', starting with a
// letter or digit.
func label(w string) string {
	w = strings.ToLower(norm.NFC.String(strings.TrimRight(w, ".,;:!?)\"'")))
	if w == "" || !isWordRune(w) || len(w) > 100 {
		return ""
	}
	for _, r := range w {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_-./", r) {
			return ""
		}
	}
	return w
}

// normLabels spells tags as labels, sorted and unique.
func normLabels(tags []string) []string {
	var out []string
	for _, t := range tags {
		if t = label(t); t != "" {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
