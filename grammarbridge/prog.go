package grammarbridge

// This file holds the compiled form of a grammar: what the matcher runs.
// Rules and groups become crules; every alternative becomes a calt whose
// parts are flat instructions with their tokens folded in advance.

// partKind is the kind of a compiled part.
type partKind uint8

const (
	partString   partKind = iota // literal tokens
	partWildcard                 // $(x:wildcard|string|word|Entity)
	partNumber                   // $(x:number)
	partRules                    // <Rule>, $(x:<Rule>) or a group
	partPhrase                   // a phrase set that matches nothing (TypeAgent's AST matcher)
)

// crule is a compiled rule or group.
type crule struct {
	name string // rule name; "(group)" for groups
	alts []*calt

	// first lists the folded first bytes any match must start with (after
	// separators), when every alternative starts with a literal whose first
	// byte is ASCII; firstAny is set otherwise.
	first    [128]bool
	firstAny bool
}

// calt is a compiled alternative.
type calt struct {
	id      int32 // index in Grammar.alts
	parts   []cpart
	spacing Spacing
	nslots  int

	value    ValueExpr      // explicit value, or nil
	vars     map[string]int // variable -> slot, for value
	implicit implicitKind
	text     string // for implicitText
}

// implicitKind says how an alternative without "->" gets its value.
type implicitKind uint8

const (
	implicitNone     implicitKind = iota // no value
	implicitSlot                         // the single variable's value
	implicitText                         // the single literal, as written
	implicitChild                        // the single rule or group's value
	implicitExplicit                     // it has an explicit value
)

// cpart is one compiled part.
type cpart struct {
	kind     partKind
	slot     int  // variable slot, or -1
	optional bool // ? (or * for rules)
	repeat   bool // * or +
	rule     *crule
	name     string // variable name, or rule name for references (for expected lists)
	typ      string // capture type as written

	toks []ctoken  // literal tokens
	seps []sepKind // seps[i] is between toks[i] and toks[i+1]
	text string    // tokens joined by single spaces, as written
}

// ctoken is a literal token, stored as runes for case-folded comparison.
type ctoken struct {
	runes []rune
	ascii []byte // lower-cased bytes when the token is all ASCII
	src   string // as written
}

// sepKind is the separator rule between two tokens of a literal.
type sepKind uint8

const (
	sepOptional sepKind = iota // zero or more separators
	sepRequired                // one or more
	sepNone                    // none allowed
)
