package grammarbridge

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Match is one distinct value that a grammar gives an input.
type Match struct {
	// Value is a plain Go value: map[string]any, []any, string, float64,
	// bool or nil.
	Value any
	// MatchedValues is TypeAgent's matchedValueCount: how many captured
	// values (wildcards and numbers) the value was built from.
	MatchedValues int
	// WildcardChars is TypeAgent's wildcardCharCount: the total length, in
	// UTF-16 code units, of the wildcard text in the value.
	WildcardChars int
}

// Match returns every distinct value the grammar gives input, best first
// (TypeAgent's ranking: values without wildcard text, then more matched
// values, then fewer wildcard characters; ties keep the matcher's order).
// No match is an empty list and a nil error; an input that needs more work
// than the limit fails with an error matching ErrWorkLimit.
func (g *Grammar) Match(input string) ([]Match, error) {
	m := g.newMatcher(input, false)
	m.run()
	if m.err != nil {
		return nil, m.err
	}
	return m.ranked(), nil
}

// Best returns the best match for input. When nothing matches, the error
// is a *NoMatchError (matching ErrNoMatch) that says what the grammar would
// have accepted at the furthest point reached.
func (g *Grammar) Best(input string) (Match, error) {
	ms, err := g.Match(input)
	if err != nil {
		return Match{}, err
	}
	if len(ms) > 0 {
		return ms[0], nil
	}
	return Match{}, g.Explain(input)
}

// Explain matches input while recording, at the furthest input position any
// alternative reached, what it expected there. It returns a *NoMatchError,
// or nil when input matches.
func (g *Grammar) Explain(input string) error {
	m := g.newMatcher(input, true)
	m.run()
	if m.err != nil {
		return m.err
	}
	if len(m.results) > 0 {
		return nil
	}
	exp := make([]string, 0, len(m.expected))
	for e := range m.expected {
		exp = append(exp, e)
	}
	sort.Strings(exp)
	return &NoMatchError{Input: input, Offset: m.far, Expected: exp}
}

// event is one entry of the matcher's trail, from which values are built
// once a parse succeeds.
type event struct {
	kind evKind
	slot int32
	alt  *calt  // evBegin
	part *cpart // evBegin: the part in the parent that entered the rule
	a, b int    // evWild: trimmed text bounds
	num  float64
}

type evKind uint8

const (
	evBegin evKind = iota
	evEnd
	evWild
	evNum
)

// wild is a pending wildcard: its text starts at start and ends where the
// next part is found. start < 0 means none is pending.
type wild struct {
	start int
	ev    int // trail index of its evWild
}

var noWild = wild{start: -1}

// cont is a continuation: where to resume when the current alternative
// completes.
type cont struct {
	parent *cont
	alt    *calt
	part   int
	pos    int // input position where this rule was entered (for repeats)
	depth  int
}

// matcher is the state of one match of one input.
type matcher struct {
	g     *Grammar
	in    string
	trail []event
	work  int
	limit int
	err   error

	results []result
	index   map[string]int // canonical value -> results index

	track    bool
	far      int
	expected map[string]bool
}

// result is one distinct value and its best rank.
type result struct {
	key   string
	value any
	st    stats
	order int
}

func (g *Grammar) newMatcher(input string, track bool) *matcher {
	limit := g.opts.WorkLimit
	if limit <= 0 {
		limit = DefaultWorkLimit
	}
	m := &matcher{g: g, in: input, limit: limit, track: track}
	if track {
		m.expected = map[string]bool{}
		m.far = -1
	}
	return m
}

func (m *matcher) run() {
	m.trail = make([]event, 0, 32)
	for _, a := range m.g.start.alts {
		m.trail = append(m.trail, event{kind: evBegin, alt: a})
		m.step(nil, a, 0, 0, noWild)
		m.trail = m.trail[:0]
		if m.err != nil {
			return
		}
	}
}

// expect records, in tracking mode, that what was expected at pos.
func (m *matcher) expect(pos int, what string) {
	for pos < len(m.in) {
		r, n := utf8.DecodeRuneInString(m.in[pos:])
		if !isSep(r) {
			break
		}
		pos += n
	}
	if pos > m.far {
		m.far = pos
		clear(m.expected)
	}
	if pos == m.far {
		m.expected[what] = true
	}
}

// step matches part i of alternative a at pos, then everything after it.
func (m *matcher) step(c *cont, a *calt, i int, pos int, w wild) {
	if m.err != nil {
		return
	}
	m.work++
	if m.work > m.limit {
		m.err = fmt.Errorf("grammar match: more than %d steps: %w", m.limit, ErrWorkLimit)
		return
	}
	if i == len(a.parts) {
		m.finishAlt(c, a, pos, w)
		return
	}
	p := &a.parts[i]
	switch p.kind {
	case partString:
		if w.start >= 0 {
			for t := w.start; t < len(m.in); {
				if e, ok := m.tokensAt(p, a.spacing, t); ok && m.setWild(w, t) {
					m.step(c, a, i+1, e, noWild)
					if m.err != nil {
						return
					}
				}
				m.work++
				_, n := utf8.DecodeRuneInString(m.in[t:])
				t += n
			}
			return
		}
		if e, ok := m.stringAt(p, a.spacing, pos); ok {
			m.step(c, a, i+1, e, noWild)
		} else if m.track {
			m.expect(pos, p.text)
		}
	case partNumber:
		if w.start >= 0 {
			for t := w.start; t < len(m.in); {
				if v, e, ok := m.numberAt(a.spacing, t); ok && m.boundary(t, a.spacing) && m.setWild(w, t) {
					m.bindNumber(c, a, i, p, v, e)
					if m.err != nil {
						return
					}
				}
				m.work++
				_, n := utf8.DecodeRuneInString(m.in[t:])
				t += n
			}
		} else if v, e, ok := m.numberLazy(a.spacing, pos); ok {
			m.bindNumber(c, a, i, p, v, e)
		} else if m.track {
			m.expect(pos, "$("+p.name+":number)")
		}
		if p.optional {
			m.step(c, a, i+1, pos, w)
		}
	case partWildcard:
		if w.start < 0 {
			if m.track {
				m.expect(pos, "$("+p.name+")")
			}
			n := len(m.trail)
			m.trail = append(m.trail, event{kind: evWild, slot: int32(p.slot)})
			m.step(c, a, i+1, pos, wild{start: pos, ev: n})
			m.trail = m.trail[:n]
		}
		// A wildcard directly after another never matches (TypeAgent).
		if p.optional {
			m.step(c, a, i+1, pos, w)
		}
	case partRules:
		depth := 1
		if c != nil {
			depth = c.depth + 1
		}
		if depth > maxDepth {
			m.err = fmt.Errorf("grammar match: rules nested more than %d deep (left recursion?): %w", maxDepth, ErrWorkLimit)
			return
		}
		m.enter(&cont{parent: c, alt: a, part: i, pos: pos, depth: depth}, p, pos, w)
		if p.optional {
			m.step(c, a, i+1, pos, w)
		}
	case partPhrase:
		m.step(c, a, i+1, pos, w)
	}
}

// enter tries every alternative of p's rule at pos, continuing with k.
func (m *matcher) enter(k *cont, p *cpart, pos int, w wild) {
	r := p.rule
	if w.start < 0 && !r.firstAny {
		q := pos
		for q < len(m.in) {
			ch := m.in[q]
			if ch >= utf8.RuneSelf {
				q = -1
				break
			}
			if !asciiSep[ch] {
				break
			}
			q++
		}
		if q >= 0 {
			if q == len(m.in) {
				if m.track {
					m.expectRule(pos, r)
				}
				return
			}
			ch := m.in[q]
			if 'A' <= ch && ch <= 'Z' {
				ch += 'a' - 'A'
			}
			if !r.first[ch] {
				if m.track {
					m.expectRule(pos, r)
				}
				return
			}
		}
	}
	n := len(m.trail)
	for _, sub := range r.alts {
		m.trail = append(m.trail, event{kind: evBegin, alt: sub, part: p})
		m.step(k, sub, 0, pos, w)
		m.trail = m.trail[:n]
		if m.err != nil {
			return
		}
	}
}

// expectRule records the first literals of r as expected at pos.
func (m *matcher) expectRule(pos int, r *crule) {
	for _, a := range r.alts {
		if len(a.parts) > 0 {
			p := &a.parts[0]
			switch p.kind {
			case partString:
				m.expect(pos, p.text)
			case partRules:
				if p.rule != r {
					m.expectRule(pos, p.rule)
				}
			}
		}
	}
}

func (m *matcher) bindNumber(c *cont, a *calt, i int, p *cpart, v float64, e int) {
	n := len(m.trail)
	m.trail = append(m.trail, event{kind: evNum, slot: int32(p.slot), num: v})
	m.step(c, a, i+1, e, noWild)
	m.trail = m.trail[:n]
}

// finishAlt continues after alternative a has matched up to pos.
func (m *matcher) finishAlt(c *cont, a *calt, pos int, w wild) {
	n := len(m.trail)
	m.trail = append(m.trail, event{kind: evEnd})
	defer func() { m.trail = m.trail[:n] }()
	if c == nil {
		m.finishTop(pos, w)
		return
	}
	p := &c.alt.parts[c.part]
	if p.repeat && pos > c.pos {
		m.enter(&cont{parent: c.parent, alt: c.alt, part: c.part, pos: pos, depth: c.depth}, p, pos, w)
	}
	m.step(c.parent, c.alt, c.part+1, pos, w)
}

// finishTop completes a parse of the whole input: a pending wildcard takes
// the rest; otherwise only separators may remain.
func (m *matcher) finishTop(pos int, w wild) {
	if w.start >= 0 {
		if !m.setWild(w, len(m.in)) {
			return
		}
	} else if !onlySeps(m.in[pos:]) {
		if m.track {
			m.expect(pos, "end of input")
		}
		return
	}
	m.record()
}

// setWild ends the pending wildcard w at end; its text, trimmed of
// separators, must not be empty.
func (m *matcher) setWild(w wild, end int) bool {
	a, b := trimSeps(m.in, w.start, end)
	if a == b {
		return false
	}
	ev := &m.trail[w.ev]
	ev.a, ev.b = a, b
	return true
}

// stringAt matches a literal part at pos, skipping separators lazily (the
// fewest that let the part match), as TypeAgent's regular expression does.
func (m *matcher) stringAt(p *cpart, sp Spacing, pos int) (int, bool) {
	for {
		if e, ok := m.tokensAt(p, sp, pos); ok {
			return e, true
		}
		if pos >= len(m.in) {
			return 0, false
		}
		r, n := utf8.DecodeRuneInString(m.in[pos:])
		if !isSep(r) {
			return 0, false
		}
		pos += n
	}
}

// tokensAt matches p's tokens starting exactly at pos, followed by a valid
// boundary, and returns the end.
func (m *matcher) tokensAt(p *cpart, sp Spacing, pos int) (int, bool) {
	return m.tokensFrom(p, sp, 0, pos)
}

func (m *matcher) tokensFrom(p *cpart, sp Spacing, i, pos int) (int, bool) {
	e, ok := m.tokenAt(&p.toks[i], pos)
	if !ok {
		return 0, false
	}
	if i == len(p.toks)-1 {
		if m.boundary(e, sp) {
			return e, true
		}
		return 0, false
	}
	k := p.seps[i]
	if k == sepNone {
		return m.tokensFrom(p, sp, i+1, e)
	}
	// Separators between tokens are matched greedily, backing off one at a
	// time: only needed when the next token itself starts with one.
	s := e
	for s < len(m.in) {
		r, n := utf8.DecodeRuneInString(m.in[s:])
		if !isSep(r) {
			break
		}
		s += n
	}
	min := e
	if k == sepRequired {
		if s == e {
			return 0, false
		}
		_, n := utf8.DecodeRuneInString(m.in[e:])
		min = e + n
	}
	if !isSep(p.toks[i+1].runes[0]) {
		return m.tokensFrom(p, sp, i+1, s)
	}
	for q := s; q >= min; {
		m.work++
		if end, ok := m.tokensFrom(p, sp, i+1, q); ok {
			return end, true
		}
		if q == min {
			break
		}
		_, n := utf8.DecodeLastRuneInString(m.in[:q])
		q -= n
	}
	return 0, false
}

// tokenAt compares one token with the input at pos, case-insensitively.
func (m *matcher) tokenAt(t *ctoken, pos int) (int, bool) {
	in := m.in
	if t.ascii != nil {
		j := 0
		for ; j < len(t.ascii); j++ {
			if pos+j >= len(in) {
				return 0, false
			}
			c := in[pos+j]
			if c >= utf8.RuneSelf {
				break // fall back to runes: a non-ASCII letter may fold to ASCII (K, ſ)
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != t.ascii[j] {
				return 0, false
			}
		}
		if j == len(t.ascii) {
			return pos + j, true
		}
	}
	q := pos
	for _, tr := range t.runes {
		if q >= len(in) {
			return 0, false
		}
		r, n := utf8.DecodeRuneInString(in[q:])
		if !foldEq(r, tr) {
			return 0, false
		}
		q += n
	}
	return q, true
}

// boundary reports whether a part may end at pos under spacing sp.
func (m *matcher) boundary(pos int, sp Spacing) bool {
	if sp == SpacingOptional || sp == SpacingNone || pos == 0 || pos >= len(m.in) {
		return true
	}
	a, _ := utf8.DecodeLastRuneInString(m.in[:pos])
	b, _ := utf8.DecodeRuneInString(m.in[pos:])
	if sp == SpacingRequired {
		return isSep(a) || isSep(b)
	}
	return !needsSep(a, b)
}

// numberLazy matches a number at pos after the fewest separators that let
// it match.
func (m *matcher) numberLazy(sp Spacing, pos int) (float64, int, bool) {
	for {
		if v, e, ok := m.numberAt(sp, pos); ok {
			return v, e, true
		}
		if pos >= len(m.in) {
			return 0, 0, false
		}
		r, n := utf8.DecodeRuneInString(m.in[pos:])
		if !isSep(r) {
			return 0, 0, false
		}
		pos += n
	}
}

// numberAt matches a JavaScript-style number starting exactly at pos:
// 0x/0o/0b integers, or a signed decimal with optional fraction and
// exponent, followed by a valid boundary.
func (m *matcher) numberAt(sp Spacing, pos int) (float64, int, bool) {
	in := m.in
	digitsEnd := func(i int, ok func(byte) bool) int {
		for i < len(in) && ok(in[i]) {
			i++
		}
		return i
	}
	isDec := func(c byte) bool { return c >= '0' && c <= '9' }
	if pos+2 < len(in) && in[pos] == '0' {
		base := 0
		var ok func(byte) bool
		switch in[pos+1] {
		case 'x', 'X':
			base, ok = 16, func(c byte) bool { return isDec(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
		case 'o', 'O':
			base, ok = 8, func(c byte) bool { return c >= '0' && c <= '7' }
		case 'b', 'B':
			base, ok = 2, func(c byte) bool { return c == '0' || c == '1' }
		}
		if base != 0 {
			if e := digitsEnd(pos+2, ok); e > pos+2 && m.boundary(e, sp) {
				return parseBase(in[pos+2:e], base), e, true
			}
		}
	}
	i := pos
	if i < len(in) && (in[i] == '+' || in[i] == '-') {
		i++
	}
	e := digitsEnd(i, isDec)
	if e == i {
		return 0, 0, false
	}
	if e+1 < len(in) && in[e] == '.' && isDec(in[e+1]) {
		e = digitsEnd(e+1, isDec)
	}
	if e+1 < len(in) && (in[e] == 'e' || in[e] == 'E') {
		j := e + 1
		if j < len(in) && (in[j] == '+' || in[j] == '-') {
			j++
		}
		if k := digitsEnd(j, isDec); k > j {
			e = k
		}
	}
	if !m.boundary(e, sp) {
		return 0, 0, false
	}
	v, err := strconv.ParseFloat(in[pos:e], 64)
	if err != nil && !math.IsInf(v, 0) {
		return 0, 0, false
	}
	return v, e, true
}

func parseBase(digits string, base int) float64 {
	if v, err := strconv.ParseUint(digits, base, 64); err == nil {
		return float64(v)
	}
	var z big.Int
	z.SetString(digits, base)
	f, _ := new(big.Float).SetInt(&z).Float64()
	return f
}

// record builds the value of the parse on the trail and adds it to the
// results.
func (m *matcher) record() {
	v, st := m.build()
	v = plain(v)
	key := Canonical(v)
	if m.index == nil {
		m.index = map[string]int{}
	}
	if i, ok := m.index[key]; ok {
		if better(st, m.results[i].st) {
			m.results[i].st = st
			m.results[i].order = m.work
		}
		return
	}
	m.index[key] = len(m.results)
	m.results = append(m.results, result{key: key, value: v, st: st, order: m.work})
}

// better reports whether a ranks strictly before b.
func better(a, b stats) bool {
	if (a.wildChars == 0) != (b.wildChars == 0) {
		return a.wildChars == 0
	}
	if a.values != b.values {
		return a.values > b.values
	}
	return a.wildChars < b.wildChars
}

func (m *matcher) ranked() []Match {
	rs := m.results
	sort.SliceStable(rs, func(i, j int) bool {
		if better(rs[i].st, rs[j].st) {
			return true
		}
		if better(rs[j].st, rs[i].st) {
			return false
		}
		return rs[i].order < rs[j].order
	})
	out := make([]Match, len(rs))
	for i, r := range rs {
		out[i] = Match{Value: r.value, MatchedValues: r.st.values, WildcardChars: r.st.wildChars}
	}
	return out
}

// frame is an alternative being rebuilt from the trail.
type frame struct {
	alt   *calt
	part  *cpart
	slots []slotVal
	last  slotVal // value of the last rule or group matched in it
}

// build replays the trail of a successful parse and returns its value.
func (m *matcher) build() (any, stats) {
	stack := make([]frame, 0, 8)
	var out slotVal
	for i := range m.trail {
		ev := &m.trail[i]
		switch ev.kind {
		case evBegin:
			f := frame{alt: ev.alt, part: ev.part, last: slotVal{v: Undefined}}
			if ev.alt.nslots > 0 {
				f.slots = make([]slotVal, ev.alt.nslots)
				for j := range f.slots {
					f.slots[j].v = Undefined
				}
			}
			stack = append(stack, f)
		case evWild:
			s := m.in[ev.a:ev.b]
			stack[len(stack)-1].slots[ev.slot] = slotVal{v: s, st: stats{1, utf16Len(s)}}
		case evNum:
			stack[len(stack)-1].slots[ev.slot] = slotVal{v: ev.num, st: stats{1, 0}}
		case evEnd:
			f := &stack[len(stack)-1]
			v := f.value()
			part := f.part
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				out = v
				break
			}
			parent := &stack[len(stack)-1]
			parent.last = v
			if part != nil && part.slot >= 0 {
				parent.slots[part.slot] = v
			}
		}
	}
	return out.v, out.st
}

// value computes a completed alternative's value.
func (f *frame) value() slotVal {
	a := f.alt
	switch a.implicit {
	case implicitExplicit:
		e := evaluator{slots: f.slots, vars: a.vars}
		v := e.eval(a.value)
		return slotVal{v: v, st: e.st}
	case implicitSlot:
		return f.slots[0]
	case implicitText:
		// TypeAgent records a rule's default text as a matched value.
		return slotVal{v: a.text, st: stats{1, 0}}
	case implicitChild:
		return f.last
	}
	return slotVal{v: Undefined}
}

// String describes the grammar's size, for debugging.
func (g *Grammar) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "grammar: %d start alternatives", len(g.start.alts))
	return b.String()
}
