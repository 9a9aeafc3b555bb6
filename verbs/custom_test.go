package verbs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/grammarbridge"
	"github.com/pattern-dialect/dialect/intent"
)

// customExts are the custom verbs of docs/language.md §5 plus one per remaining
// key.
func customExts() []Extension {
	return []Extension{
		{Name: "recall", ExtraAliases: []string{"memorize", "jot down", "note to self"}},
		{Name: "notify", Aliases: []string{"alert", "ping", "heads up"}, MapsTo: "send",
			DefaultTarget: &Target{Type: "agent", ID: "anchor"}, Description: "Quick notification to the coordinator",
			Examples: []string{"/notify something weird happened", "/heads up partner seems stressed"}},
		{Name: "shame", Aliases: []string{"call out", "roast"}, MapsTo: "send", DefaultTarget: &Target{Type: "bluesky"},
			Template: "shame post template: {content}", RequiresPermission: true},
		{Name: "toot", Aliases: []string{"mastodon"}, MapsTo: "post", DefaultTarget: &Target{Type: "mastodon"}},
		{Name: "lookit", MapsTo: "search", Template: "{content} in archival", Strictness: "loose"},
		{Name: "ticket", MapsTo: "tracker", Template: "[{priority}] {content}", Description: "File a ticket"},
		{Name: "lights", MapsTo: "home", Grammar: &GrammarRef{File: "lights.agr", Start: "Start"}, Template: "lights {action} in {room}"},
		{Name: "dimmer", MapsTo: "home", Grammar: &GrammarRef{File: "lights.agr", Start: "Dim"}},
		{Name: "papers", MapsTo: "search", Grammar: &GrammarRef{File: "search.agr"}},
		{Name: "memo", Aliases: []string{"remember"}, MapsTo: "recall", Priority: 0},
	}
}

func customRegistry(t testing.TB) *Registry {
	return mustRegistry(t, customExts(), &Options{Tools: []string{"tracker", "home"}, GrammarDir: "testdata/grammars"})
}

// TestCustomVerbs covers every custom-verb key by its effect on the intent.
func TestCustomVerbs(t *testing.T) {
	r := customRegistry(t)
	ctx := context.Background()
	for _, tt := range []struct {
		name, token string
		in          Input
		verb, want  string
	}{
		{"extra_aliases reach the built-in", "jot down", Input{Args: `+ "buy milk"`}, "recall", `{"kind":"recall","op":"insert","content":"buy milk"}`},
		{"maps_to send with default_target", "notify", Input{Args: "something weird happened"}, "notify",
			`{"kind":"custom","verb":"notify","maps_to":"send","args":{"content":"something weird happened"},"target":{"type":"agent","id":"anchor"},"inner":{"kind":"send","domain":"agent","target":"anchor","content":"something weird happened"}}`},
		{"multi-word alias", "heads up", Input{Args: "partner seems stressed"}, "notify",
			`{"kind":"custom","verb":"notify","maps_to":"send","args":{"content":"partner seems stressed"},"target":{"type":"agent","id":"anchor"},"inner":{"kind":"send","domain":"agent","target":"anchor","content":"partner seems stressed"}}`},
		{"explicit destination beats default_target", "notify", Input{Args: `@user "look"`}, "notify",
			`{"kind":"custom","verb":"notify","maps_to":"send","args":{"content":"look"},"target":{"type":"agent","id":"anchor"},"inner":{"kind":"send","domain":"user","content":"look"}}`},
		{"template fills content", "roast", Input{Args: `"spam bots"`}, "shame",
			`{"kind":"custom","verb":"shame","maps_to":"send","args":{"content":"spam bots"},"template_applied":"shame post template: spam bots","target":{"type":"bluesky"},"inner":{"kind":"send","domain":"bluesky","content":"shame post template: spam bots"}}`},
		{"configured domain for post", "toot", Input{Args: "hello fediverse"}, "toot",
			`{"kind":"custom","verb":"toot","maps_to":"post","args":{"content":"hello fediverse"},"target":{"type":"mastodon"},"inner":{"kind":"send","domain":"mastodon","content":"hello fediverse","via":"post"}}`},
		{"maps_to search with template", "lookit", Input{Args: "budget"}, "lookit",
			`{"kind":"custom","verb":"lookit","maps_to":"search","args":{"content":"budget"},"template_applied":"budget in archival","inner":{"kind":"search","terms":"budget in archival"}}`},
		{"maps_to tool with key=value", "ticket", Input{Args: `priority=high title="login fails" users cannot log in`}, "ticket",
			`{"kind":"custom","verb":"ticket","maps_to":"tracker","args":{"content":"users cannot log in","priority":"high","title":"login fails"},"template_applied":"[high] users cannot log in"}`},
		{"grammar value as args", "lights", Input{Args: "dim the kitchen lights to half"}, "lights",
			`{"kind":"custom","verb":"lights","maps_to":"home","args":{"action":"dim","level":50,"room":"kitchen"},"template_applied":"lights dim in kitchen"}`},
		{"grammar import resolves beside the file", "lights", Input{Args: "dim the hall lights to 30 percent"}, "lights",
			`{"kind":"custom","verb":"lights","maps_to":"home","args":{"action":"dim","level":30,"room":"hall"},"template_applied":"lights dim in hall"}`},
		{"grammar start rule", "dimmer", Input{Args: "dim porch lights to full"}, "dimmer",
			`{"kind":"custom","verb":"dimmer","maps_to":"home","args":{"action":"dim","level":100,"room":"porch"}}`},
		{"grammar value decoded into the built-in intent", "papers", Input{Args: "papers about grammar induction"}, "papers",
			`{"kind":"custom","verb":"papers","maps_to":"search","args":{"domains":["archival"],"terms":"grammar induction"},"inner":{"kind":"search","terms":"grammar induction","domains":["archival"]}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			verb, got, err := parseAction(ctx, r, tt.token, tt.verb, tt.in)
			if err != nil {
				t.Fatalf("%s %q: %v", tt.token, tt.in.Args, err)
			}
			if verb != tt.verb {
				t.Errorf("verb = %s, want %s", verb, tt.verb)
			}
			b, _ := intent.Marshal(got)
			if string(b) != tt.want {
				t.Errorf("%s %q =\n %s\nwant\n %s", tt.token, tt.in.Args, b, tt.want)
			}
			back, err := intent.Decode(b)
			if err != nil || !reflect.DeepEqual(jsonOf(t, back), string(b)) {
				t.Errorf("round trip: %v", err)
			}
		})
	}
	if v := r.Verb("shame"); !v.RequiresPermission {
		t.Error("requires_permission lost")
	}
	if v := r.Verb("lookit"); v.Strictness != Loose {
		t.Errorf("lookit strictness = %v", v.Strictness)
	}
	if v := r.Verb("notify"); v.Description == "" || len(v.Examples) != 2 {
		t.Errorf("notify description/examples lost: %+v", v)
	}
}

func jsonOf(t *testing.T, in intent.Intent) string {
	b, err := intent.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCustomFailures(t *testing.T) {
	r := customRegistry(t)
	ctx := context.Background()
	for _, tt := range []struct {
		verb string
		in   Input
		code codes.Code
		msg  string
	}{
		{"lights", Input{Args: "paint the walls"}, codes.MalformedSyntax, "expected"},
		{"lights", Input{Args: "dim the kitchen lights to"}, codes.MissingArg, "needs more"},
		{"lights", Input{}, codes.MissingArg, "needs arguments"},
		{"ticket", Input{Args: "title=x"}, codes.MissingArg, "{priority}"},
		{"ticket", Input{Args: "__proto__=1 x"}, codes.BannedKey, "__proto__"},
		{"notify", Input{}, codes.MissingArg, "needs a message"},
	} {
		_, err := r.Parse(ctx, tt.verb, tt.in)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Code != tt.code || !strings.Contains(pe.Message, tt.msg) {
			t.Errorf("/%s %q: %v; want %s mentioning %q", tt.verb, tt.in.Args, err, tt.code, tt.msg)
		}
	}
	bad := mustRegistry(t, []Extension{{Name: "b", MapsTo: "home", Grammar: &GrammarRef{File: "banned.agr"}}},
		&Options{Tools: []string{"home"}, GrammarDir: "testdata/grammars"})
	if _, err := bad.Parse(ctx, "b", Input{Args: "set x"}); !errors.Is(err, &ParseError{Code: codes.BannedKey}) {
		t.Errorf("banned key in a grammar value: %v", err)
	}
}

func TestCustomConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		ext Extension
		key string
		msg string
	}{
		{Extension{Name: "p", MapsTo: "home", Grammar: &GrammarRef{File: "nope.agr"}}, "dialect.verbs.p.grammar", "does not exist"},
		{Extension{Name: "p", MapsTo: "home", Grammar: &GrammarRef{File: "broken.agr"}}, "dialect.verbs.p.grammar", "broken.agr:1"},
		{Extension{Name: "p", MapsTo: "home", Grammar: &GrammarRef{File: "lights.agr", Start: "Nope"}}, "dialect.verbs.p.grammar", "Nope"},
		{Extension{Name: "p", MapsTo: "home", Grammar: &GrammarRef{File: "lights.agr", Start: "x y"}}, "dialect.verbs.p.grammar", "not a rule name"},
		{Extension{Name: "p", MapsTo: "home", Template: "{constructor}"}, "dialect.verbs.p.template", "not allowed"},
		{Extension{Name: "p", MapsTo: "send", DefaultTarget: &Target{ID: "x"}}, "dialect.verbs.p.default_target", "needs a type"},
	} {
		_, err := NewRegistryWith([]Extension{tt.ext}, Options{Tools: []string{"home"}, GrammarDir: "testdata/grammars"})
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Key != tt.key || !strings.Contains(ce.Msg, tt.msg) {
			t.Errorf("%+v: %v; want key %s mentioning %q", tt.ext, err, tt.key, tt.msg)
		}
	}
}

// TestCustomGrammarLoader reads grammars through a caller's loader.
func TestCustomGrammarLoader(t *testing.T) {
	loader := grammarbridge.MapLoader{"cfg/yes.agr": `<Start> = yes please -> { ok: true };`}
	r := mustRegistry(t, []Extension{{Name: "y", MapsTo: "t", Grammar: &GrammarRef{File: "yes.agr"}}},
		&Options{Tools: []string{"t"}, GrammarDir: "cfg", GrammarLoader: loader})
	got, err := r.Parse(context.Background(), "y", Input{Args: "Yes, please!"})
	if err != nil || !reflect.DeepEqual(got.(intent.Custom).Args, map[string]any{"ok": true}) {
		t.Errorf("got %v, %v", got, err)
	}
}

// TestCustomGrammarAuthorMeaning: a custom grammar is read as its author
// means it: (<Polite>)? consumes "please", and <Size>? is optional.
func TestCustomGrammarAuthorMeaning(t *testing.T) {
	loader := grammarbridge.MapLoader{"cfg/order.agr": `<Start> = (<Polite>)? order <Size>? $(item:wildcard) -> { item };
<Size> = small | large;`}
	r := mustRegistry(t, []Extension{{Name: "o", MapsTo: "t", Grammar: &GrammarRef{File: "order.agr"}}},
		&Options{Tools: []string{"t"}, GrammarDir: "cfg", GrammarLoader: loader})
	for _, args := range []string{"please order large tea", "order tea", "please order tea"} {
		got, err := r.Parse(context.Background(), "o", Input{Args: args})
		if err != nil || !reflect.DeepEqual(got.(intent.Custom).Args, map[string]any{"item": "tea"}) {
			t.Errorf("%q: got %v, %v", args, got, err)
		}
	}
}

// TestSettle: an alias two verbs claim is settled by argument shape, then
// priority, else AMBIGUOUS_VERB.
func TestSettle(t *testing.T) {
	ctx := context.Background()
	r := mustRegistry(t, nil, nil)
	if got := r.Claimants("remember"); !slices.Equal(got, []string{"recall", "context"}) {
		t.Fatalf("claimants %v", got)
	}
	// Only recall's grammar reads free text.
	verb, in, err := parseAction(ctx, r, "remember", "", Input{Args: "project deadlines"})
	if err != nil || verb != "recall" || in.(intent.Recall).Op != intent.RecallSearch {
		t.Errorf("shape: %s %v %v", verb, in, err)
	}
	// Only context has archive BLOCK... and recall reads it as a search; both parse.
	_, _, err = parseAction(ctx, r, "remember", "", Input{Args: `human + "likes tea"`})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Code != codes.AmbiguousVerb || !slices.Equal(pe.Candidates, []string{"recall", "context"}) ||
		pe.Message != "I couldn't tell if you meant /recall or /context — which one?" {
		t.Errorf("tie: %v", err)
	}
	// A specific form beats a catch-all search.
	verb, in, err = parseAction(ctx, r, "remember", "", Input{Args: `human "old" -> "new"`})
	if err != nil || verb != "context" || in.(intent.Context).Op != intent.ContextReplace {
		t.Errorf("specific over search: %s %v %v", verb, in, err)
	}
	// Priority breaks the tie.
	r = mustRegistry(t, []Extension{{Name: "context", Priority: 5}}, nil)
	verb, in, err = parseAction(ctx, r, "remember", "", Input{Args: `human + "likes tea"`})
	if err != nil || verb != "context" || in.(intent.Context).Op != intent.ContextAppend {
		t.Errorf("priority: %s %v %v", verb, in, err)
	}
	// A custom verb claiming the same alias: memo (maps to recall) ties with recall on shape and priority.
	r = customRegistry(t)
	if _, _, err := parseAction(ctx, r, "remember", "", Input{Args: "the launch"}); !errors.Is(err, &ParseError{Code: codes.AmbiguousVerb}) {
		t.Errorf("three claimants: %v", err)
	}
	// Nothing parses and no priority: AMBIGUOUS_VERB too.
	r2 := mustRegistry(t, []Extension{{Name: "a", Aliases: []string{"zap"}, MapsTo: "fetch"}, {Name: "b", Aliases: []string{"zap"}, MapsTo: "approve"}}, nil)
	if _, _, err := parseAction(ctx, r2, "zap", "", Input{}); !errors.Is(err, &ParseError{Code: codes.AmbiguousVerb}) {
		t.Errorf("none parse: %v", err)
	}
}

// TestPlayerGrammar configures TypeAgent's player grammar (shared data) as a
// custom verb's grammar, end to end. It skips when the data is absent; the
// always-on equivalent is TestCustomVerbs with testdata/grammars.
func TestPlayerGrammar(t *testing.T) {
	dir := filepath.Join(dataDir(), "agr", "grammars")
	if _, err := os.Stat(filepath.Join(dir, "player.agr")); err != nil {
		t.Skipf("shared data absent: %v", err)
	}
	r := mustRegistry(t, []Extension{
		{Name: "player", Aliases: []string{"music"}, MapsTo: "spotify", Grammar: &GrammarRef{File: "player.agr", Start: "Start"},
			Template: "{actionName}: {parameters.target.trackName} by {parameters.target.artists}"},
		{Name: "playtrack", MapsTo: "spotify", Grammar: &GrammarRef{File: "player.agr", Start: "PlayCommand"}},
	}, &Options{Tools: []string{"spotify"}, GrammarDir: dir})
	ctx := context.Background()
	verb, got, err := parseAction(ctx, r, "player", "player", Input{Args: "play Yesterday by the Beatles"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"custom","verb":"player","maps_to":"spotify","args":{"actionName":"playMusic","parameters":{"target":{"artists":["the Beatles"],"kind":"track","trackName":"Yesterday"}}},"template_applied":"playMusic: Yesterday by the Beatles"}`
	if b := jsonOf(t, got); verb != "player" || b != want {
		t.Errorf("got %s %s\nwant %s", verb, b, want)
	}
	got, err = r.Parse(ctx, "playtrack", Input{Args: "play the third track"})
	if err != nil || jsonOf(t, got) != `{"kind":"custom","verb":"playtrack","maps_to":"spotify","args":{"actionName":"playFromCurrentTrackList","parameters":{"trackNumber":3}}}` {
		t.Errorf("start rule: %v %v", got, err)
	}
	if _, err := r.Parse(ctx, "playtrack", Input{Args: "pause"}); !errors.Is(err, &ParseError{Code: codes.MalformedSyntax}) {
		t.Errorf("pause is not a PlayCommand: %v", err)
	}
}

// dataDir is the shared evaluation data: $DIALECT_DATA, else ../shared/data
// beside the repository.
func dataDir() string {
	if d := os.Getenv("DIALECT_DATA"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "data")
}

// parseAction parses as the runtime does for a token written as token and
// resolved to verb: the verbs claiming the token, when several do, are
// settled by argument shape.
func parseAction(ctx context.Context, r *Registry, token, verb string, in Input) (string, intent.Intent, error) {
	if in.Token == "" {
		in.Token = token
	}
	verbs := []string{verb}
	if cs := r.Claimants(token); len(cs) > 1 {
		verbs = cs
	}
	return r.ParseAction(ctx, verbs, in)
}
