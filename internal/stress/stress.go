// Package stress makes inputs that push the patch applier and the grammar
// matcher towards their bounds: large texts, many hunks, hunks that fit
// everywhere, patterns that backtrack. The benchmarks of package patch and
// package grammarbridge and the evaluation internal/eval/bounds share
// them, so the figures in the docs and the benchmarks measure the same.
package stress

import (
	"fmt"
	"strings"
)

// section is the length of the repeated section of AmbiguousPatch.
const section = 60

// AmbiguousPatch returns a block of about lines lines that repeats one
// section of 60 lines, and a diff of hunks hunks, each changing the middle
// line of its own section with three lines of context and right line
// numbers. Every hunk fits every section equally well, so the patch must
// be refused as ambiguous, whatever the numbers say.
func AmbiguousPatch(lines, hunks int) (block, diff string) {
	var b, d strings.Builder
	for i := range lines {
		fmt.Fprintf(&b, "field %d = value\n", i%section)
	}
	for k := range min(hunks, lines/section) {
		at := k*section + section/2 // the 0-based line changed
		fmt.Fprintf(&d, "@@ -%d,7 +%d,7 @@\n", at-2, at-2)
		for j := at - 3; j < at; j++ {
			fmt.Fprintf(&d, " field %d = value\n", j%section)
		}
		fmt.Fprintf(&d, "-field %d = value\n+field %d = changed\n", at%section, at%section)
		for j := at + 1; j < at+4; j++ {
			fmt.Fprintf(&d, " field %d = value\n", j%section)
		}
	}
	return b.String(), d.String()
}

// SameLinePatch returns a block of lines lines that are all "a", and a
// diff of hunks hunks " a a -a +b a a" spread over it: every hunk fits
// nearly every line, the worst case for a search that lists places.
func SameLinePatch(lines, hunks int) (block, diff string) {
	hunks = max(min(hunks, lines/6), 1)
	step := lines / hunks
	var d strings.Builder
	for k := range hunks {
		fmt.Fprintf(&d, "@@ -%d,5 +%d,5 @@\n a\n a\n-a\n+b\n a\n a\n", k*step+1, k*step+1)
	}
	return strings.Repeat("a\n", lines), d.String()
}

// ManyHunks returns a block of lines distinct lines and a diff of hunks
// hunks spread evenly over it, each changing one line, with as much
// context (up to three lines) as fits without touching the next hunk, and
// the block as the diff makes it. It applies.
func ManyHunks(lines, hunks int) (block, diff, want string) {
	hunks = max(min(hunks, lines/3), 1)
	step := lines / hunks
	ctx := min(3, (step-1)/2)
	var b, d, w strings.Builder
	changed := map[int]bool{}
	for k := range hunks {
		at := k*step + step/2
		changed[at] = true
		fmt.Fprintf(&d, "@@ -%d,%d +%d,%d @@\n", at-ctx+1, 2*ctx+1, at-ctx+1, 2*ctx+1)
		for j := at - ctx; j < at; j++ {
			fmt.Fprintf(&d, " line %d\n", j)
		}
		fmt.Fprintf(&d, "-line %d\n+line %d changed\n", at, at)
		for j := at + 1; j <= at+ctx; j++ {
			fmt.Fprintf(&d, " line %d\n", j)
		}
	}
	for i := range lines {
		fmt.Fprintf(&b, "line %d\n", i)
		if changed[i] {
			fmt.Fprintf(&w, "line %d changed\n", i)
		} else {
			fmt.Fprintf(&w, "line %d\n", i)
		}
	}
	return b.String(), d.String(), w.String()
}

// OrderedPatch returns a block of copies copies of one ten-line section
// and a diff of as many identical hunks, one per copy: each hunk alone
// fits every copy, and only the order of the hunks places them. It
// applies, changing every copy.
func OrderedPatch(copies int) (block, diff, want string) {
	sec := "begin\nname = x\nkind = y\nsize = 1\nmode = a\nuser = u\ngroup = g\nflags = f\nnote = n\nend\n"
	hunk := "@@\n kind = y\n size = 1\n-mode = a\n+mode = b\n user = u\n group = g\n"
	return strings.Repeat(sec, copies), strings.Repeat(hunk, copies), strings.Repeat(strings.Replace(sec, "mode = a", "mode = b", 1), copies)
}

// ChainPatch returns a block and a diff of hunks hunks of which only the
// last fits one place alone; each of the others fits two until the hunk
// after it is placed. Placed from first to last, the hunks are settled one
// per round, last first: the worst order for a round-based search. It
// applies.
func ChainPatch(hunks int) (block, diff, want string) {
	var b, d, w strings.Builder
	for i := range hunks {
		fmt.Fprintf(&b, "p%d\n", i)
		fmt.Fprintf(&w, "q%d\n", i)
		if i > 0 {
			fmt.Fprintf(&b, "p%d\n", i-1)
			fmt.Fprintf(&w, "p%d\n", i-1)
		}
		fmt.Fprintf(&d, "@@\n-p%d\n+q%d\n", i, i)
	}
	return b.String(), d.String(), w.String()
}

// WildcardGrammar is the grammar of the issue: four wildcards split by a
// literal, "a", and closed by another, "b". Against WildcardInput every
// way of splitting the input at its a's is tried until the work limit
// stops the match.
const WildcardGrammar = `<Start> = $(x:wildcard) a $(y:wildcard) a $(z:wildcard) a $(q:wildcard) b -> { x, y, z, q };`

// WildcardInput returns "a a a ..." of n bytes (rounded down to even).
func WildcardInput(n int) string { return strings.Repeat("a ", n/2) }
