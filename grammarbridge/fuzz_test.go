package grammarbridge

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary text to the parser and, when it parses, to the
// compiler and the matcher: nothing may panic, every error must be a
// positioned *Error, and matching must stay within the work limit.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"music.agr", "spacing.agr", "values.agr", "imports/common.agr"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(string(b))
		}
	}
	f.Add(`<Start> = play $(t:wildcard) by $(a:wildcard) -> { t, a };`)
	f.Add(`<Start> [spacing=optional] = ('can you'? | please)* \-x #$(n:number)? -> n ?? ` + "`${n}`" + `;`)
	f.Add(`import { Ordinal, Cardinal }; <Start> = $(n:<Ordinal>) | $(c:<Cardinal>) -> c;`)
	f.Add(`<Start> = a -> [1, "x", true, null, { k: 1 + 2 * 3 > 4 ? 'y' : "z" }];`)
	f.Add(`/* c */ <S> = (a | (b | (c)+)*)? ; // end`)
	f.Add(`<Start> = (<Polite>)? x <R>? y <R>*z -> 1; <R> = a | (b)?;`)
	f.Fuzz(func(t *testing.T, src string) {
		file, err := Parse("f.agr", src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrSyntax) || e.Pos.Line < 1 || e.Pos.Col < 1 {
				t.Fatalf("bad parse error %v", err)
			}
			return
		}
		if file == nil {
			t.Fatal("nil file without error")
		}
		// Both readings of a quantifier after a rule reference, and of
		// phrase sets.
		for _, opts := range []Options{{WorkLimit: 20000}, {WorkLimit: 20000, QuantifiedRules: true, PhraseSets: true}} {
			g, err := CompileString("f.agr", src, opts)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("compile error without position: %v", err)
				}
				continue
			}
			for _, in := range []string{"", "a", "play x by y", "1 2 3", "first one", "x? y*", strings.Repeat("a b ", 20)} {
				if _, err := g.Match(in); err != nil && !errors.Is(err, ErrWorkLimit) {
					t.Fatalf("match %q: %v", in, err)
				}
				if err := g.Explain(in); err != nil && !errors.Is(err, ErrWorkLimit) {
					var nm *NoMatchError
					if !errors.As(err, &nm) || nm.Offset < 0 || nm.Offset > len(in) {
						t.Fatalf("explain %q: %v", in, err)
					}
				}
			}
		}
	})
}

// FuzzMatch matches arbitrary inputs against the fixture grammars and, when
// the shared data is present, a few real ones: no panic, no run-away (the
// work limit turns it into ErrWorkLimit), distinct values, Best agreeing
// with Match, and, on the fixtures, the same results as the naive matcher.
func FuzzMatch(f *testing.F) {
	var gs, naive []*Grammar
	for _, name := range []string{"music.agr", "spacing.agr", "values.agr"} {
		g, err := Compile(FSLoader{os.DirFS("testdata")}, name, Options{WorkLimit: 50000})
		if err != nil {
			f.Fatal(err)
		}
		gs = append(gs, g)
		n, _ := Compile(FSLoader{os.DirFS("testdata")}, name, Options{WorkLimit: 200000, naive: true})
		naive = append(naive, n)
	}
	// The verbs' argument grammars, against the naive matcher too.
	files, _ := filepath.Glob(filepath.Join("..", "verbs", "grammars", "*.agr"))
	for _, file := range files {
		if filepath.Base(file) == "common.agr" {
			continue
		}
		g, err := Compile(OSLoader{}, file, Options{WorkLimit: 50000})
		if err != nil {
			f.Fatal(err)
		}
		gs = append(gs, g)
		n, _ := Compile(OSLoader{}, file, Options{WorkLimit: 200000, naive: true})
		naive = append(naive, n)
	}
	base := os.Getenv("DIALECT_DATA")
	if base == "" {
		base = filepath.Join("..", "..", "shared", "data")
	}
	for _, name := range []string{"player", "calendar", "code-editor", "email", "weather", "discord", "taskflow"} {
		if g, err := Compile(OSLoader{}, filepath.Join(base, "agr", "grammars", name+".agr"), Options{WorkLimit: 50000}); err == nil {
			gs = append(gs, g)
		}
	}
	for _, s := range []string{"play Stand by Me by Ben E. King", "pause the music", "select twenty one songs", "sum 1 and 2",
		"'create' 'a' 'function' 'called' x 'in' y", "¿pause?", "what's the weather in Paris", "", "\xff\xfe", "ΣΑΣ σας", "zw1 zq2 always"} {
		for i := range gs {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, in string) {
		g := gs[int(which)%len(gs)]
		if i := int(which) % len(gs); i < len(naive) {
			compareNaive(t, g, naive[i], in) // the optimizations change nothing
		}
		ms, err := g.Match(in)
		if err != nil {
			if !errors.Is(err, ErrWorkLimit) {
				t.Fatalf("%q: %v", in, err)
			}
			return
		}
		seen := map[string]bool{}
		for _, m := range ms {
			k := Canonical(m.Value)
			if seen[k] {
				t.Fatalf("%q: duplicate match %s", in, k)
			}
			seen[k] = true
		}
		best, err := g.Best(in)
		if len(ms) == 0 {
			if !errors.Is(err, ErrNoMatch) {
				t.Fatalf("%q: Best without a match: %v", in, err)
			}
			return
		}
		if err != nil || Canonical(best.Value) != Canonical(ms[0].Value) || best.MatchedValues != ms[0].MatchedValues || best.WildcardChars != ms[0].WildcardChars {
			t.Fatalf("%q: Best %v %+v (%v) differs from Match's first %v %+v", in, best.Value, best, err, ms[0].Value, ms[0])
		}
	})
}
