package grammarbridge

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestParseStructure(t *testing.T) {
	src := `// header
import { Ordinal, Cardinal };
import { Actions } from "./schema.ts";
import * from "./all.agr";
export <Start> : A | B [spacing=optional] =
    [spacing=none] play 'it'? \-now #$(n:number)? <R>? (a | b -> "B")* $(x) $(y:<R>)
    -> { k: n, x, arr: [x, ...y], t: ` + "`a${x}b`" + ` }
  | stop;`
	f, err := Parse("t.agr", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Imports) != 3 || f.Imports[0].From != "" || !f.Imports[1].IsType() || !f.Imports[2].All || f.Imports[2].IsType() {
		t.Fatalf("imports: %+v", f.Imports)
	}
	if got := f.Imports[0].Names; len(got) != 2 || got[1] != "Cardinal" {
		t.Errorf("entity names %v", got)
	}
	if len(f.Rules) != 1 {
		t.Fatalf("rules: %d", len(f.Rules))
	}
	r := f.Rules[0]
	if !r.Export || r.Name != "Start" || r.Type != "A | B" || !r.HasSpacing || r.Spacing != SpacingOptional {
		t.Errorf("rule header: %+v", r)
	}
	if r.Pos.Line != 5 || r.Pos.Col != 1 {
		t.Errorf("rule pos %+v", r.Pos)
	}
	if len(r.Alts) != 2 {
		t.Fatalf("alts: %d", len(r.Alts))
	}
	a := r.Alts[0]
	if !a.HasSpacing || a.Spacing != SpacingNone {
		t.Errorf("alt annotation: %+v", a)
	}
	lit, ok := a.Parts[0].(*Literal)
	if !ok || strings.Join(lit.Tokens, "|") != "play|'it'?|-now|#" {
		t.Fatalf("literal: %#v", a.Parts[0])
	}
	if lit.Pos.Line != 6 || lit.Pos.Col != 20 {
		t.Errorf("literal pos %+v", lit.Pos)
	}
	c, ok := a.Parts[1].(*Capture)
	if !ok || c.Var != "n" || c.Kind != CaptureNumber || !c.Optional {
		t.Errorf("number capture: %#v", a.Parts[1])
	}
	if rr, ok := a.Parts[2].(*RuleRef); !ok || rr.Name != "R" || rr.Quant != QuantOpt {
		t.Errorf("rule ref: %#v", a.Parts[2])
	}
	g, ok := a.Parts[3].(*Group)
	if !ok || g.Quant != QuantStar || len(g.Alts) != 2 || g.Alts[1].Value == nil {
		t.Errorf("group: %#v", a.Parts[3])
	}
	if c, ok := a.Parts[4].(*Capture); !ok || c.Type != "string" || c.Kind != CaptureWildcard {
		t.Errorf("bare capture: %#v", a.Parts[4])
	}
	if c, ok := a.Parts[5].(*Capture); !ok || c.Kind != CaptureRule || c.Type != "R" {
		t.Errorf("rule capture: %#v", a.Parts[5])
	}
	obj, ok := a.Value.(*ObjectValue)
	if !ok || len(obj.Props) != 4 {
		t.Fatalf("value: %#v", a.Value)
	}
	if v, ok := obj.Props[1].Value.(*VarValue); !ok || v.Name != "x" || obj.Props[1].Key != "x" {
		t.Errorf("shorthand: %#v", obj.Props[1])
	}
	if arr, ok := obj.Props[2].Value.(*ArrayValue); !ok || len(arr.Elems) != 2 || !arr.Spread[1] {
		t.Errorf("array: %#v", obj.Props[2].Value)
	}
	if tv, ok := obj.Props[3].Value.(*TemplateValue); !ok || len(tv.Strs) != 2 || tv.Strs[1] != "b" {
		t.Errorf("template: %#v", obj.Props[3].Value)
	}
}

func TestParseValueOperators(t *testing.T) {
	f, err := Parse("v.agr", `<S> = x -> a + b * c - d / e % f < g && h || i ?? j ? k : l;`)
	if err != nil {
		t.Fatal(err)
	}
	cond, ok := f.Rules[0].Alts[0].Value.(*CondValue)
	if !ok {
		t.Fatalf("top is %T, want a conditional", f.Rules[0].Alts[0].Value)
	}
	// ?? binds loosest, then ||, then &&.
	if b, ok := cond.Test.(*BinaryValue); !ok || b.Op != "??" {
		t.Fatalf("test is %#v", cond.Test)
	}
}

// TestParseQuoted checks value strings read in place (no escape) and
// through the escapes, in both quotes.
func TestParseQuoted(t *testing.T) {
	tests := []struct{ src, want string }{
		{`"plain"`, "plain"},
		{`'single'`, "single"},
		{`"it's"`, "it's"},
		{`'say "hi"'`, `say "hi"`},
		{`""`, ""},
		{`"a\nb"`, "a\nb"},
		{`"tab\there"`, "tab\there"},
		{`'it\'s'`, "it's"},
		{`"\u0041\x42"`, "AB"},
		{`"ends in escape\\"`, `ends in escape\`},
	}
	for _, tt := range tests {
		f, err := Parse("q.agr", "<S> = x -> "+tt.src+";")
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		v, ok := f.Rules[0].Alts[0].Value.(*LitValue)
		if !ok || v.Value != tt.want {
			t.Errorf("%s: got %#v, want %q", tt.src, f.Rules[0].Alts[0].Value, tt.want)
		}
	}
	for _, src := range []string{`"abc`, `"ab\"`, "'a\nb'"} {
		if _, err := Parse("q.agr", "<S> = x -> "+src); !errors.Is(err, ErrSyntax) {
			t.Errorf("%s: got %v, want a syntax error", src, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src string
		line, col int
		msg       string
	}{
		{"no semicolon", "<S> = a b", 1, 10, "expected ';'"},
		{"unclosed capture", "<S> = $(x:wildcard", 1, 19, "expected ')' to close $(x"},
		{"bare hyphen", "<S> = wi-fi;", 1, 9, `expected '\-'`},
		{"bare dollar", "<S> = costs $5;", 1, 13, `expected '\$'`},
		{"unclosed group", "<S> = (a | b;", 1, 13, "expected ')'"},
		{"bad annotation", "<S> [spacing=sometimes] = a;", 1, 14, "unknown spacing mode"},
		{"missing equals", "<S> a;", 1, 5, "expected '=' after <S>"},
		{"bad value", "<S> = a -> ;", 1, 12, "expected a value"},
		{"unterminated string", "<S> = a -> \"abc\n;", 1, 12, "unterminated string"},
		{"garbage at top", "play music;", 1, 1, "expected an import or a rule definition"},
		{"unclosed comment", "<S> = a; /* x", 1, 10, "unterminated /* comment"},
		{"empty alternative", "<S> = a | ;", 1, 11, "to start the alternative"},
		{"second line", "<S> = a;\n<T> = $(:x);", 2, 9, "expected a variable name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("e.agr", tt.src)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want *Error", err)
			}
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("not ErrSyntax: %v", err)
			}
			if e.Pos.Line != tt.line || e.Pos.Col != tt.col || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("got %v, want %d:%d %q", err, tt.line, tt.col, tt.msg)
			}
			if !strings.HasPrefix(err.Error(), "e.agr:") {
				t.Errorf("error lacks file name: %v", err)
			}
		})
	}
}

// TestPosAnyOrder checks the parser's line cursor: positions asked for in
// any order (forward, backward, far jumps) give the line and column that
// counting from the start gives.
func TestPosAnyOrder(t *testing.T) {
	src := "a\nbb\n\nccc\r\ndddd\n\n\n\n\n\n\ne\nf"
	p := &parser{src: src}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			p.lines = append(p.lines, i+1)
		}
	}
	want := func(off int) Pos {
		line, col := 1, 1
		for i := 0; i < off; i++ {
			if src[i] == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return Pos{Offset: off, Line: line, Col: col}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		off := r.IntN(len(src) + 1)
		if r.IntN(3) == 0 {
			off = min(len(src), p.lines[min(p.line, len(p.lines)-1)]+r.IntN(3)) // near the cursor
		}
		if got := p.pos(off); got != want(off) {
			t.Fatalf("pos(%d) = %+v, want %+v", off, got, want(off))
		}
	}
}
