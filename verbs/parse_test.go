package verbs

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
)

// blocks is a fixed set of memory block names.
type blocks map[string]bool

func (b blocks) HasBlock(_ context.Context, name string) (bool, error) { return b[name], nil }

func (b blocks) MatchBlocks(_ context.Context, name string) ([]string, error) {
	var out []string
	for _, n := range []string{"meeting_notes", "project_notes", "human", "log"} {
		if b[n] && strings.Contains(n, name) {
			out = append(out, n)
		}
	}
	return out, nil
}

var testBlocks = blocks{"project_notes": true, "meeting_notes": true, "human": true, "log": true}

const diff = "--- a/notes\n+++ b/notes\n@@ -1 +1 @@\n-old line\n+new line\n"

// TestParseForms covers every form of docs/language.md §5, by its JSON intent.
func TestParseForms(t *testing.T) {
	r := mustRegistry(t, nil, nil)
	for _, tt := range []struct {
		name, verb string
		in         Input
		want       string
	}{
		// recall
		{"recall name reads an existing block", "recall", Input{Args: "project_notes"}, `{"kind":"recall","op":"read","block":"project_notes"}`},
		{"recall name searches otherwise", "recall", Input{Args: "project deadlines"}, `{"kind":"recall","op":"search","query":"project deadlines"}`},
		{"recall quoted searches", "recall", Input{Args: `"project_notes"`}, `{"kind":"recall","op":"search","query":"project_notes"}`},
		{"recall glued punctuation", "recall", Input{Args: "what is due?"}, `{"kind":"recall","op":"search","query":"what is due?"}`},
		{"recall + insert", "recall", Input{Args: `+ "Ana prefers mornings, not evenings"`}, `{"kind":"recall","op":"insert","content":"Ana prefers mornings, not evenings"}`},
		{"recall insert word", "recall", Input{Args: "insert met Ana at the conference"}, `{"kind":"recall","op":"insert","content":"met Ana at the conference"}`},
		{"recall add", "recall", Input{Args: "add the launch is on May 3"}, `{"kind":"recall","op":"insert","content":"the launch is on May 3"}`},
		{"recall save", "recall", Input{Args: `save "call back Tuesday"`}, `{"kind":"recall","op":"insert","content":"call back Tuesday"}`},
		{"recall + with content block", "recall", Input{Args: "+", Content: "line one\nline two", Kind: TripleQuoted}, `{"kind":"recall","op":"insert","content":"line one\nline two"}`},
		{"recall content block alone", "recall", Input{Content: "a fact", Kind: Fenced}, `{"kind":"recall","op":"insert","content":"a fact"}`},
		{"recall name + append", "recall", Input{Args: `project_notes + "deadline moved to Friday"`}, `{"kind":"recall","op":"append","block":"project_notes","content":"deadline moved to Friday"}`},
		{"recall append word", "recall", Input{Args: "append log went well @last.output"}, `{"kind":"recall","op":"append","block":"log","content":"went well @last.output","refs":[{"kind":"last.output","token":"@last.output"}]}`},
		{"recall -name", "recall", Input{Args: "-log"}, `{"kind":"recall","op":"delete","block":"log"}`},
		{"recall -_name", "recall", Input{Args: "-_x"}, `{"kind":"recall","op":"delete","block":"_x"}`},
		{"recall -digits_name", "recall", Input{Args: "-2024_notes"}, `{"kind":"recall","op":"delete","block":"2024_notes"}`},
		{"recall -name with a dot", "recall", Input{Args: "-v2.notes"}, `{"kind":"recall","op":"delete","block":"v2.notes"}`},
		{"recall double dash is text", "recall", Input{Args: "--verbose"}, `{"kind":"recall","op":"search","query":"--verbose"}`},
		{"recall delete", "recall", Input{Args: "delete log"}, `{"kind":"recall","op":"delete","block":"log"}`},
		{"recall remove", "recall", Input{Args: "remove log"}, `{"kind":"recall","op":"delete","block":"log"}`},
		{"recall forget alias deletes", "recall", Input{Token: "forget", Args: "log"}, `{"kind":"recall","op":"delete","block":"log"}`},
		{"recall save alias inserts", "recall", Input{Token: "save", Args: "the launch moved"}, `{"kind":"recall","op":"insert","content":"the launch moved"}`},
		{"recall patch", "recall", Input{Args: "patch project_notes", Content: diff, Kind: Fenced}, `{"kind":"recall","op":"patch","block":"project_notes","patch":` + jsonString(diff) + `}`},
		{"recall read", "recall", Input{Args: "read human"}, `{"kind":"recall","op":"read","block":"human"}`},
		{"recall get", "recall", Input{Args: "get log"}, `{"kind":"recall","op":"read","block":"log"}`},
		{"recall check", "recall", Input{Args: "check log"}, `{"kind":"recall","op":"read","block":"log"}`},
		{"recall show one close block", "recall", Input{Args: "show project"}, `{"kind":"recall","op":"read","block":"project_notes"}`},
		{"recall filters", "recall", Input{Args: "deadlines #work @7d ^5 *apollo &brief"}, `{"kind":"recall","op":"search","query":"deadlines","filters":{"tags":["work"],"since":"7d","limit":5,"project":"apollo","format":"brief"}}`},
		{"recall filters make a search", "recall", Input{Args: "human #people"}, `{"kind":"recall","op":"search","query":"human","filters":{"tags":["people"]}}`},
		{"recall filters only", "recall", Input{Args: "#work @2026-01-31"}, `{"kind":"recall","op":"search","filters":{"tags":["work"],"since":"2026-01-31"}}`},
		{"recall filters are content of an insert", "recall", Input{Args: "+ shipped #release ^2"}, `{"kind":"recall","op":"insert","content":"shipped #release ^2","tags":["release"]}`},
		{"recall hashtags in content tag it", "recall", Input{Args: `+ "shipped the release #release, finally #Q3"`}, `{"kind":"recall","op":"insert","content":"shipped the release #release, finally #Q3","tags":["q3","release"]}`},
		{"recall labels around quoted content", "recall", Input{Args: `+ "shipped the release" #release #ops *Apollo`}, `{"kind":"recall","op":"insert","content":"shipped the release","tags":["ops","release"],"project":"apollo"}`},
		{"recall labels on an append", "recall", Input{Args: `log + "went well" #retro`}, `{"kind":"recall","op":"append","block":"log","content":"went well","tags":["retro"]}`},
		{"recall labels on a content block", "recall", Input{Args: "+ #retro", Content: "went well", Kind: Fenced}, `{"kind":"recall","op":"insert","content":"went well","tags":["retro"]}`},
		{"recall other filters around quotes are content", "recall", Input{Args: `+ "meeting" @2026-01-31`}, `{"kind":"recall","op":"insert","content":"\"meeting\" @2026-01-31"}`},
		{"recall emphasis is no project", "recall", Input{Args: `+ "it is *very* good"`}, `{"kind":"recall","op":"insert","content":"it is *very* good"}`},
		{"recall history", "recall", Input{Args: "history project_notes"}, `{"kind":"recall","op":"history","block":"project_notes"}`},
		{"recall versions of", "recall", Input{Args: "versions of log"}, `{"kind":"recall","op":"history","block":"log"}`},
		{"recall read a version", "recall", Input{Args: "read project_notes v2"}, `{"kind":"recall","op":"read","block":"project_notes","version":2}`},
		{"recall read version N", "recall", Input{Args: "show log version 12"}, `{"kind":"recall","op":"read","block":"log","version":12}`},
		{"recall NAME vN reads it", "recall", Input{Args: "human V3"}, `{"kind":"recall","op":"read","block":"human","version":3}`},
		{"recall vN of no block searches", "recall", Input{Args: "release v2"}, `{"kind":"recall","op":"search","query":"release v2"}`},
		{"recall restore", "recall", Input{Args: "restore project_notes v2"}, `{"kind":"recall","op":"restore","block":"project_notes","version":2}`},
		{"recall restore to", "recall", Input{Args: "restore old notes to version 4"}, `{"kind":"recall","op":"restore","block":"old notes","version":4}`},
		{"recall revert quoted", "recall", Input{Args: `revert "old notes" v1`}, `{"kind":"recall","op":"restore","block":"old notes","version":1}`},
		{"recall search reference", "recall", Input{Args: "@last.output"}, `{"kind":"recall","op":"search","query":"@last.output","refs":[{"kind":"last.output","token":"@last.output"}]}`},
		{"recall uri reference", "recall", Input{Args: "+ @[doc://notes/1]"}, `{"kind":"recall","op":"insert","content":"@[doc://notes/1]","refs":[{"kind":"uri","uri":"doc://notes/1","token":"@[doc://notes/1]"}]}`},
		// context
		{"context + append", "context", Input{Args: `human + "prefers short answers"`}, `{"kind":"context","op":"append","block":"human","content":"prefers short answers"}`},
		{"context append content block", "context", Input{Args: "human", Content: "likes tea", Kind: QuoteLines}, `{"kind":"context","op":"append","block":"human","content":"likes tea"}`},
		{"context replace", "context", Input{Args: `human "likes tea" -> "likes coffee"`}, `{"kind":"context","op":"replace","block":"human","old":"likes tea","new":"likes coffee"}`},
		{"context replace unquoted", "context", Input{Args: `human likes tea -> likes coffee, black`}, `{"kind":"context","op":"replace","block":"human","old":"likes tea","new":"likes coffee, black"}`},
		{"context archive", "context", Input{Args: "archive scratch"}, `{"kind":"context","op":"archive","block":"scratch"}`},
		{"context load", "context", Input{Args: "load formal_persona"}, `{"kind":"context","op":"load","label":"formal_persona"}`},
		{"context swap", "context", Input{Args: "swap persona formal_persona"}, `{"kind":"context","op":"swap","block":"persona","label":"formal_persona"}`},
		{"context reference", "context", Input{Args: "log + @last.message"}, `{"kind":"context","op":"append","block":"log","content":"@last.message","refs":[{"kind":"last.message","token":"@last.message"}]}`},
		// search
		{"search terms", "search", Input{Args: "project deadlines"}, `{"kind":"search","terms":"project deadlines"}`},
		{"search glued punctuation", "search", Input{Args: "what is due?"}, `{"kind":"search","terms":"what is due?"}`},
		{"search in archival", "search", Input{Args: "deadlines in archival"}, `{"kind":"search","terms":"deadlines","domains":["archival"]}`},
		{"search in conversations first", "search", Input{Args: "in conversations budget review"}, `{"kind":"search","terms":"budget review","domains":["conversations"]}`},
		{"search in constellation", "search", Input{Args: "launch in constellation"}, `{"kind":"search","terms":"launch","domains":["constellation"]}`},
		{"search in all", "search", Input{Args: "launch in all"}, `{"kind":"search","terms":"launch"}`},
		{"search everywhere", "search", Input{Args: "launch everywhere"}, `{"kind":"search","terms":"launch"}`},
		{"search older than", "search", Input{Args: "budget > 2 weeks"}, `{"kind":"search","terms":"budget","time":{"older_than":"14d"}}`},
		{"search newer than", "search", Input{Args: "budget < 3 days"}, `{"kind":"search","terms":"budget","time":{"newer_than":"3d"}}`},
		{"search role", "search", Input{Args: "apology role:assistant"}, `{"kind":"search","terms":"apology","role":"assistant"}`},
		{"search filters", "search", Input{Args: "budget #work @7d ^5 *apollo &json in conversations"}, `{"kind":"search","terms":"budget","domains":["conversations"],"filters":{"tags":["work"],"since":"7d","limit":5,"project":"apollo","format":"json"}}`},
		{"search in as terms", "search", Input{Args: "bugs in production"}, `{"kind":"search","terms":"bugs in production"}`},
		// send and shorthands
		{"send domain target", "send", Input{Args: `@agent @anchor "status: ready"`}, `{"kind":"send","domain":"agent","target":"anchor","content":"status: ready"}`},
		{"send user unquoted", "send", Input{Args: "@user the build is green!"}, `{"kind":"send","domain":"user","content":"the build is green!"}`},
		{"send channel block", "send", Input{Args: "@channel @general", Content: "long\nnote", Kind: TripleQuoted}, `{"kind":"send","domain":"channel","target":"general","content":"long\nnote"}`},
		{"send bluesky", "send", Input{Args: `@bluesky "hello"`}, `{"kind":"send","domain":"bluesky","content":"hello"}`},
		{"send discord ref", "send", Input{Args: `@discord @ops @last.output`}, `{"kind":"send","domain":"discord","target":"ops","content":"@last.output","refs":[{"kind":"last.output","token":"@last.output"}]}`},
		{"reply", "reply", Input{Args: `"Done."`}, `{"kind":"send","domain":"thread","content":"Done.","via":"reply"}`},
		{"post", "post", Input{Args: `@bluesky "Shipped."`}, `{"kind":"send","domain":"bluesky","content":"Shipped.","via":"post"}`},
		{"dm", "dm", Input{Args: "your build finished"}, `{"kind":"send","domain":"user","content":"your build finished","via":"dm"}`},
		{"dm target", "dm", Input{Args: `@sam "hi"`}, `{"kind":"send","domain":"user","target":"sam","content":"hi","via":"dm"}`},
		{"tell", "tell", Input{Args: `@anchor "partner seems stressed"`}, `{"kind":"send","domain":"agent","target":"anchor","content":"partner seems stressed","via":"tell"}`},
		{"tell bare name", "tell", Input{Args: "anchor partner seems stressed"}, `{"kind":"send","domain":"agent","target":"anchor","content":"partner seems stressed","via":"tell"}`},
		// fetch, web, calc
		{"fetch url", "fetch", Input{Args: "https://go.dev/doc/"}, `{"kind":"fetch","url":"https://go.dev/doc/"}`},
		{"fetch html", "fetch", Input{Args: "https://go.dev/doc/ html"}, `{"kind":"fetch","url":"https://go.dev/doc/","format":"html"}`},
		{"fetch bare host", "fetch", Input{Args: "example.org/page as text"}, `{"kind":"fetch","url":"https://example.org/page","format":"text"}`},
		{"fetch continue", "fetch", Input{Args: "continue"}, `{"kind":"fetch","continue":true}`},
		{"get with a URL fetches", "fetch", Input{Token: "get", Args: "https://example.org"}, `{"kind":"fetch","url":"https://example.org"}`},
		{"get with a name reads", "fetch", Input{Token: "get", Args: "project_notes"}, `{"kind":"recall","op":"read","block":"project_notes"}`},
		{"web", "web", Input{Args: "go 1.26 release notes"}, `{"kind":"web","query":"go 1.26 release notes"}`},
		{"web reference", "web", Input{Args: "reviews of @last.output"}, `{"kind":"web","query":"reviews of @last.output","refs":[{"kind":"last.output","token":"@last.output"}]}`},
		{"search reference", "search", Input{Args: "@thread decisions"}, `{"kind":"search","terms":"@thread decisions","refs":[{"kind":"thread","token":"@thread"}]}`},
		{"calc reference", "calc", Input{Args: "@last * 2"}, `{"kind":"calc","expr":"@last * 2","refs":[{"kind":"last","token":"@last"}]}`},
		{"fetch reference", "fetch", Input{Args: "@last.output html"}, `{"kind":"fetch","url":"@last.output","format":"html","refs":[{"kind":"last.output","token":"@last.output"}]}`},
		{"calc units", "calc", Input{Args: "5 feet to meters"}, `{"kind":"calc","expr":"5 feet to meters"}`},
		{"calc program", "calc", Input{Args: "radius = 5; pi * radius^2"}, `{"kind":"calc","expr":"radius = 5; pi * radius^2"}`},
		{"calc percent", "calc", Input{Args: "20% of 350"}, `{"kind":"calc","expr":"20% of 350"}`},
		// authority
		{"approve", "approve", Input{Args: "12"}, `{"kind":"authority","op":"approve","id":"12"}`},
		{"approve #id always", "approve", Input{Args: "#12 always"}, `{"kind":"authority","op":"approve","id":"12","always":true}`},
		{"deny", "deny", Input{Args: "12"}, `{"kind":"authority","op":"deny","id":"12"}`},
		{"deny reason", "deny", Input{Args: `12 "too risky"`}, `{"kind":"authority","op":"deny","id":"12","reason":"too risky"}`},
		{"deny always", "deny", Input{Args: "12 always"}, `{"kind":"authority","op":"deny","id":"12","always":true}`},
		{"escalate", "escalate", Input{Args: `12 "needs a human"`}, `{"kind":"authority","op":"escalate","id":"12","reason":"needs a human"}`},
		{"cancel", "cancel", Input{}, `{"kind":"authority","op":"cancel"}`},
		{"cancel id", "cancel", Input{Args: "12"}, `{"kind":"authority","op":"cancel","id":"12"}`},
		{"halt", "halt", Input{Args: `"runaway loop"`, Marker: "!"}, `{"kind":"authority","op":"halt","reason":"runaway loop"}`},
		// hygiene
		{"NFC", "web", Input{Args: "cafe\u0301"}, `{"kind":"web","query":"café"}`},
		{"invalid UTF-8 replaced", "web", Input{Args: "a\xffb"}, "{\"kind\":\"web\",\"query\":\"a\ufffdb\"}"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Blocks = testBlocks
			got, err := r.Parse(context.Background(), tt.verb, tt.in)
			if err != nil {
				t.Fatalf("Parse(%s %+v): %v", tt.verb, tt.in, err)
			}
			b, err := intent.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("Parse(%s %q) =\n %s\nwant\n %s", tt.verb, tt.in.Args, b, tt.want)
			}
		})
	}
}

// TestParseFailures checks each failure code, its column, and that the
// message tells the model what to write.
func TestParseFailures(t *testing.T) {
	r := mustRegistry(t, nil, nil)
	for _, tt := range []struct {
		name, verb string
		in         Input
		code       codes.Code
		pos        int
		msg        string // a substring of the message
	}{
		{"fetch without url", "fetch", Input{}, codes.MissingArg, 0, "/fetch needs a URL."},
		{"fetch not a url", "fetch", Input{Args: "notes"}, codes.MissingArg, 0, "not one"},
		{"fetch junk after url", "fetch", Input{Args: "https://x.org please"}, codes.MalformedSyntax, 15, "'html'"},
		{"recall nothing", "recall", Input{}, codes.MissingArg, 0, "block name"},
		{"recall + nothing", "recall", Input{Args: "+"}, codes.MissingArg, 0, "content to save"},
		{"recall patch without diff", "recall", Input{Args: "patch log"}, codes.MissingArg, 0, "unified diff"},
		{"recall patch bad diff", "recall", Input{Args: "patch log", Content: "not a diff", Kind: Fenced}, codes.MalformedSyntax, 0, "diff cannot be read"},
		{"unterminated quote", "recall", Input{Args: `+ "never closed`}, codes.MalformedSyntax, 3, "unterminated quote at column 3"},
		{"unterminated after alias op", "recall", Input{Token: "save", Args: `"x`}, codes.MalformedSyntax, 1, "column 1"},
		{"search misspelled domain", "search", Input{Args: "in archivs"}, codes.UnknownModifier, 4, "did you mean 'in archival'?"},
		{"search misspelled domain last", "search", Input{Args: "deadlines in conversatons"}, codes.UnknownModifier, 14, "in conversations"},
		{"search bad role", "search", Input{Args: "x role:asistant"}, codes.UnknownModifier, 3, "role:assistant"},
		{"search no terms", "search", Input{Args: "everywhere"}, codes.MissingArg, 0, "needs terms"},
		{"search bad count", "search", Input{Args: "x > many weeks"}, codes.MalformedSyntax, 5, "not a number"},
		{"send without domain", "send", Input{Args: "hello there"}, codes.MalformedSyntax, 1, "an @name"},
		{"send misspelled domain", "send", Input{Args: "@usr hi"}, codes.UnknownModifier, 1, "did you mean '@user'?"},
		{"send without message", "send", Input{Args: "@user"}, codes.MissingArg, 0, "needs a message"},
		{"post without platform", "post", Input{Args: "hello"}, codes.MalformedSyntax, 1, "an @name"},
		{"post to user", "post", Input{Args: "@user hi"}, codes.UnknownModifier, 1, "not a destination"},
		{"tell nobody", "tell", Input{}, codes.MissingArg, 0, "needs an agent"},
		{"context bad shape", "context", Input{Args: "human likes tea"}, codes.MalformedSyntax, 13, "expected '->'"}, // the furthest point: "human likes" read as the block
		{"context nothing", "context", Input{}, codes.MissingArg, 0, "needs a block"},
		{"replacement with stray quoted text", "context", Input{Args: `human "old" -> "new" "extra"`}, codes.MalformedSyntax, 22, `"extra" is outside the quoted text`},
		{"replacement with stray word", "context", Input{Args: `human "old" -> "new" please`}, codes.MalformedSyntax, 22, `please is outside`},
		{"replaced text with stray quoted text", "context", Input{Args: `human "old" "x" -> "new"`}, codes.MalformedSyntax, 13, `"x" is outside`},
		{"words then a quote", "context", Input{Args: `human likes "tea" -> coffee`}, codes.MalformedSyntax, 13, `"tea" is outside`},
		{"replace with, stray quote", "context", Input{Args: `replace in human "old" with "new" "x"`}, codes.MalformedSyntax, 35, `"x" is outside`},
		{"context no content", "context", Input{Args: "human"}, codes.MissingArg, 0, "content to add"},
		{"context swap without label", "context", Input{Args: "swap persona"}, codes.MissingArg, 0, "expected"},
		{"approve no id", "approve", Input{}, codes.MissingArg, 0, "/approve 12"},
		{"approve bad modifier", "approve", Input{Args: "12 maybe"}, codes.MalformedSyntax, 4, "'always'"},
		{"escalate no reason", "escalate", Input{Args: "12"}, codes.MissingArg, 0, "reason"},
		{"halt without marker", "halt", Input{Args: `"loop"`}, codes.MalformedSyntax, 0, "! marker"},
		{"halt without reason", "halt", Input{Marker: "!"}, codes.MissingArg, 0, "reason"},
		{"ambiguous block", "recall", Input{Args: "delete notes"}, codes.AmbiguousArgs, 0, "'notes' matches meeting_notes or project_notes — which one?"},
		{"banned key", "recall", Input{Args: "+ __proto__=x"}, codes.BannedKey, 3, "__proto__"},
		{"banned key colon", "send", Input{Args: "@user constructor:1"}, codes.BannedKey, 7, "constructor"},
		{"too large", "web", Input{Args: strings.Repeat("a", MaxInput+1)}, codes.InputTooLarge, 0, "limit"},
		{"web empty", "web", Input{}, codes.MissingArg, 0, "needs a query"},
		{"misspelled reference", "recall", Input{Args: "+ see @last.outptu"}, codes.InvalidReference, 7, "did you mean @last.output?"},
		{"unclosed uri reference", "send", Input{Args: "@user @[doc://x"}, codes.InvalidReference, 7, "not a reference"},
		{"calc empty", "calc", Input{}, codes.MissingArg, 0, "needs an expression"},
		{"recall restore without version", "recall", Input{Args: "restore log"}, codes.MissingArg, 0, "restore log v2"},
		{"recall restore version 0", "recall", Input{Args: "restore log v0"}, codes.MalformedSyntax, 13, "versions count from v1"},
		{"recall read version 0", "recall", Input{Args: "read log v00"}, codes.MalformedSyntax, 10, "not a version"},
		{"unknown format", "search", Input{Args: "budget &md"}, codes.UnknownModifier, 8, "&brief, &full, &json"},
		{"misspelled format", "recall", Input{Args: "budget &jsno"}, codes.UnknownModifier, 8, "did you mean '&json'?"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Blocks = testBlocks
			got, err := r.Parse(context.Background(), tt.verb, tt.in)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%s %q) = %v, %v; want a *ParseError", tt.verb, tt.in.Args, got, err)
			}
			if pe.Code != tt.code || pe.Pos != tt.pos || !strings.Contains(pe.Message, tt.msg) {
				t.Errorf("Parse(%s %q) = %s at %d: %q; want %s at %d mentioning %q", tt.verb, tt.in.Args, pe.Code, pe.Pos, pe.Message, tt.code, tt.pos, tt.msg)
			}
			if !errors.Is(err, &ParseError{Code: tt.code}) {
				t.Errorf("errors.Is(err, code %s) is false", tt.code)
			}
		})
	}
}

// TestParseFailureTokens: a failure names what the model wrote, which is
// what the failure log groups by — not the suggestion, not the message.
func TestParseFailureTokens(t *testing.T) {
	r := mustRegistry(t, nil, nil)
	for _, tt := range []struct {
		verb, args, token string
	}{
		{"recall", "+ see @last.outptu", "@last.outptu"},
		{"search", "deadlines in conversatons", "in conversatons"},
		{"search", "in archivs budget", "in archivs"},
		{"search", "x role:asistant", "role:asistant"},
		{"search", "x &brieff", "&brieff"},
		{"send", "@usr hi", "@usr"},
		{"approve", "12 maybe", "maybe"},
		{"fetch", "https://x.org please", "please"},
	} {
		_, err := r.Parse(context.Background(), tt.verb, Input{Args: tt.args, Blocks: testBlocks})
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Token != tt.token {
			t.Errorf("/%s %s: token %q (%v), want %q", tt.verb, tt.args, map[bool]string{true: pe.Token}[pe != nil], err, tt.token)
		}
	}
}

func TestLabels(t *testing.T) {
	for _, tt := range []struct {
		text, tags, project string
	}{
		{"shipped #release today", "release", ""},
		{"#Release, #q3. and #release!", "q3 release", ""},
		{"a *bold* claim, *Apollo rocks", "", "apollo"},
		{"# heading and C# and #", "", ""},
		{"*1 is no project, *apollo *gemini", "", "apollo"},
		{"#ünïcode #a-b/c.d", "a-b/c.d ünïcode", ""},
	} {
		tags, project := Labels(tt.text)
		if strings.Join(tags, " ") != tt.tags || project != tt.project {
			t.Errorf("Labels(%q) = %v %q, want %q %q", tt.text, tags, project, tt.tags, tt.project)
		}
	}
}

func TestParseUnknownVerb(t *testing.T) {
	r := mustRegistry(t, nil, nil)
	_, err := r.Parse(context.Background(), "teleport", Input{Args: "x"})
	if !errors.Is(err, &ParseError{Code: codes.UnknownVerb}) {
		t.Errorf("got %v", err)
	}
}

func mustRegistry(t testing.TB, exts []Extension, opts *Options) *Registry {
	t.Helper()
	o := Options{}
	if opts != nil {
		o = *opts
	}
	r, err := NewRegistryWith(exts, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func jsonString(s string) string {
	b, _ := intent.Marshal(intent.Web{Query: s})
	return strings.TrimSuffix(strings.TrimPrefix(string(b), `{"kind":"web","query":`), "}")
}
