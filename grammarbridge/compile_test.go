package grammarbridge

import (
	"errors"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name  string
		files MapLoader // "main.agr" is compiled
		kind  error
		at    string // "file:line:col" prefix of the first error
		msg   string
	}{
		{"undefined rule", MapLoader{"main.agr": "<Start> = play <Song> -> 1;"}, ErrUndefinedRule, "main.agr:1:16", "rule <Song> is not defined"},
		{"entity not imported", MapLoader{"main.agr": "<Start> = play $(n:<Ordinal>) -> n;"}, ErrUndefinedRule, "main.agr:1:16", "import { Ordinal }"},
		{"unknown entity import", MapLoader{"main.agr": "import { Colour };\n<Start> = x -> 1;"}, ErrUndefinedEntity, "main.agr:1:1", `unknown entity "Colour"`},
		{"unknown capture type", MapLoader{"main.agr": "<Start> = x $(c:Colour) -> c;"}, ErrUndefinedEntity, "main.agr:1:13", `unknown capture type "Colour"`},
		{"no start", MapLoader{"main.agr": "<Other> = x;"}, ErrUndefinedRule, "main.agr:1:1", "no <Start> rule"},
		{"start without value", MapLoader{"main.agr": "<Start> = play <M>;\n<M> = music;"}, ErrNoValue, "main.agr:1:1", "does not produce a value"},
		{"capture of rule without value", MapLoader{"main.agr": "<Start> = x $(v:<Two>) -> v;\n<Two> = a <B>;\n<B> = b;"}, ErrNoValue, "main.agr:1:13", "<Two> does not produce a value"},
		{"variable from a group", MapLoader{"main.agr": "<Start> = x ($(v:wildcard) y) -> v;"}, ErrUndefinedVar, "main.agr:1:34", `variable "v" is not captured`},
		{"duplicate variable", MapLoader{"main.agr": "<Start> = $(v:wildcard) x $(v:wildcard) -> v;"}, ErrConflict, "main.agr:1:27", "captured twice"},
		{"import conflicts with local", MapLoader{
			"main.agr": "import { A } from \"./lib.agr\";\n<Start> = <A>;\n<A> = local;",
			"lib.agr":  "export <A> = lib;",
		}, ErrConflict, "main.agr:3:1", "also imported"},
		{"import missing rule", MapLoader{
			"main.agr": "import { B } from \"./lib.agr\";\n<Start> = <B>;",
			"lib.agr":  "export <A> = lib;",
		}, ErrUndefinedRule, "main.agr:1:1", "does not export a rule <B>"},
		{"import private rule", MapLoader{
			"main.agr": "import { P } from \"./lib.agr\";\n<Start> = <P>;",
			"lib.agr":  "export <A> = lib;\n<P> = private;",
		}, ErrUndefinedRule, "main.agr:1:1", "does not export a rule <P>"},
		{"missing import file", MapLoader{"main.agr": "import * from \"./nope.agr\";\n<Start> = x -> 1;"}, ErrImport, "main.agr:1:1", "cannot read imported file"},
		{"syntax error in import", MapLoader{
			"main.agr": "import * from \"./lib.agr\";\n<Start> = x -> 1;",
			"lib.agr":  "<A> = (;",
		}, ErrSyntax, "lib.agr:1:8", "expected"},
		{"import cycle", MapLoader{
			"main.agr": "import * from \"./a.agr\";\n<Start> = x -> 1;",
			"a.agr":    "import * from \"./main.agr\";\n<A> = a;",
		}, ErrImport, "a.agr:1:1", "import cycle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.files, "main.agr", Options{})
			if err == nil {
				t.Fatal("compiled; want an error")
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("error %v is not %v", err, tt.kind)
			}
			first := err.Error()
			if i := strings.IndexByte(first, '\n'); i >= 0 {
				first = first[:i]
			}
			if !strings.HasPrefix(first, tt.at+":") || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("got %q, want %s: ...%s...", err, tt.at, tt.msg)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("no *Error in %v", err)
			}
		})
	}
}

func TestCompileReportsEveryError(t *testing.T) {
	_, err := CompileString("m.agr", "<Start> = <A> -> 1 | <B> -> 2;\n<C> = <D>;", Options{})
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 3 {
		t.Fatalf("got %v, want 3 errors", err)
	}
	if list[0].Pos.Offset > list[1].Pos.Offset || list[1].Pos.Offset > list[2].Pos.Offset {
		t.Errorf("errors not in source order: %v", err)
	}
}

func TestCompileImports(t *testing.T) {
	files := MapLoader{
		"g/main.agr":     "import { Volume } from \"./lib/vol.agr\";\nimport * from \"./lib/all.agr\";\n<Start> = <Volume> | <Mute> | <Both>;",
		"g/lib/vol.agr":  "export <Volume> = volume $(n:number) -> { v: n };",
		"g/lib/all.agr":  "import { Volume } from \"./vol.agr\";\n<Mute> = mute -> { m: true };\n<Both> = both <Volume> -> { b: 1 };",
		"g/unrelated.ag": "",
	}
	g, err := Compile(files, "g/main.agr", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"volume 7":      `{"v":7}`,
		"mute":          `{"m":true}`,
		"both volume 3": `{"b":1}`,
	} {
		if got := matchJSON(t, g, in); got != "["+want+"]" {
			t.Errorf("%q: got %s, want [%s]", in, got, want)
		}
	}
}

func TestCompileFSLoader(t *testing.T) {
	g, err := Compile(FSLoader{os.DirFS("testdata")}, "music.agr", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := matchJSON(t, g, "set volume to 40 percent"); got != `[{"actionName":"volume","parameters":{"level":40}}]` {
		t.Errorf("imported rule: %s", got)
	}
	mem := fstest.MapFS{"a/s.agr": {Data: []byte("import * from \"../b/t.agr\";\n<Start> = go <T> -> 1;")}, "b/t.agr": {Data: []byte("<T> = there;")}}
	if _, err := Compile(FSLoader{mem}, "a/s.agr", Options{}); err != nil {
		t.Errorf("relative import through fs.FS: %v", err)
	}
	g2, err := Compile(FSLoader{mem}, "a/s.agr", Options{})
	if err == nil && matchJSON(t, g2, "go there") != "[1]" {
		t.Errorf("go there: %s", matchJSON(t, g2, "go there"))
	}
}

func TestCompileTypeCapture(t *testing.T) {
	g, err := CompileString("t.agr", "import { Song } from \"./s.ts\";\n<Start> = play $(s:Song) -> s;", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := matchJSON(t, g, "play Hey Jude"); got != `["Hey Jude"]` {
		t.Errorf("type capture: %s", got)
	}
}

func TestCompileTypes(t *testing.T) {
	g, err := CompileString("t.agr", "import { A, B } from \"./s.ts\";\n<Start> : A | B = x -> 1;", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(g.Types, ",") != "A,B,A | B" {
		t.Errorf("types %v", g.Types)
	}
}

// TestCompileRealGrammars compiles every grammar in the shared data, with
// and without cases.
func TestCompileRealGrammars(t *testing.T) {
	dir := dataDir(t)
	entries, err := os.ReadDir(dir + "/grammars")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".agr") {
			compileData(t, dir, strings.TrimSuffix(e.Name(), ".agr"), Options{})
			n++
		}
	}
	if n != 59 {
		t.Errorf("compiled %d grammars, want 59", n)
	}
}
