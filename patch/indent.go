package patch

import "strings"

// reindent gives the lines a hunk inserts the text's indentation when the
// hunk matched only by ignoring whitespace: a model that retyped a patch
// with spaces for tabs (or the other way) did so in the lines it adds as
// well. The mapping is learned from the hunk's own old lines and applied
// only where that evidence is consistent, and only to an indentation that
// no line of the text has, giving one that some line has; otherwise an
// inserted line keeps the patch's whitespace.
type reindent struct {
	leads    map[string]bool   // the indentations the text's lines have
	table    map[string]string // patch indentation -> the text's, per old line
	conflict map[string]bool   // patch indentations seen with different text indentations
	toTabs   int               // > 0: the text has a tab where the patch has this many spaces
	toSpaces int               // > 0: the text has this many spaces where the patch has a tab
	// retyped is set when the hunk has no tab in any indentation while the
	// text has tabs where it has spaces: every line of it was retyped, the
	// inserted ones too, so they all get tabs back.
	retyped bool
}

// leading returns the blanks at the start of s.
func leading(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// expandTabs replaces each tab of an indentation with n spaces.
func expandTabs(lead string, n int) string {
	return strings.ReplaceAll(lead, "\t", strings.Repeat(" ", n))
}

// learnIndent reads the indentation of each old line of the place against
// the text line it matched.
func learnIndent(t *text, pl place) *reindent {
	r := &reindent{leads: t.leads(), table: map[string]string{}, conflict: map[string]bool{}}
	tabs, spaces := map[int]int{}, map[int]int{}
	j := pl.at
	for _, l := range pl.lines {
		if !l.old() {
			continue
		}
		lp, lt := leading(l.Text), leading(lineKey(t.line(j)))
		j++
		if prior, ok := r.table[lp]; ok && prior != lt {
			r.conflict[lp] = true
		}
		r.table[lp] = lt
		if lp == lt {
			continue
		}
		for _, n := range []int{8, 4, 2} {
			switch {
			case strings.Contains(lt, "\t") && !strings.Contains(lp, "\t") && expandTabs(lt, n) == lp:
				tabs[n]++
			case strings.Contains(lp, "\t") && !strings.Contains(lt, "\t") && expandTabs(lp, n) == lt:
				spaces[n]++
			}
		}
	}
	switch {
	case len(tabs) == 1 && len(spaces) == 0:
		for n := range tabs {
			r.toTabs = n
		}
		r.retyped = true
		for _, l := range pl.lines {
			if strings.Contains(leading(l.Text), "\t") {
				r.retyped = false
				break
			}
		}
	case len(spaces) == 1 && len(tabs) == 0:
		for n := range spaces {
			r.toSpaces = n
		}
	}
	return r
}

// line returns the inserted line s with the text's indentation.
func (r *reindent) line(s string) string {
	lp := leading(s)
	if lp == "" {
		return s
	}
	if r.retyped {
		return strings.Repeat("\t", len(lp)/r.toTabs) + strings.Repeat(" ", len(lp)%r.toTabs) + s[len(lp):]
	}
	if r.leads[lp] {
		return s
	}
	lt := lp
	if mapped, ok := r.table[lp]; ok {
		if !r.conflict[lp] {
			lt = mapped
		}
	} else {
		switch {
		case r.toTabs > 0 && !strings.Contains(lp, "\t"):
			lt = strings.Repeat("\t", len(lp)/r.toTabs) + strings.Repeat(" ", len(lp)%r.toTabs)
		case r.toSpaces > 0 && !strings.Contains(lp, " "):
			lt = expandTabs(lp, r.toSpaces)
		}
	}
	if !r.leads[lt] {
		return s
	}
	return lt + s[len(lp):]
}
