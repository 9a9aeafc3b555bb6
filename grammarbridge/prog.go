package grammarbridge

import (
	"math/bits"
	"slices"
	"sync/atomic"
)

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
	id   int32  // index for the matcher's memo tables
	name string // rule name; "(group)" for groups
	alts []*calt

	// first is the set of folded ASCII bytes a match can start with (after
	// separators), unless firstAny: some alternative can start with
	// anything (a capture, an optional part, a non-ASCII letter...).
	first    byteSet
	firstAny bool
	// anyStart: some match can start with any byte; nullable: the rule
	// can match nothing (firstAny is either).
	anyStart, nullable bool

	// firstIdx, for rules with several alternatives, gives for each
	// folded first byte (128: the end of the input) the index in
	// firstLists of the alternatives that may start with it, in order:
	// the matcher skips the others without testing each (see altsFor).
	firstIdx   *[129]uint8
	firstLists [][]*calt
	// firstWords[j], when every alternative of firstLists[j] (of alts,
	// j = 0, when there is no firstIdx) begins with a literal with a
	// first-word test (cpart.fword, fmask), holds those tests as word,
	// mask pairs: Grammar.cannotStart applies them to the start rule
	// (the only rule that has them).
	firstWords [][]uint64
	// startTests: firstWords has a test, or r cannot start with
	// anything (cannotStart has something to test).
	startTests bool
	// startAct is cannotStart's table of what each input byte means
	// (startSep...), made on first use.
	startAct atomic.Pointer[[256]uint8]

	// tree and firstTrees are the prefix trees (share.go) of alts and of
	// each of firstLists, or nil where no two alternatives tried one
	// after the other begin alike.
	tree       []shareNode
	firstTrees [][]shareNode
	// kwTrees: the rule is a group of keywords whose trees have leaves
	// and literal nodes only (matcher.keywordTree).
	kwTrees bool
	// minLen is the least number of input bytes a match needs (minlen.go).
	minLen int32
	// leads, for a rule whose alternatives all begin with a literal, a
	// group of keywords or a number (simpleOpens, leadsFindable), lists
	// those first parts in search order, a group's keywords one by one:
	// what a walk or a test with a wildcard open looks for (simple.go).
	leads []ruleLead
}

// ruleLead is one first part that a match of a rule may begin with: p,
// a literal (with spacing sp) or a number, that begins alternative a
// (for a keyword, the alternative whose first part is its group).
type ruleLead struct {
	a  *calt
	p  *cpart
	sp Spacing
}

// altsFor returns r's alternatives that may match where the folded first
// byte is ch (-1 at the end of the input), when known; otherwise all of
// them. The others would fail their first-byte test.
func (r *crule) altsFor(ch int, known bool) []*calt {
	if !known || r.firstIdx == nil {
		return r.alts
	}
	if ch < 0 {
		ch = 128
	}
	return r.firstLists[r.firstIdx[ch]]
}

// buildStartTests fills r.firstWords and r.startTests, which
// Grammar.cannotStart reads of the start rule only: the compiler calls
// it for that rule, after buildDispatchLists.
func (r *crule) buildStartTests() {
	if r.firstIdx == nil {
		r.firstWords = [][]uint64{wordTests(r.alts)}
	} else {
		r.firstWords = make([][]uint64, len(r.firstLists))
		for j, l := range r.firstLists {
			r.firstWords[j] = wordTests(l)
		}
	}
	r.startTests = !r.firstAny
	for _, ws := range r.firstWords {
		r.startTests = r.startTests || ws != nil
	}
}

// What an input byte where a match of the start rule would begin means
// (crule.startAct): a separator, not known (the search decides), no match,
// or startWords+j: the alternatives it selects all begin with literals,
// whose tests are firstWords[j].
const (
	startSep uint8 = iota
	startSearch
	startNone
	startWords
)

// makeStartAct returns r's startAct, making it.
func (r *crule) makeStartAct() *[256]uint8 {
	t := new([256]uint8)
	for c := range 256 {
		b := byte(c)
		switch {
		case b < 0x80 && asciiSep[b]:
			t[c] = startSep
		case b >= 0x80:
			t[c] = startSearch
		default:
			ch := b | asciiUpper[b]
			j := 0
			if r.firstIdx != nil {
				j = int(r.firstIdx[ch])
			}
			switch {
			case !r.firstAny && !r.first.has(ch):
				t[c] = startNone
			case j < len(r.firstWords) && r.firstWords[j] != nil && j < 256-int(startWords):
				t[c] = startWords + uint8(j)
			default:
				t[c] = startSearch
			}
		}
	}
	r.startAct.Store(t)
	return t
}

// wordTests returns the distinct first-word tests of alts as word, mask
// pairs, or nil unless each of them begins with a literal that has one.
func wordTests(alts []*calt) []uint64 {
	var ws []uint64
next:
	for _, a := range alts {
		p := a.lit0
		if p == nil || p.fmask == 0 || a.firstAny {
			return nil
		}
		for i := 0; i < len(ws); i += 2 {
			if ws[i] == p.fword && ws[i+1] == p.fmask {
				continue next // many alternatives begin alike
			}
		}
		ws = append(ws, p.fword, p.fmask)
	}
	return ws
}

// dispatchSlabs holds the slabs a compile's rules take their dispatch
// tables and lists from (buildDispatchLists).
type dispatchSlabs struct {
	idx   slab[[129]uint8]
	alts  slab[*calt]
	lists slab[[]*calt]
}

// buildDispatchLists fills r.firstIdx and r.firstLists from the
// alternatives' first-byte sets, taking their room from s.
func (r *crule) buildDispatchLists(s *dispatchSlabs) {
	n := len(r.alts)
	if n < 2 || r.firstAny && allFirstAny(r.alts) {
		return
	}
	words := (n + 63) / 64
	// perByte[c*words:(c+1)*words] is the set of alternatives byte c
	// selects.
	var stack [129]uint64
	perByte := stack[:]
	if words > 1 {
		perByte = make([]uint64, 129*words)
	}
	for i, a := range r.alts {
		bit, w := uint64(1)<<(i%64), i/64
		if a.firstAny {
			for c := range 129 {
				perByte[c*words+w] |= bit
			}
			continue
		}
		for h, set := range a.first {
			for set != 0 {
				c := h*64 + bits.TrailingZeros64(set)
				set &= set - 1
				perByte[c*words+w] |= bit
			}
		}
	}
	// The bytes no alternative names, and the end (128), all select the
	// alternatives that may start with anything: compare one of them only.
	var named byteSet
	for _, a := range r.alts {
		if !a.firstAny {
			named.union(&a.first)
		}
	}
	other := -1
	var idx [129]uint8 // copied to the slab when the rule has lists
	var distinct []int // first byte of each distinct set
next:
	for c := range 129 {
		if c == 128 || !named.has(byte(c)) {
			if other >= 0 {
				idx[c] = idx[other]
				continue
			}
			other = c
		}
		m := perByte[c*words : (c+1)*words]
		for j, d := range distinct {
			if perByte[d*words] == m[0] && slices.Equal(perByte[d*words:(d+1)*words], m) {
				idx[c] = uint8(j)
				continue next
			}
		}
		if len(distinct) == 256 {
			return // too many different lists: no dispatch
		}
		idx[c] = uint8(len(distinct))
		distinct = append(distinct, c)
	}
	if len(distinct) == 1 {
		return // every byte selects the same alternatives
	}
	total := 0
	for _, d := range distinct {
		for _, w := range perByte[d*words : (d+1)*words] {
			total += bits.OnesCount64(w)
		}
	}
	all := s.alts.make(total)[:0] // one array for every list
	lists := s.lists.make(len(distinct))
	for j, d := range distinct {
		m := perByte[d*words : (d+1)*words]
		start := len(all)
		for i, a := range r.alts {
			if m[i/64]&(1<<(i%64)) != 0 {
				all = append(all, a)
			}
		}
		lists[j] = all[start:len(all):len(all)]
	}
	r.firstIdx, r.firstLists = s.idx.new(), lists
	*r.firstIdx = idx
}

func allFirstAny(alts []*calt) bool {
	for _, a := range alts {
		if !a.firstAny {
			return false
		}
	}
	return true
}

// byteSet is a set of ASCII bytes.
type byteSet [2]uint64

func (s *byteSet) add(c byte)       { s[c>>6] |= 1 << (c & 63) }
func (s *byteSet) has(c byte) bool  { return s[c>>6]&(1<<(c&63)) != 0 }
func (s *byteSet) union(t *byteSet) { s[0] |= t[0]; s[1] |= t[1] }

// calt is a compiled alternative.
type calt struct {
	id       int32 // index in Grammar.alts
	first    byteSet
	firstAny bool // see crule
	parts    []cpart
	lit0     *cpart // literalAt(0), set once the parts are final
	// kwFirst: the first part is a group of keywords, not optional
	// (tryAlts matches it in place).
	kwFirst bool
	spacing Spacing
	nslots  int
	// minFrom[i] is the least number of input bytes parts [i:] need
	// (minlen.go); minFrom[len(parts)] is 0.
	minFrom []int32

	value    ValueExpr // explicit value, or nil
	vars     varSet    // the captured variables by slot, for value
	implicit implicitKind
	text     any    // for implicitText: the literal as written, boxed once
	textHash uint64 // hashValue(text)
	textLit  int32  // text's index in Grammar.vt.lits
	vx       *vexpr // value compiled for the arena, or nil (see lazy.go)
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

// cpart is one compiled part. Its flags come first, packed into one
// word.
type cpart struct {
	kind partKind
	// valueUsed: the alternative uses this rule part's value (it is
	// captured, or it is the alternative's only part and gives its value).
	// When not, the matcher merges the rule's outcomes without building
	// their values.
	valueUsed bool
	// keywords: the rule's alternatives are each one literal and capture
	// nothing, and the part does not repeat: the matcher tries them in
	// place (see matcher.keywords).
	keywords bool
	// silent: the rule's value is not used and it captures no text or
	// number, at any depth: the matcher puts none of its events on the
	// trail (they could only make a value that goes nowhere).
	silent   bool
	optional bool  // ? (or * for rules)
	repeat   bool  // * or +
	simple   uint8 // simpleShut, simpleOpen, simpleLead: how step treats the rule part (simple.go)
	// asciiToks: every token is ASCII and none but the first starts with
	// a separator unless it has lead (see matcher.tokensASCII).
	asciiToks bool
	slot      int // variable slot, or -1
	rule      *crule
	name      string // variable name, or rule name for references (for expected lists)

	toks []ctoken  // literal tokens
	seps []sepKind // seps[i] is between toks[i] and toks[i+1]
	// fword and fmask, when the first token is ASCII and does not start
	// with a separator, are its ctoken.word and mask (else 0): on ASCII
	// input the literal can only match where the first bytes after the
	// separators are those (see matcher.firstWord).
	fword, fmask uint64
	text         string // tokens joined by single spaces, as written
}

// ctoken is a literal token.
type ctoken struct {
	src      string // as written
	lower    string // lower-cased, when ascii
	lowerB   []byte // lower, as bytes (for searching matcher.lower)
	word     uint64 // lower's first eight bytes, little-endian (ascii)
	mask     uint64 // the bits of word that hold them
	ascii    bool   // the token is all ASCII
	sepFirst bool   // its first character is a separator ('s)
	// lead, for an ASCII token that starts with separators and has a
	// character that is not one ('send'), is how many separators it
	// starts with; 0 otherwise.
	lead int
	// rest is lowerB past the lead separators (all of it when lead is
	// 0): what a search after a wildcard looks for. pair is the pairHash
	// of its first two bytes, when it has two (hasPair).
	rest    []byte
	pair    uint16
	hasPair bool
	rare    uint8 // the place of the byte whose places are walked (rareByte)
	rareB   byte  // that byte: lower[rare]
	// search, for the first token of a literal part, identifies its
	// lower-cased text among the grammar's (from 1; 0: none): the
	// matcher keeps the places of each in the input (occur.go).
	search int32
}

// sepKind is the separator rule between two tokens of a literal.
type sepKind uint8

const (
	sepOptional sepKind = iota // zero or more separators
	sepRequired                // one or more
	sepNone                    // none allowed
)
