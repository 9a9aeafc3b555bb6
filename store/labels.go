package store

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A block's and a message's labels are its tags (#release) and its project
// (*apollo). Every backend keeps them in one spelling: NFC, lower case,
// without the sigil; tags sorted and unique. A tag or project is one word:
// letters, digits, '_', '-', '.' and '/'.

// NormTags returns tags in the store's spelling: without '#', lower case,
// sorted and unique; anything that is not one word is left out.
func NormTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		if t = NormProject(strings.TrimPrefix(strings.TrimSpace(t), "#")); t != "" {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// NormProject returns a project (or one tag) in the store's spelling:
// without '*', lower case; "" when it is not one word.
func NormProject(p string) string {
	p = strings.ToLower(norm.NFC.String(strings.TrimPrefix(strings.TrimSpace(p), "*")))
	if p == "" || len(p) > 100 {
		return ""
	}
	for _, r := range p {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_-./", r) {
			return ""
		}
	}
	return p
}

// joinTags writes normalised tags as one column: " a b ", so that a tag is
// found as " tag " whatever its neighbours; "" for none.
func joinTags(tags []string) string {
	if len(tags) == 0 {
		return ""
	}
	return " " + strings.Join(tags, " ") + " "
}

// splitTags reads the column back; nil for none.
func splitTags(col string) []string {
	if strings.TrimSpace(col) == "" {
		return nil
	}
	return strings.Fields(col)
}

// Excerpt returns the start of text on one line, at most n runes, for a
// listing: whitespace runs become one space, and a cut is marked "…".
func Excerpt(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	r := []rune(text)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// MatchArgs reports whether a standing rule's argument pattern covers arg.
// The pattern is matched against the whole argument, ignoring case: '*'
// stands for any run of characters, '?' for one, and '\' makes the next
// character literal. "*" covers everything; QuoteArgs makes a pattern that
// covers exactly one argument. Matching takes time proportional to the
// product of the lengths at worst, whatever the pattern.
func MatchArgs(pattern, arg string) bool {
	p := []rune(strings.ToLower(pattern))
	s := []rune(strings.ToLower(arg))
	// The classic two-pointer glob: on a mismatch, go back to the last
	// '*' and let it take one more character. Only the last star needs
	// remembering, which bounds the work.
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		if pi < len(p) {
			switch c := p[pi]; {
			case c == '*':
				star, mark = pi, si
				pi++
				continue
			case c == '?':
				pi++
				si++
				continue
			case c == '\\' && pi+1 < len(p):
				if p[pi+1] == s[si] {
					pi += 2
					si++
					continue
				}
			case c == s[si]:
				pi++
				si++
				continue
			}
		}
		if star < 0 {
			return false
		}
		pi, mark = star+1, mark+1
		si = mark
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// QuoteArgs returns the pattern that covers exactly arg (ignoring case).
func QuoteArgs(arg string) string {
	var b strings.Builder
	for _, r := range arg {
		if r == '*' || r == '?' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// specificity is how many of a rule's fields are not "*": the more, the
// narrower the rule, and the narrower rule decides.
func (r Rule) specificity() int {
	n := 0
	for _, f := range []string{r.Agent, r.Verb, r.Op, r.Target, r.Args} {
		if f != "*" {
			n++
		}
	}
	return n
}

// Covers reports whether the rule covers action a.
func (r Rule) Covers(a Action) bool {
	eq := func(rule, v string) bool { return rule == "*" || rule == v }
	return eq(r.Agent, a.Agent) && eq(r.Verb, a.Verb) && eq(r.Op, a.Op) && eq(r.Target, a.Target) &&
		(r.Args == "*" || MatchArgs(r.Args, a.Args))
}

// Decides reports whether rule r takes precedence over rule o for an
// action both cover: the more specific first, then a denial, then the
// newer.
func (r Rule) Decides(o Rule) bool {
	if a, b := r.specificity(), o.specificity(); a != b {
		return a > b
	}
	if r.Decision != o.Decision {
		return r.Decision == Deny
	}
	return r.ID > o.ID
}

// String writes the rule on one line as the CLI's flags say it:
// `deny agent=worker verb=recall op=search target="" args=*`, with the
// note last. Values that are empty or hold spaces or quotes are quoted.
func (r Rule) String() string {
	q := func(s string) string {
		if s == "" || strings.ContainsAny(s, " \t\"'=\\") || strings.ContainsFunc(s, unicode.IsControl) {
			return strconv.Quote(s)
		}
		return s
	}
	s := fmt.Sprintf("%s agent=%s verb=%s op=%s target=%s args=%s", r.Decision, q(r.Agent), q(r.Verb), q(r.Op), q(r.Target), q(r.Args))
	if r.Note != "" {
		s += " note=" + strconv.Quote(r.Note)
	}
	return s
}
