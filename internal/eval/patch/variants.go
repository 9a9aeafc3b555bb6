package main

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/pattern-dialect/dialect/patch"
)

// change is one real change: old + diff gives new.
type change struct {
	name          string // set/NNNN
	old, new, dif string
}

// variant is a change as a model might present it: a diff and the text it
// is applied to, with the text that must come out.
type variant struct {
	old, diff, want string
}

// generator perturbs a change. ok is false when the perturbation does not
// apply to this change (then the change is not counted for the variant).
type generator struct {
	name string
	doc  string
	gen  func(ch change, r *rand.Rand) (v variant, ok bool, err error)
	ws   bool // apply with whitespace ignored (ours and GNU -l), and report without too
}

// generators returns the variants in the order they are reported. Each is
// deterministic for a seed: its random source is seeded with (seed,
// FNV-1a of "variant/change").
func generators() []generator {
	return []generator{
		{"exact", "the diff as git wrote it", exact, false},
		{"created", "the diff made by patch.Diff(old, new, 3) instead of git", created, false},
		{"drift", "1-10 new lines inserted into the text above every hunk (between it and the hunk before), diff unchanged", drift, false},
		{"lines", "every hunk's @@ line numbers shifted by an independent nonzero amount in [-40,40] (kept >= 1), counts kept", wrongLines, false},
		{"scrambled", "(extra) every hunk's @@ line numbers replaced by an independent uniform line of the text, counts kept: the numbers say nothing", scrambled, false},
		{"short", "(extra) context cut to 1 line at each end of every hunk, then line numbers shifted as in \"lines\": little context, wrong numbers", shortContext, false},
		{"headers", "everything before the first @@ removed (no diff --git, index, --- or +++ lines)", noHeaders, false},
		{"whitespace", "half of the context and removed lines damaged: leading tabs to spaces or back, trailing blanks cut or added, inner blanks doubled", whitespace, true},
		{"retyped", "(extra) every leading tab of every hunk line, added lines included, written as 4 spaces, as a model that types spaces does", retyped, true},
		{"mixed", "(extra) drift, then headers removed, then line numbers shifted as in \"lines\", then whitespace damage, all at once", mixed, true},
		{"counts", "(extra) every @@ count (,b and ,d) off by an independent nonzero amount in [-3,3] (kept >= 0)", wrongCounts, false},
		{"bare", "(extra) headers removed and every @@ line reduced to \"@@\", as models often write", bare, false},
	}
}

func rngFor(seed uint64, variant, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(variant + "/" + name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

func exact(ch change, _ *rand.Rand) (variant, bool, error) {
	return variant{ch.old, ch.dif, ch.new}, true, nil
}

func created(ch change, _ *rand.Rand) (variant, bool, error) {
	p := patch.Diff(ch.old, ch.new, patch.DefaultContext)
	p.OldName, p.NewName = "a/file", "b/file"
	return variant{ch.old, p.String(), ch.new}, true, nil
}

// fragments parses the change's diff with go-gitdiff, independently of the
// package under test.
func fragments(ch change) ([]*gitdiff.TextFragment, error) {
	files, _, err := gitdiff.Parse(strings.NewReader(ch.dif))
	if err != nil {
		return nil, err
	}
	if len(files) != 1 {
		return nil, fmt.Errorf("%s: %d files in diff", ch.name, len(files))
	}
	return files[0].TextFragments, nil
}

// splitLines splits after each "\n".
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	l := strings.SplitAfter(s, "\n")
	if l[len(l)-1] == "" {
		l = l[:len(l)-1]
	}
	return l
}

var words = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"}

// drift inserts lines into old above each hunk and the same lines at the
// same place of new: the text changed since the diff was made.
func drift(ch change, r *rand.Rand) (variant, bool, error) {
	frags, err := fragments(ch)
	if err != nil {
		return variant{}, false, err
	}
	oldL, newL := splitLines(ch.old), splitLines(ch.new)
	type ins struct {
		oldAt, newAt int
		lines        []string
	}
	var inserts []ins
	prevEnd, delta := 0, 0
	for fi, f := range frags {
		start := int(f.OldPosition) - 1
		if f.OldLines == 0 {
			start = int(f.OldPosition)
		}
		if start < prevEnd || start > len(oldL) {
			return variant{}, false, fmt.Errorf("%s: hunk %d out of order", ch.name, fi+1)
		}
		// Lines go strictly above the hunk: for a hunk without old lines,
		// above the line it goes after.
		top := start
		if f.OldLines == 0 {
			top--
		}
		if top < prevEnd {
			prevEnd = start + int(f.OldLines)
			delta += int(f.NewLines) - int(f.OldLines)
			continue // no room above this hunk
		}
		at := prevEnd + r.IntN(top-prevEnd+1)
		if at == len(oldL) && at > 0 && !strings.HasSuffix(oldL[at-1], "\n") {
			at-- // never append after a last line without "\n"
		}
		k := 1 + r.IntN(10)
		var lines []string
		for j := range k {
			lines = append(lines, fmt.Sprintf("drift %d.%d %s %s\n", fi+1, j+1, words[r.IntN(len(words))], words[r.IntN(len(words))]))
		}
		inserts = append(inserts, ins{at, at + delta, lines})
		prevEnd = start + int(f.OldLines)
		delta += int(f.NewLines) - int(f.OldLines)
	}
	if len(inserts) == 0 {
		return variant{}, false, nil // no room above any hunk: not counted
	}
	for k := len(inserts) - 1; k >= 0; k-- {
		in := inserts[k]
		oldL = insertAt(oldL, in.oldAt, in.lines)
		newL = insertAt(newL, in.newAt, in.lines)
	}
	return variant{strings.Join(oldL, ""), ch.dif, strings.Join(newL, "")}, true, nil
}

func insertAt(s []string, at int, add []string) []string {
	out := make([]string, 0, len(s)+len(add))
	out = append(out, s[:at]...)
	out = append(out, add...)
	return append(out, s[at:]...)
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@`)

// mapHeaders rewrites every @@ line of the diff with f.
func mapHeaders(diff string, f func(m []string) string) string {
	lines := strings.SplitAfter(diff, "\n")
	for i, l := range lines {
		if m := hunkHeader.FindStringSubmatch(l); m != nil {
			lines[i] = f(m) + l[len(m[0]):]
		}
	}
	return strings.Join(lines, "")
}

func wrongLines(ch change, r *rand.Rand) (variant, bool, error) {
	d := mapHeaders(ch.dif, func(m []string) string {
		o, _ := strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[3])
		shift := 0
		for shift == 0 || o+shift < 1 || n+shift < 1 {
			shift = r.IntN(81) - 40
		}
		return fmt.Sprintf("@@ -%d%s +%d%s @@", o+shift, m[2], n+shift, m[4])
	})
	return variant{ch.old, d, ch.new}, true, nil
}

// retyped writes every leading tab of the hunks' lines as four spaces.
func retyped(ch change, _ *rand.Rand) (variant, bool, error) {
	lines := strings.SplitAfter(ch.dif, "\n")
	inHunk, changed := false, false
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "@@"):
			inHunk = true
			continue
		case strings.HasPrefix(l, "diff --git"):
			inHunk = false
		}
		if !inHunk || l == "" || !strings.ContainsRune(" +-", rune(l[0])) {
			continue
		}
		body := l[1:]
		t := strings.TrimLeft(body, "\t")
		if n := len(body) - len(t); n > 0 {
			lines[i] = l[:1] + strings.Repeat("    ", n) + t
			changed = true
		}
	}
	if !changed {
		return variant{}, false, nil // no tab to retype: not counted
	}
	return variant{ch.old, strings.Join(lines, ""), ch.new}, true, nil
}

// mixed applies drift, noHeaders, wrongLines and whitespace in turn.
func mixed(ch change, r *rand.Rand) (variant, bool, error) {
	v, ok, err := drift(ch, r)
	if !ok || err != nil {
		return v, ok, err
	}
	for _, g := range []func(change, *rand.Rand) (variant, bool, error){noHeaders, wrongLines, whitespace} {
		w, ok, err := g(change{name: ch.name, old: v.old, new: v.want, dif: v.diff}, r)
		if err != nil {
			return w, ok, err
		}
		if ok { // whitespace finds nothing to damage in some changes
			v = w
		}
	}
	return v, true, nil
}

func scrambled(ch change, r *rand.Rand) (variant, bool, error) {
	n := max(1, len(splitLines(ch.old)))
	d := mapHeaders(ch.dif, func(m []string) string {
		o, _ := strconv.Atoi(m[1])
		nw, _ := strconv.Atoi(m[3])
		at := 1 + r.IntN(n)
		return fmt.Sprintf("@@ -%d%s +%d%s @@", at, m[2], max(1, nw+at-o), m[4])
	})
	return variant{ch.old, d, ch.new}, true, nil
}

// shortContext re-renders the diff with one line of context and shifts
// its line numbers like wrongLines.
func shortContext(ch change, r *rand.Rand) (variant, bool, error) {
	frags, err := fragments(ch)
	if err != nil {
		return variant{}, false, err
	}
	var b strings.Builder
	for _, f := range frags {
		lines := f.Lines
		lead, trail := int(f.LeadingContext), int(f.TrailingContext)
		if lead == len(lines) {
			continue
		}
		cutLead, cutTrail := max(0, lead-1), max(0, trail-1)
		lines = lines[cutLead : len(lines)-cutTrail]
		oldN, newN := 0, 0
		for _, l := range lines {
			if l.Old() {
				oldN++
			}
			if l.New() {
				newN++
			}
		}
		o, n := int(f.OldPosition)+cutLead, int(f.NewPosition)+cutLead
		if f.OldLines == 0 {
			o = int(f.OldPosition)
		}
		if f.NewLines == 0 {
			n = int(f.NewPosition)
		}
		shift := 0
		for shift == 0 || o+shift < 1 || n+shift < 1 {
			shift = r.IntN(81) - 40
		}
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", o+shift, oldN, n+shift, newN)
		for _, l := range lines {
			b.WriteString(l.Op.String())
			b.WriteString(l.Line)
			if !strings.HasSuffix(l.Line, "\n") {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
	}
	if b.Len() == 0 {
		return variant{}, false, nil
	}
	return variant{ch.old, b.String(), ch.new}, true, nil
}

func wrongCounts(ch change, r *rand.Rand) (variant, bool, error) {
	off := func(c string) string {
		n := 1
		if c != "" {
			n, _ = strconv.Atoi(c[1:])
		}
		shift := 0
		for shift == 0 || n+shift < 0 {
			shift = r.IntN(7) - 3
		}
		return "," + strconv.Itoa(n+shift)
	}
	d := mapHeaders(ch.dif, func(m []string) string {
		return fmt.Sprintf("@@ -%s%s +%s%s @@", m[1], off(m[2]), m[3], off(m[4]))
	})
	return variant{ch.old, d, ch.new}, true, nil
}

func noHeaders(ch change, _ *rand.Rand) (variant, bool, error) {
	i := strings.Index(ch.dif, "\n@@")
	if i < 0 {
		return variant{}, false, fmt.Errorf("%s: no hunk", ch.name)
	}
	return variant{ch.old, ch.dif[i+1:], ch.new}, true, nil
}

func bare(ch change, r *rand.Rand) (variant, bool, error) {
	v, ok, err := noHeaders(ch, r)
	if !ok || err != nil {
		return v, ok, err
	}
	v.diff = mapHeaders(v.diff, func([]string) string { return "@@" })
	return v, true, nil
}

// whitespace damages context and removed lines only: added lines are what
// the patch means to write, so damage there cannot be undone by anyone.
func whitespace(ch change, r *rand.Rand) (variant, bool, error) {
	lines := strings.SplitAfter(ch.dif, "\n")
	inHunk, damaged := false, 0
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "@@"):
			inHunk = true
			continue
		case strings.HasPrefix(l, "diff --git"):
			inHunk = false
		}
		if !inHunk || l == "" || (l[0] != ' ' && l[0] != '-') || r.IntN(2) == 0 {
			continue
		}
		body, eol := strings.TrimSuffix(l[1:], "\n"), ""
		if strings.HasSuffix(l, "\n") {
			eol = "\n"
		}
		for _, k := range r.Perm(4) {
			if d := damage(body, k); d != body {
				lines[i] = l[:1] + d + eol
				damaged++
				break
			}
		}
	}
	if damaged == 0 {
		return variant{}, false, nil // nothing to damage: not counted
	}
	return variant{ch.old, strings.Join(lines, ""), ch.new}, true, nil
}

// damage applies one kind of whitespace damage to s.
func damage(s string, kind int) string {
	switch kind {
	case 0: // leading tabs become four spaces, or leading spaces become tabs
		t := strings.TrimLeft(s, " \t")
		lead := s[:len(s)-len(t)]
		if t == "" || lead == "" {
			return s
		}
		if strings.Contains(lead, "\t") {
			return strings.ReplaceAll(lead, "\t", "    ") + t
		}
		return strings.Repeat("\t", max(1, len(lead)/4)) + t
	case 1: // trailing blanks cut
		return strings.TrimRight(s, " \t")
	case 2: // a trailing blank added
		if s == "" {
			return s
		}
		return s + " "
	default: // the first inner blank doubled
		t := strings.TrimLeft(s, " \t")
		if i := strings.IndexAny(t, " \t"); i > 0 && strings.TrimSpace(t[i:]) != "" {
			return s[:len(s)-len(t)] + t[:i] + " " + t[i:]
		}
		return s
	}
}
