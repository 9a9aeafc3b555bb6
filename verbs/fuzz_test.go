package verbs

import (
	"context"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/pattern-dialect/dialect/intent"
)

// FuzzParse feeds untrusted argument text to every built-in verb: parsing
// must not panic, must fail only with a *ParseError whose column lies in
// the arguments, and every intent must survive a JSON round trip.
func FuzzParse(f *testing.F) {
	for _, a := range benchActions {
		f.Add(a.verb, a.in.Args, "")
	}
	for _, s := range []string{`+ "unterminated`, `-`, `@`, `"" -> ""`, `a="b c" __proto__=1`, `in archivs`, `> 0 weeks`,
		`zw0 zq1 -> zq2`, `@[x] #t @7d ^9 *p &f role:user`, "caf\u0065\u0301 \xff", `+"glued"`, `-name`, `>2 weeks`,
		`-_x`, `-2024_notes`, `human "old" -> "new" "extra"`, `replace in h "a" with b "c"`,
		`history plan`, `read plan v2`, `restore "a b" to version 3`, `restore x v0`, `+ "a" #t *p`, `x &jsno`, `@last.output v2`} {
		f.Add("recall", s, "x")
		f.Add("search", s, "")
		f.Add("context", s, "")
	}
	r := mustRegistry(f, nil, nil)
	verbs := []string{}
	for _, v := range r.Verbs() {
		verbs = append(verbs, v.Name)
	}
	f.Fuzz(func(t *testing.T, verb, args, content string) {
		if r.Verb(verb) == nil {
			verb = verbs[len(verb)%len(verbs)]
		}
		in, err := r.Parse(context.Background(), verb, Input{Args: args, Content: content, Kind: Fenced, Marker: "!", Blocks: testBlocks})
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("/%s %q: untyped error %v", verb, args, err)
			}
			if pe.Pos < 0 || pe.Pos > utf8.RuneCountInString(args)+1 || pe.Message == "" {
				t.Fatalf("/%s %q: bad error %+v", verb, args, pe)
			}
			return
		}
		b, err := intent.Marshal(in)
		if err != nil {
			t.Fatalf("/%s %q: %v", verb, args, err)
		}
		if _, err := intent.Decode(b); err != nil {
			t.Fatalf("/%s %q: %s does not decode: %v", verb, args, b, err)
		}
	})
}

// FuzzLabels: whatever the text, labels come out in the filters'
// spelling: lower case, one word each, sorted and unique.
func FuzzLabels(f *testing.F) {
	for _, s := range []string{"shipped #release *apollo", "#A #a #b. *x* *Y", "# x #1 *1 **", "#ünï #a/b.c *z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tags, project := Labels(text)
		for i, tag := range tags {
			if tag == "" || tag != label(tag) || i > 0 && tags[i-1] >= tag {
				t.Fatalf("Labels(%q) tags = %q", text, tags)
			}
		}
		if project != "" && project != label(project) {
			t.Fatalf("Labels(%q) project = %q", text, project)
		}
	})
}
