package patch

import (
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// DefaultContext is the number of context lines diff -u writes.
const DefaultContext = 3

// Diff returns the patch that turns old into new, with context lines of
// context around each change (negative counts as 0), computed by
// sergi/go-diff in line mode. Its String method renders unified diff text;
// set OldName and NewName first to get ---/+++ headers. Equal texts give a
// patch with no hunks, which renders as "".
func Diff(old, new string, context int) *Patch {
	context = max(context, 0)
	dmp := diffmatchpatch.New()
	// go-diff's default time limit stays: a diff of two huge, very
	// different texts may then be longer than needed, but is still right.
	a, b, lineArray := dmp.DiffLinesToRunes(old, new)
	var ops []Line
	for _, d := range dmp.DiffCharsToLines(dmp.DiffMainRunes(a, b, false), lineArray) {
		op := Context
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = Delete
		case diffmatchpatch.DiffInsert:
			op = Insert
		}
		for _, raw := range splitLines(d.Text) {
			text, eol := strings.CutSuffix(raw, "\n")
			ops = append(ops, Line{Op: op, Text: text, NoEOL: !eol})
		}
	}
	p := &Patch{}
	// oldAt[i] and newAt[i]: lines of each side before ops[i].
	oldAt, newAt := make([]int, len(ops)+1), make([]int, len(ops)+1)
	for i, l := range ops {
		oldAt[i+1], newAt[i+1] = oldAt[i], newAt[i]
		if l.old() {
			oldAt[i+1]++
		}
		if l.new() {
			newAt[i+1]++
		}
	}
	for i := 0; i < len(ops); {
		if ops[i].Op == Context {
			i++
			continue
		}
		// A hunk runs from context lines before the first change to context
		// lines after the last change that is close enough to join it.
		start := max(0, i-context)
		end := i
		for {
			for end < len(ops) && ops[end].Op != Context {
				end++
			}
			next := end
			for next < len(ops) && ops[next].Op == Context {
				next++
			}
			if next == len(ops) || next-end > 2*context {
				break
			}
			end = next
		}
		stop := min(len(ops), end+context)
		h := Hunk{Lines: ops[start:stop:stop]}
		h.OldLines, h.NewLines = oldAt[stop]-oldAt[start], newAt[stop]-newAt[start]
		h.OldStart, h.NewStart = oldAt[start], newAt[start]
		if h.OldLines > 0 {
			h.OldStart++
		}
		if h.NewLines > 0 {
			h.NewStart++
		}
		p.Hunks = append(p.Hunks, h)
		i = stop
	}
	return p
}
