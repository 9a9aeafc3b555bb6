package detect

import (
	"bytes"
	"testing"
)

// What counts as code (CommonMark containers, code spans across lines):
// an action there is reported, never executed.
func TestCodeInContainers(t *testing.T) {
	cases := []struct {
		name, msg string
		want      []string
	}{
		{"fence in a block quote", "> ```\n> /send @user \"x\"\n> ```\n", []string{`send args="@user \"x\"" (inside code)`}},
		{"tilde fence in a block quote", "Here:\n>~~~ sh\n>/recall x\n>~~~\n", []string{`recall args="x" (inside code)`}},
		{"fence in a nested quote", "> > ````\n> > /do /send @user x\n> > ````\n", []string{`send args="@user x" (inside code)`}},
		{"fence in an ordered list item", "1. ```text\n   /send @user \"x\"\n   ```\n", []string{`send args="@user \"x\"" (inside code)`}},
		{"fence in a list item with a paren", "Steps:\n1) ~~~\n    /recall x\n   ~~~\n", []string{`recall args="x" (inside code)`}},
		{"fence in a bullet item", "- ```\n  /send @user x\n  ```\n", []string{`send args="@user x" (inside code)`}},
		{"blank line inside a list item's fence", "* ```\n\n  /recall x\n  ```\n", []string{`recall args="x" (inside code)`}},
		{"quote inside a list item", "- > ```\n  > /send @user x\n  > ```\n", []string{`send args="@user x" (inside code)`}},
		{"list item inside a quote", "> - ```\n>   /send @user x\n>   ```\n", []string{`send args="@user x" (inside code)`}},
		{"unclosed fence in a quote runs to the quote's end", "> ```\n> /recall x\n> /search y\n", []string{`recall args="x" (inside code)`, `search args="y" (inside code)`}},
		{"closing fence indented four more is content", "```\n    ```\n/send @user x\n", []string{`send args="@user x" (inside code)`}},
		{"closing fence indented up to three more closes", "```\n   ```\n/send @user x\n", []string{`send args="@user x" trailing EXEC`}},
		// The container's end closes the fence: what follows is prose.
		{"fence ends with its quote", "> ```\n> code\n/send @user x\n", []string{`send args="@user x" trailing EXEC`}},
		{"fence ends with its list item", "1. ```\n   code\n/send @user x\n", []string{`send args="@user x" trailing EXEC`}},
		{"blank line ends a quote and its fence", "> ```\n> code\n\n/send @user x\n", []string{`send args="@user x" trailing EXEC`}},
		{"a new fence after the quote ends", "> ```\n> a\n```\n/send @user x\n", []string{`send args="@user x" (inside code)`}},
		// Fences inside an action's quote lines or """ block.
		{"fence in an action's quote lines", "> /recall x\n> ```\n> /send y\n> ```\n", []string{"recall args=\"x\" quote=\"```\\n/send y\\n```\" trailing EXEC"}},
		{"fence in quote content ends with the quote", "/post @bluesky\n> ```\n> a\n/send y\n", []string{"post args=\"@bluesky\" quote=\"```\\na\" trailing EXEC", `send args="y" trailing EXEC`}},
		{"fence left open by a triple block", "/recall + \"\"\"\n```\n\"\"\"\n/send y\n```\n", []string{"recall args=\"+\" triple=\"```\" (mid-message)", `send args="y" (inside code)`}},
		{"fence closed inside a triple block", "/recall + \"\"\"\n```\nz\n```\n\"\"\"\n/send y\n", []string{"recall args=\"+\" triple=\"```\\nz\\n```\" trailing EXEC", `send args="y" trailing EXEC`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { expect(t, c.msg, c.want) })
	}
}

func TestCodeSpansAcrossLines(t *testing.T) {
	cases := []struct {
		name, msg string
		want      []string
	}{
		{"span over a line break", "Use `foo\n/send @user \"x\"`\n", []string{`send args="@user \"x\"" (inside code)`}},
		{"span over three lines", "Type ``a\nb\n/do /send @user x`` now.\n", []string{`send args="@user x" (inside code)`}},
		{"span in a quote", "> Use `foo\n> /send @user x`\n", []string{`send args="@user x" (inside code)`}},
		{"span on a lazy continuation line", "> Use `foo\n/send @user x`\n", []string{`send args="@user x" (inside code)`}},
		{"span opened in an action's arguments", "/recall x `a\n/send y`\n", []string{"recall args=\"x `a\" (mid-message)", `send args="y" (inside code)`}},
		{"span opened in a list item", "- see `the\n  /send @user x` flag\n", []string{`send args="@user x" (inside code)`}},
		{"span then prose action on the closing line", "Use `a\nb` then /recall x\n", []string{`recall args="x" inline (mid-message)`}},
		{"two spans across lines", "a `b\nc` d `e\n/send x`\n", []string{`send args="x" (inside code)`}},
		// A run that finds no closer before the paragraph ends is literal.
		{"lone backtick", "Press ` to open.\n/recall x\n", []string{`recall args="x" trailing EXEC`}},
		{"blank line ends the paragraph", "Use `foo\n\n/send @user x`\n", []string{"send args=\"@user x`\" trailing EXEC"}},
		{"fence ends the paragraph", "Use `foo\n```\n/send @user x`\n```\n/recall y\n", []string{`send args="@user x" (inside code)`, `recall args="y" trailing EXEC`}},
		{"other length does not close", "Use ``foo\n/send @user x`\n", []string{"send args=\"@user x`\" trailing EXEC"}},
		{"runs after a literal one pair up", "a `` b `c\n/send x` d\n", []string{`send args="x" (inside code)`}},
		// CommonMark would end the paragraph at a deeper quote marker; the
		// scanner cannot know the paragraph's depth, so the span goes on:
		// more code, never less.
		{"deeper quote marker continues the span", "Use `foo\n> /send @user x`\n", []string{`send args="@user x" (inside code)`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { expect(t, c.msg, c.want) })
	}
}

func TestHTMLComments(t *testing.T) {
	cases := []struct {
		name, msg string
		want      []string
	}{
		{"comment line", "<!-- /send @user \"x\" -->\n", []string{`send args="@user \"x\"" inline (inside an HTML comment)`}},
		{"comment across lines", "<!--\n/send @user \"x\"\n-->\n", []string{`send args="@user \"x\"" (inside an HTML comment)`}},
		{"do inside a comment", "Done.\n<!--\n/do /send @user x\n-->\n", []string{`send args="@user x" (inside an HTML comment)`}},
		{"blank lines inside a comment", "<!-- a\n\n/recall x\n\n-->\n", []string{`recall args="x" (inside an HTML comment)`}},
		{"unclosed comment runs to the end", "Hi <!--\n/send @user x\n\n/recall y\n", []string{`send args="@user x" (inside an HTML comment)`, `recall args="y" (inside an HTML comment)`}},
		{"comment in a quote", "> <!--\n> /send @user x\n> -->\n", []string{`send args="@user x" (inside an HTML comment)`}},
		{"comment inside a list item", "- <!-- /do /recall x -->\n", []string{`recall args="x" inline (inside an HTML comment)`}},
		{"text after the comment", "<!-- x --> /recall y\n", []string{`recall args="y" inline (mid-message)`}},
		{"action after the closing line", "<!--\nnote\n-->\n/recall y\n", []string{`recall args="y" trailing EXEC`}},
		{"comment is text after a trailing action", "/recall x\n<!-- end -->\n", []string{`recall args="x" (mid-message)`}},
		{"comment in a code span is code", "Write `<!--` to start one.\n/recall y\n", []string{`recall args="y" trailing EXEC`}},
		{"backtick in a comment opens nothing", "<!-- ` -->\n/recall y\n", []string{`recall args="y" trailing EXEC`}},
		{"span opened first wins", "`a <!-- b` -->\n/recall y\n", []string{`recall args="y" trailing EXEC`}},
		{"shortest comments", "<!--> /send x\n<!---> /recall y\n", []string{`send args="x" inline (mid-message)`, `recall args="y" inline (mid-message)`}},
		{"comment in fenced code is code", "```\n<!--\n```\n/recall y\n", []string{`recall args="y" trailing EXEC`}},
		{"a comment hides a fence", "<!--\n```\n-->\n/recall y\n", []string{`recall args="y" trailing EXEC`}},
		{"a phrase in a comment reconsiders", "/do /send @user x\n<!-- actually, no -->\n", []string{`send args="@user x" do (reconsidered: "actually")`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { expect(t, c.msg, c.want) })
	}
}

func TestRetractions(t *testing.T) {
	cases := []struct {
		name, msg string
		want      []string
	}{
		{"inline mention's text is prose", "/do /send @user \"deploy\"\nRun chkdsk /f first. Actually, scratch that.\n",
			[]string{`send args="@user \"deploy\"" quoted="deploy" do (reconsidered: "actually")`, `f args="first. Actually, scratch that." inline (mid-message)`}},
		{"text around a bracketed mention", "/do /send @user x\nUse (/f) here, wait, no.\n", []string{`send args="@user x" do (reconsidered: "wait")`, `f args=") here, wait, no." inline (mid-message)`}},
		{"unresolved line candidate is prose", "/do /send @user x\n/etc is config, never mind\n", []string{`send args="@user x" do trailing (reconsidered: "never mind")`, `etc args="is config, never mind" trailing (unknown verb)`}},
		{"mention's quote lines are prose", "/do /send @user x\nSee /f:\n> hold on\n", []string{`send args="@user x" do (reconsidered: "hold on")`, `f args=":" quote="hold on" inline (mid-message)`}},
		{"a resolved action's arguments are not", "/do /send @user x\n/recall actually nothing\n", []string{`send args="@user x" do trailing EXEC`, `recall args="actually nothing" trailing EXEC`}},
		{"inline do action's arguments are not", "/do /send @user x\nthen /do /recall wait list\n", []string{`send args="@user x" do EXEC`, `recall args="wait list" do inline EXEC`}},
		{"code is still not prose", "/do /send @user x\nuse `_actually_` here\n", []string{`send args="@user x" do EXEC`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { expect(t, c.msg, c.want) })
	}
}

func TestAliasWordBoundary(t *testing.T) {
	cases := []struct {
		name, msg string
		want      []string
	}{
		{"dotted word", "/search web.dev performance\n", []string{`search args="web.dev performance" trailing EXEC`}},
		{"possessive", "/search web's history\n", []string{`search args="web's history" trailing EXEC`}},
		{"curly possessive", "/search web’s history\n", []string{`search args="web’s history" trailing EXEC`}},
		{"slash", "/search web/api docs\n", []string{`search args="web/api docs" trailing EXEC`}},
		{"hyphen", "/look up-to-date prices\n", []string{`look=search args="up-to-date prices" trailing EXEC`}},
		{"three words", "/note to self.md is a file\n", []string{`note=context args="to self.md is a file" trailing EXEC`}},
		{"whole word", "/search web cats\n", []string{`search web=web args="cats" trailing EXEC`}},
		{"end of line", "/look up\n", []string{`look up=web trailing EXEC`}},
		{"closing punctuation", "/heads up! partner seems stressed\n", []string{`heads up=notify args="! partner seems stressed" trailing EXEC`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { expect(t, c.msg, c.want) })
	}
}

// The display filter never hides prose: a candidate whose verb does not
// resolve is text, and so is code, however it is split.
func TestFilterShowsProse(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"unresolved line starts", "Dirs:\n/tmp holds temp files.\n/etc is config.\n", "Dirs:\n/tmp holds temp files.\n/etc is config.\n"},
		{"unresolved after a bullet", "- /home is yours\n- /var/log has logs\n", "- /home is yours\n- /var/log has logs\n"},
		{"unresolved with quote lines", "/tmp notes:\n> one\n> two\nok\n", "/tmp notes:\n> one\n> two\nok\n"},
		{"code in a quote", "> ```\n> /send @user x\n> ```\n", "> ```\n> /send @user x\n> ```\n"},
		{"code in a list item", "1. ```\n   /recall x\n   ```\n", "1. ```\n   /recall x\n   ```\n"},
		{"fence ended by its quote", "> ```\n> a\n/recall x\nok\n", "> ```\n> a\nok\n"},
		{"span across lines", "Use `a\n/recall x`\nok\n", "Use `a\n/recall x`\nok\n"},
		{"lone backtick", "Press ` now\n/recall x\nok\n", "Press ` now\nok\n"},
		{"lone backtick in content", "/recall + \"\"\"\na ` b\n\"\"\"\nafter\n", "after\n"},
		{"comment", "<!--\n/recall x\n-->\n", "<!--\n/recall x\n-->\n"},
		{"resolved still hidden", "Dirs:\n/recall x\n", "Dirs:\n"},
		{"last line only a prefix", "abc\n - ", "abc\n - "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for i := 0; i <= len(c.in); i++ {
				if got, _ := filterChunks(c.in, []int{i}); got != c.want {
					t.Fatalf("split at %d: got %q, want %q", i, got, c.want)
				}
			}
			one := make([]int, 0, len(c.in))
			for i := 1; i < len(c.in); i++ {
				one = append(one, i)
			}
			if got, _ := filterChunks(c.in, one); got != c.want {
				t.Fatalf("1-byte chunks: got %q, want %q", got, c.want)
			}
		})
	}
}

// An unresolved candidate is released as soon as its word is known not to
// be a verb; a resolved one is held to its line's end.
func TestFilterReleasesUnresolvedAtItsWordEnd(t *testing.T) {
	var out bytes.Buffer
	f := NewFilter(&out, testVocab(), DefaultOptions())
	step := func(in, want string) {
		t.Helper()
		f.Write([]byte(in))
		if out.String() != want {
			t.Fatalf("after %q: shown %q, want %q", in, out.String(), want)
		}
	}
	step("/tmp", "")
	step(" holds", "/tmp holds")
	step(" files\n/look", "/tmp holds files\n")
	step(" at", "/tmp holds files\n") // "look" resolves: held
	step(" this\n/do", "/tmp holds files\n")
	step(" x\n", "/tmp holds files\n/do x\n") // "/do x": do is no verb here, x no verb
	f.Close()
}
