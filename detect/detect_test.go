package detect

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The six examples of docs/language.md §2, each one whole message.
func TestDialectExamples(t *testing.T) {
	cases := []struct {
		name, msg string
		want      []string
	}{
		{"trailing", "Let me check what we discussed.\n/recall project deadlines\n",
			[]string{`recall args="project deadlines" trailing EXEC`}},
		{"reconsidered", "Let me check that.\n/recall project deadlines\nActually wait, you just told me.\n",
			[]string{`recall args="project deadlines" (reconsidered: "actually")`}},
		{"do marker", "/do /recall project deadlines\nI'll keep talking while that runs.\n",
			[]string{`recall args="project deadlines" do EXEC`}},
		{"mid-message", "I could /recall the notes but let's think first...\n",
			[]string{`recall args="the notes but let's think first..." inline (mid-message)`}},
		{"do reconsidered", "/do /recall project deadlines\nHmm, scratch that, wrong label.\n",
			[]string{`recall args="project deadlines" do (reconsidered: "scratch that")`}},
		{"trailing run", "Let me gather some context.\n/recall project notes\n/search conversations about deadline\n",
			[]string{`recall args="project notes" trailing EXEC`, `search args="conversations about deadline" trailing EXEC`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { expect(t, c.msg, c.want) })
	}
}

func expect(t *testing.T, msg string, want []string) {
	t.Helper()
	got := briefs(scanString(msg))
	if len(want) == 0 {
		want = []string{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("message %q\n got: %s\nwant: %s", msg, strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
	checkSplits(t, msg)
}

// Every row of the "never actions" table, and near misses that are actions.
// A resolved verb in code is reported, never executed.
func TestNeverActions(t *testing.T) {
	cases := []struct {
		name, msg string
		want      []string
	}{
		{"fenced backticks", "Example:\n```\n/recall x\n```\n", []string{`recall args="x" (inside code)`}},
		{"fenced tildes with info", "Example:\n~~~ sh\n/recall x\n~~~\n", []string{`recall args="x" (inside code)`}},
		{"fence closes only with same char", "Text.\n```\n~~~\n/recall x\n````\n", []string{`recall args="x" (inside code)`}},
		{"fence closes only when as long", "Text.\n````go\n```\n/recall x\n````\nafter\n", []string{`recall args="x" (inside code)`}},
		{"indented fence is still a fence", "Text.\n    ```\n    /recall x\n    ```\n", []string{`recall args="x" (inside code)`}},
		{"unclosed fence runs to the end", "Text.\n```\n/recall x\n", []string{`recall args="x" (inside code)`}},
		{"inline code", "Use `/recall x` to remember.\n", []string{`recall args="x" inline (inside code)`}},
		{"inline code double backticks", "Use ``a ` /recall x`` here.\n", []string{`recall args="x" inline (inside code)`}},
		{"a/b", "a/b and/or 1/2\n", nil},
		{"url", "see https://x.y/recall now\n", nil},
		{"path slash", "/usr/bin/env python\n", nil},
		{"path api", "/api/v1 is the base\n", nil},
		{"path file", "/index.html\n", nil},
		{"path line number", "/etc/hosts:3\n", nil},
		{"escaped", "\\/recall x\n", nil},
		{"digit", "/2 of them\n", nil},
		{"dash", "/-x flag\n", nil},
		{"glued to a word", "either/recall\n", nil},
		{"after a quote mark", "type \"/recall\" to try\n", nil},
		// Near misses that are actions.
		{"colon and space is not a path", "/recall: deadlines\n", []string{`recall args=": deadlines" trailing EXEC`}},
		{"full stop without letter is not a path", "/recall.\n", []string{`recall args="." trailing EXEC`}},
		{"unmatched backtick is literal", "a ` b\n/recall x\n", []string{`recall args="x" trailing EXEC`}},
		{"after bracket", "(/recall x)\n", []string{`recall args="x)" inline (mid-message)`}},
		{"after square bracket", "[/recall x]\n", []string{`recall args="x]" inline (mid-message)`}},
		{"unicode letters", "/ρecall x\n", []string{`ρecall args="x" trailing (unknown verb)`}},
		{"unicode space before", "go\u00a0/recall x\n", []string{`recall args="x" inline (mid-message)`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { expect(t, c.msg, c.want) })
	}
}

// Every bullet of the detect scope.
func TestDetectRules(t *testing.T) {
	cases := []struct {
		name, msg string
		want      []string
	}{
		// Line starts and token boundaries.
		{"indented", "  /recall x\n", []string{`recall args="x" trailing EXEC`}},
		{"dash bullet", "- /recall x\n", []string{`recall args="x" trailing EXEC`}},
		{"star bullet", "* /recall x\n", []string{`recall args="x" trailing EXEC`}},
		{"numbered bullet", "1. /recall x\n", []string{`recall args="x" trailing EXEC`}},
		{"quote marker", "> /recall x\n", []string{`recall args="x" trailing EXEC`}},
		{"inline after text", "so /recall x\n", []string{`recall args="x" inline (mid-message)`}},
		{"second sigil is argument text", "/recall a /search b\n", []string{`recall args="a /search b" trailing EXEC`}},
		{"case-insensitive verb", "/ReCaLL x\n", []string{`ReCaLL=recall args="x" trailing EXEC`}},
		{"hyphen verb", "/look-up x\n", []string{`look-up args="x" trailing (unknown verb)`}},
		{"crlf", "Hi.\r\n/recall x\r\n", []string{`recall args="x" trailing EXEC`}},
		{"no final newline", "Hi.\n/recall x", []string{`recall args="x" trailing EXEC`}},
		// Multi-word aliases, longest match.
		{"jot down", "/jot down milk\n", []string{`jot down=recall args="milk" trailing EXEC`}},
		{"note to self", "/note to self buy milk\n", []string{`note to self=recall args="buy milk" trailing EXEC`}},
		{"note alone", "/note todo\n", []string{`note=context args="todo" trailing EXEC`}},
		{"note to something else", "/note to bob\n", []string{`note=context args="to bob" trailing EXEC`}},
		{"look up beats look", "/look up the weather\n", []string{`look up=web args="the weather" trailing EXEC`}},
		{"look alone", "/look at this\n", []string{`look=search args="at this" trailing EXEC`}},
		{"search web", "/search web cats\n", []string{`search web=web args="cats" trailing EXEC`}},
		{"heads up", "/Heads  Up partner seems stressed\n", []string{`Heads  Up=notify args="partner seems stressed" trailing EXEC`}},
		{"unknown verb", "/frobnicate x\n", []string{`frobnicate args="x" trailing (unknown verb)`}},
		// The /do marker in both forms, anywhere.
		{"do slash", "/do /recall x\nmore text\n", []string{`recall args="x" do EXEC`}},
		{"do bare", "/do recall x\nmore text\n", []string{`recall args="x" do EXEC`}},
		{"do inline", "I will /do /search x right now.\nMore.\n", []string{`search args="x right now." do inline EXEC`}},
		{"do alone", "/do\n", []string{`do trailing (unknown verb)`}},
		{"do uppercase", "/DO /recall x\nok\n", []string{`recall args="x" do EXEC`}},
		// Trailing runs.
		{"not trailing with prose after", "/recall x\nThat's all.\n", []string{`recall args="x" (mid-message)`}},
		{"blank lines keep a run", "Hi.\n/recall x\n\n\n/search y\n\n", []string{`recall args="x" trailing EXEC`, `search args="y" trailing EXEC`}},
		{"prose breaks a run", "/recall x\nand\n/search y\n", []string{`recall args="x" (mid-message)`, `search args="y" trailing EXEC`}},
		{"code after breaks a run", "/recall x\n\n```\ncode\n```\n", []string{`recall args="x" (mid-message)`}},
		{"inline action breaks a run", "/recall x\nthen /search y\n", []string{`recall args="x" (mid-message)`, `search args="y" inline (mid-message)`}},
		// Reconsideration.
		{"reconsider curly apostrophe", "/do /recall x\nI don’t need it.\n", []string{`recall args="x" do (reconsidered: "don't need")`}},
		{"reconsider missing apostrophe", "/do /recall x\nI dont need it.\n", []string{`recall args="x" do (reconsidered: "don't need")`}},
		{"reconsider case", "/do /recall x\nNEVER   MIND.\n", []string{`recall args="x" do (reconsidered: "never mind")`}},
		{"reconsider no comma", "/do /recall x\nNo, not that.\n", []string{`recall args="x" do (reconsidered: "no,")`}},
		{"not reconsidered by await", "/do /recall x\nawait Savannah piano, known, nowait\n", []string{`recall args="x" do EXEC`}},
		{"not reconsidered by own args", "/do /recall actually wait\nok\n", []string{`recall args="actually wait" do EXEC`}},
		{"not reconsidered by later args", "/do /recall x\n/search never mind\n", []string{`recall args="x" do trailing EXEC`, `search args="never mind" trailing EXEC`}},
		{"not reconsidered by code", "/do /recall x\n\n```\nwait()\n```\nuse `nope` here\n", []string{`recall args="x" do EXEC`}},
		{"reconsidered before not after", "Actually, let me look.\n/recall x\n", []string{`recall args="x" trailing EXEC`}},
		{"reconsider before inline do", "/do /recall x\nwait, /do /search y\n", []string{`recall args="x" do (reconsidered: "wait")`, `search args="y" do inline EXEC`}},
		// Cancel.
		{"trailing cancel", "/recall x\n/search y\n/cancel\n", []string{`recall args="x" trailing (cancelled)`, `search args="y" trailing (cancelled)`, `cancel trailing EXEC`}},
		{"cancel alias", "/do /recall x\nok then\n/abort\n", []string{`recall args="x" do (cancelled)`, `abort=cancel trailing EXEC`}},
		{"cancel with id", "/recall x\n/cancel 12\n", []string{`recall args="x" trailing EXEC`, `cancel args="12" trailing EXEC`}},
		{"mid-message cancel does nothing", "/do /recall x\n/cancel\nmore prose\n", []string{`recall args="x" do EXEC`, `cancel (mid-message)`}},
		{"do cancel mid-message", "/recall x\n/do /cancel\nok, moving on\n", []string{`recall args="x" (mid-message)`, `cancel do EXEC`}},
		{"do cancel cancels do actions", "/do /search x\nhm\n/do /cancel\nok\n", []string{`search args="x" do (cancelled)`, `cancel do EXEC`}},
		{"reconsidered cancel does nothing", "/do /search x\n/do /cancel\nactually, go ahead\n", []string{`search args="x" do (reconsidered: "actually")`, `cancel do (reconsidered: "actually")`}},
		{"last cancel counts", "/recall a\n/cancel\n/search b\n/stop\n", []string{`recall args="a" trailing (cancelled)`, `cancel trailing (cancelled)`, `search args="b" trailing (cancelled)`, `stop=cancel trailing EXEC`}},
		{"cancel with marker only", "/recall a\n/cancel !\n", []string{`recall args="a" trailing (cancelled)`, `cancel marker=! trailing EXEC`}},
		{"actions after cancel unaffected", "/recall x\n/cancel\n/search y\n", []string{`recall args="x" trailing (cancelled)`, `cancel trailing EXEC`, `search args="y" trailing EXEC`}},
		// Arguments and content blocks.
		{"quoted", "/recall + \"say \\\"hi\\\" \\\\ bye\"\n", []string{`recall args="+ \"say \\\"hi\\\" \\\\ bye\"" quoted="say \"hi\" \\ bye" trailing EXEC`}},
		{"unterminated quote is plain args", "/recall + \"abc\n", []string{`recall args="+ \"abc" trailing EXEC`}},
		{"triple multi-line", "/recall + \"\"\"\nline 1\n/search not an action\n\"\"\"\n", []string{`recall args="+" triple="line 1\n/search not an action" trailing EXEC`}},
		{"triple one line", "/recall + \"\"\"abc\"\"\" .\n", []string{`recall args="+" triple="abc" marker=. trailing EXEC`}},
		{"triple first line text", "/recall + \"\"\"abc\ndef\"\"\"\n", []string{`recall args="+" triple="abc\ndef" trailing EXEC`}},
		{"triple unterminated", "/recall + \"\"\"\nabc\n", []string{`recall args="+" triple="abc\n" trailing (unterminated content)`}},
		{"fence on action line", "/recall patch notes ```diff\n-a\n+b\n```\n", []string{`recall args="patch notes" fenced="-a\n+b\n" trailing EXEC`}},
		{"fence on next line", "/recall patch notes\n~~~\n/x\n~~~\n", []string{`recall args="patch notes" fenced="/x\n" trailing EXEC`}},
		{"fence after blank line is code", "/recall notes\n\n```\nx\n```\n", []string{`recall args="notes" (mid-message)`}},
		{"crlf content", "/recall patch\r\n```\r\n-a\r\n```\r\n", []string{`recall args="patch" fenced="-a\n" trailing EXEC`}},
		{"fence closes only when long enough", "/recall x\n````\n```\n````\n", []string{"recall args=\"x\" fenced=\"```\\n\" trailing EXEC"}},
		{"unclosed fenced content runs to the end", "/recall x\n```\na\nb", []string{`recall args="x" fenced="a\nb\n" trailing EXEC`}},
		{"quote lines", "/post @bluesky\n> line one\n>line two\nprose\n", []string{`post args="@bluesky" quote="line one\nline two" (mid-message)`}},
		{"quote lines keep trailing", "/post @bluesky\n> line one\n", []string{`post args="@bluesky" quote="line one" trailing EXEC`}},
		{"quoted action is not content", "/recall a\n> /search b\n", []string{`recall args="a" trailing EXEC`, `search args="b" trailing EXEC`}},
		// Permission markers.
		{"marker dot", "/recall x .\n", []string{`recall args="x" marker=. trailing EXEC`}},
		{"marker question", "/search what is due ?\n", []string{`search args="what is due" marker=? trailing EXEC`}},
		{"glued question is content", "/search what is due?\n", []string{`search args="what is due?" trailing EXEC`}},
		{"marker ask", "/send @user hi ?ask\n", []string{`send args="@user hi" marker=?ask trailing EXEC`}},
		{"marker bang", "/halt \"reason\" !\n", []string{`halt args="\"reason\"" quoted="reason" marker=! trailing EXEC`}},
		{"marker flag", "/post hello ?Public\n", []string{`post args="hello" marker=?Public trailing EXEC`}},
		{"marker invalid", "/post hello ?akc\n", []string{`post args="hello" marker=?akc trailing (invalid permission marker "?akc")`}},
		{"marker only", "/cancel .\n", []string{`cancel marker=. trailing EXEC`}},
		// Chains.
		{"chain", "/a x -> /b y -> /c\n", []string{`a args="x" chain="/b y -> /c" trailing (unknown verb)`}},
		{"chain with marker", "/recall x ! -> /search y\n", []string{`recall args="x" marker=! chain="/search y" trailing EXEC`}},
		{"arrow without sigil", "/context human \"old\" -> \"new\"\n", []string{`context args="human \"old\" -> \"new\"" quoted="new" trailing EXEC`}},
		{"arrow inside quotes", "/recall \"a -> /b\"\n", []string{`recall args="\"a -> /b\"" quoted="a -> /b" trailing EXEC`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { expect(t, c.msg, c.want) })
	}
}

func TestSpans(t *testing.T) {
	msg := "Hi there.\n  - /do /recall x\nmore é /search y\n/recall + \"\"\"\nz\n\"\"\"\n"
	as := scanString(msg)
	if len(as) != 3 {
		t.Fatalf("got %d actions, want 3: %v", len(as), briefs(as))
	}
	want := []Span{
		{Start: 14, End: 27, Line: 2, Col: 5},
		{Start: 36, End: 45, Line: 3, Col: 8},
		{Start: 46, End: 65, Line: 4, Col: 1},
	}
	for i, a := range as {
		if a.Span != want[i] {
			t.Errorf("action %d (%s): span %+v, want %+v", i, a.Token, a.Span, want[i])
		}
		if got := msg[a.Span.Start:a.Span.End]; !strings.HasPrefix(got, "/") {
			t.Errorf("action %d: span text %q does not start with the sigil", i, got)
		}
	}
	if got := msg[as[2].Span.Start:as[2].Span.End]; got != "/recall + \"\"\"\nz\n\"\"\"" {
		t.Errorf("content action span text %q", got)
	}
	// An unclosed block runs to the end of the message.
	for _, msg := range []string{"/recall x\n```\na\nb\n", "/recall + \"\"\"\na\nb\n", "/recall x\n~~~\na\r\nb"} {
		as := scanString(msg)
		if len(as) != 1 || strings.TrimRight(msg[as[0].Span.End:], "\r\n") != "" || as[0].Span.End == len(msg) && msg[len(msg)-1] == '\n' {
			t.Errorf("%q: span %+v", msg, as[0].Span)
		}
	}
}

func TestTooLarge(t *testing.T) {
	opt := DefaultOptions()
	opt.MaxActionSize = 16
	for _, msg := range []string{
		"/recall " + strings.Repeat("a", 17) + "\n",
		"/recall +\n```\n" + strings.Repeat("line\n", 100) + "```\n",
		"/recall + \"\"\"\n" + strings.Repeat("line\n", 100000),
	} {
		as := Scan(testVocab(), opt, []byte(msg))
		if len(as) != 1 || as[0].Reason != TooLarge || as[0].Reason.Code() != "INPUT_TOO_LARGE" {
			t.Fatalf("%.40q: got %v", msg, briefs(as))
		}
		if len(as[0].Content) > 16 || len(as[0].Args) > 16 {
			t.Errorf("content not truncated: %d bytes", len(as[0].Content))
		}
	}
}

func TestCustomPhrasesAndFlags(t *testing.T) {
	opt := DefaultOptions()
	opt.Reconsideration = []string{"hmm let's not", "ça suffit"}
	opt.PermissionFlags = []string{"team"}
	v := testVocab()
	as := Scan(v, opt, []byte("/do /recall x\nActually fine. Hmm let’s  NOT.\n"))
	if len(as) != 1 || as[0].Phrase != "hmm let's not" {
		t.Errorf("custom phrase: %v", briefs(as))
	}
	as = Scan(v, opt, []byte("/do /recall x\nÇA SUFFIT\n"))
	if len(as) != 1 || as[0].Reason != Reconsidered {
		t.Errorf("non-ASCII phrase: %v", briefs(as))
	}
	as = Scan(v, opt, []byte("/post x ?team\n/post y ?public\n"))
	if len(as) != 2 || !as[0].Executable || as[1].Reason != InvalidMarker {
		t.Errorf("custom flags: %v", briefs(as))
	}
}

func TestReasonStrings(t *testing.T) {
	for r, want := range map[Reason]string{
		MidMessage: "mid-message", Reconsidered: "reconsidered", Cancelled: "cancelled",
		UnknownVerb: "unknown verb", InvalidMarker: "invalid permission marker",
		TooLarge: "too large", Unterminated: "unterminated content", NoReason: "",
	} {
		if r.String() != want {
			t.Errorf("%d: %q, want %q", r, r.String(), want)
		}
	}
	if MidMessage.Failure() || Reconsidered.Failure() || !UnknownVerb.Failure() {
		t.Error("Failure classifies decisions and failures wrongly")
	}
}

func TestWriteAfterClose(t *testing.T) {
	s := NewScanner(testVocab(), DefaultOptions())
	s.Write([]byte("/recall x"))
	s.Close()
	if _, err := s.Write([]byte("more")); err != ErrClosed {
		t.Errorf("Write after Close: %v, want ErrClosed", err)
	}
	s.Reset()
	s.Write([]byte("/search y\n"))
	s.Close()
	if as := s.Actions(); len(as) != 1 || as[0].Verb != "search" {
		t.Errorf("after Reset: %v", briefs(as))
	}
}

// TestPathologicalLines: inputs that make naive scanners quadratic (many
// unmatched backtick runs of different lengths, many sigils among code
// spans, many fence-like runs in arguments) are handled; a quadratic
// implementation would not finish within the test timeout.
func TestPathologicalLines(t *testing.T) {
	var b strings.Builder
	for i := 1; b.Len() < 1<<20; i++ { // runs of distinct lengths: none closes
		b.WriteString(strings.Repeat("`", i))
		b.WriteString(" /recall x ")
	}
	b.WriteString("\n")
	ticks := b.String()
	b.Reset()
	b.WriteString("/recall ")
	for b.Len() < 3<<20 {
		b.WriteString("``` x ~~ ")
	}
	b.WriteString("`\n")
	fences := b.String()
	s := NewScanner(testVocab(), DefaultOptions())
	for _, msg := range []string{ticks, fences} {
		as := scanString(msg)
		if len(as) != 1 || as[0].Span.Start != strings.Index(msg, "/") {
			t.Fatalf("got %d actions, want the first sigil", len(as))
		}
		if got := scanSize(s, []byte(msg), 7); !same(got, clone(as)) {
			t.Error("7-byte chunks disagree")
		}
	}
}

// recordingVocab records the tokens the scanner asks about.
type recordingVocab struct {
	v      Vocabulary
	tokens []string
}

func (r *recordingVocab) Resolve(t string) (string, bool) {
	r.tokens = append(r.tokens, t)
	return r.v.Resolve(t)
}
func (r *recordingVocab) Extends(p string) bool { return r.v.Extends(p) }

// The vocabulary gets the verb as written, not NFC-normalised: NFC turns
// U+212A KELVIN SIGN into K, and a resolver must be able to refuse a
// strict verb spelled with it (DIALECT.md §4). The action's Token is the
// same text, so that resolving it again gives the same answer;
// StaticVocabulary normalises for itself.
func TestVocabularySeesTokenAsWritten(t *testing.T) {
	rec := &recordingVocab{v: NewStaticVocabulary(map[string]string{"ok": "approve", "café": "cafe", "note to self": "memo"})}
	as := Scan(rec, DefaultOptions(), []byte("/o\u212a 5\n/cafe\u0301 x\n/note to \u017felf\n"))
	for _, want := range []string{"o\u212a", "cafe\u0301", "note to \u017felf"} {
		if !slices.Contains(rec.tokens, want) {
			t.Errorf("the vocabulary was not asked about %+q; it got %+q", want, rec.tokens)
		}
	}
	if len(as) != 3 || as[0].Token != "o\u212a" || as[1].Token != "cafe\u0301" || as[1].Verb != "cafe" {
		t.Fatalf("actions: %+v", as)
	}
}
