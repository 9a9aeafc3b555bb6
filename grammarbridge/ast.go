package grammarbridge

// Pos is a position in a grammar source file. Line and Col are 1-based; Col
// counts bytes, as go/scanner does.
type Pos struct {
	Offset int // byte offset from the start of the file
	Line   int // 1-based line
	Col    int // 1-based column (bytes)
}

// File is the syntax tree of one .agr file, as written: nothing is resolved.
type File struct {
	Name    string     // the name the file was loaded by
	Imports []*Import  // in source order
	Rules   []*RuleDef // in source order; one name may be defined more than once
}

// Import is one import statement.
type Import struct {
	Pos   Pos
	Names []string // imported names; empty when All is set
	All   bool     // import * from "..."
	From  string   // the source; empty for an entity import (import { Ordinal };)
}

// IsType reports whether the import names TypeScript types (a source that is
// not an .agr file). Type imports are recorded and otherwise ignored.
func (im *Import) IsType() bool {
	return im.From != "" && !hasSuffixFold(im.From, ".agr")
}

// Spacing is a rule's spacing mode: how separators are handled between the
// tokens of a literal and at the end of each part.
type Spacing uint8

// The spacing modes of TypeAgent's [spacing=...] annotation.
const (
	SpacingAuto     Spacing = iota // the default: a separator is needed only between two word-script letters or two digits
	SpacingRequired                // a separator is needed at every token boundary
	SpacingOptional                // separators are never needed
	SpacingNone                    // separators are not allowed between tokens
)

// String returns the annotation's spelling.
func (s Spacing) String() string {
	switch s {
	case SpacingRequired:
		return "required"
	case SpacingOptional:
		return "optional"
	case SpacingNone:
		return "none"
	}
	return "auto"
}

// RuleDef is one rule definition: <Name> [annotation] = alt | alt ;
type RuleDef struct {
	Pos        Pos
	Name       string
	Export     bool
	Type       string  // the value type after ':' (as written), or ""
	Spacing    Spacing // meaningful only when HasSpacing
	HasSpacing bool
	Alts       []*Alt
}

// Alt is one alternative: a sequence of parts and an optional value.
type Alt struct {
	Pos        Pos
	Spacing    Spacing // meaningful only when HasSpacing
	HasSpacing bool
	Parts      []Expr
	Value      ValueExpr // nil when there is no "-> value"
}

// Quant is a postfix quantifier.
type Quant uint8

// Quantifiers.
const (
	QuantOne  Quant = iota // no quantifier
	QuantOpt               // ?
	QuantStar              // *
	QuantPlus              // +
)

// Expr is one part of an alternative: *Literal, *RuleRef, *Capture or *Group.
type Expr interface{ exprPos() Pos }

// Literal is literal text, already split into tokens at whitespace and with
// escapes removed.
type Literal struct {
	Pos    Pos
	Tokens []string

	one [1]string // Tokens' first array, in the same allocation (the parser's)
}

// RuleRef is a reference to a rule, <Name>, possibly quantified. A
// quantifier directly after a rule reference is what the grammar's author
// wrote; TypeAgent's parser does not read it as one (Options.QuantifiedRules).
type RuleRef struct {
	Pos   Pos
	Name  string
	Quant Quant

	quantPos Pos // where the quantifier is, when Quant is not QuantOne
}

// CaptureKind says what a capture matches.
type CaptureKind uint8

// Capture kinds.
const (
	CaptureWildcard CaptureKind = iota // wildcard, string, word, or an entity type name
	CaptureNumber                      // number
	CaptureRule                        // <Rule>
)

// Capture is $(name:type) or $(name:<Rule>), possibly optional.
type Capture struct {
	Pos      Pos
	Var      string
	Kind     CaptureKind
	Type     string // as written: "wildcard", "string", "word", "number", an entity name, or the rule name
	Optional bool
}

// Group is ( alt | alt ), possibly quantified.
type Group struct {
	Pos   Pos
	Alts  []*Alt
	Quant Quant
}

func (e *Literal) exprPos() Pos { return e.Pos }
func (e *RuleRef) exprPos() Pos { return e.Pos }
func (e *Capture) exprPos() Pos { return e.Pos }
func (e *Group) exprPos() Pos   { return e.Pos }

// ValueExpr is a value expression after "->".
type ValueExpr interface{ valuePos() Pos }

// LitValue is a string, number, boolean, null or undefined literal.
type LitValue struct {
	Pos   Pos
	Value any // string, float64, bool, nil (null) or Undefined
}

// VarValue is a reference to a captured variable.
type VarValue struct {
	Pos  Pos
	Name string
}

// Property is one member of an object literal.
type Property struct {
	Key    string    // empty for a spread
	Value  ValueExpr // for shorthand { x }, a *VarValue
	Spread bool      // ...value
}

// ObjectValue is { key: value, ... }.
type ObjectValue struct {
	Pos   Pos
	Props []Property
}

// ArrayValue is [ value, ... ]; an element may be a spread.
type ArrayValue struct {
	Pos    Pos
	Elems  []ValueExpr
	Spread []bool // parallel to Elems
}

// UnaryValue is op X for op in - + ! typeof.
type UnaryValue struct {
	Pos Pos
	Op  string
	X   ValueExpr
}

// BinaryValue is X op Y.
type BinaryValue struct {
	Pos  Pos
	Op   string
	X, Y ValueExpr
}

// CondValue is Test ? Then : Else.
type CondValue struct {
	Pos              Pos
	Test, Then, Else ValueExpr
}

// MemberValue is X.Name, X?.Name, X[Index] or X?.[Index].
type MemberValue struct {
	Pos      Pos
	X        ValueExpr
	Name     string    // for .Name
	Index    ValueExpr // for [Index]
	Optional bool      // ?.
}

// CallValue is X.Method(Args...), for the closed set of methods the
// evaluator knows.
type CallValue struct {
	Pos    Pos
	X      ValueExpr
	Method string
	Args   []ValueExpr
}

// TemplateValue is a template literal `a${x}b`: len(Strs) == len(Exprs)+1.
type TemplateValue struct {
	Pos   Pos
	Strs  []string
	Exprs []ValueExpr
}

func (v *LitValue) valuePos() Pos      { return v.Pos }
func (v *VarValue) valuePos() Pos      { return v.Pos }
func (v *ObjectValue) valuePos() Pos   { return v.Pos }
func (v *ArrayValue) valuePos() Pos    { return v.Pos }
func (v *UnaryValue) valuePos() Pos    { return v.Pos }
func (v *BinaryValue) valuePos() Pos   { return v.Pos }
func (v *CondValue) valuePos() Pos     { return v.Pos }
func (v *MemberValue) valuePos() Pos   { return v.Pos }
func (v *CallValue) valuePos() Pos     { return v.Pos }
func (v *TemplateValue) valuePos() Pos { return v.Pos }
