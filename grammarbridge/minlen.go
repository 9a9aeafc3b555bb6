package grammarbridge

import "unicode/utf8"

// This file holds the least input each rule and each rest of an
// alternative needs. The matcher opens a wildcard only when what is left
// of the input can hold it and the alternative's parts after it (image:
// <WithCaption> matched up to the end of the input, then $(caption)
// <NumImagesSpec> $(numImages) would search for the rule's keywords and
// numbers in nothing). It changes no result: only paths that would fail
// are dropped. (Adding what the continuations above need, kept in each
// cont, dropped more paths but cost more than it saved on email, weather
// and player: 0.05 to 0.3 paths dropped an input.)

// maxMinLen caps the least lengths (rules that recurse without end grow
// without bound).
const maxMinLen = 1 << 16

// computeMinLens sets crule.minLen and calt.minFrom for every rule and
// alternative of rules (the rules reachable from the start rule, in
// depth-first order), by fixed-point iteration from 0: each round's values
// are lower bounds, so stopping early is safe.
func computeMinLens(rules []*crule) {
	for round := 0; round < 64; round++ {
		changed := false
		// Depth-first order lists a rule before the rules it refers
		// to: going backwards, most rules see their parts' final lengths
		// in the first round, and the second finds nothing to change.
		for i := len(rules) - 1; i >= 0; i-- {
			r := rules[i]
			least := int32(maxMinLen)
			for _, a := range r.alts {
				least = min(least, partsMinLen(a.parts))
			}
			if len(r.alts) == 0 {
				least = 0
			}
			if least > r.minLen {
				r.minLen, changed = least, true
			}
		}
		if !changed {
			break
		}
	}
	total := 0
	for _, r := range rules {
		for _, a := range r.alts {
			total += len(a.parts) + 1
		}
	}
	room := make([]int32, total) // every alternative's minFrom, one allocation
	for _, r := range rules {
		for _, a := range r.alts {
			n := len(a.parts) + 1
			setMinFrom(a, room[:n:n])
			room = room[n:]
		}
	}
}

// setMinFrom sets a.minFrom, in room (len(a.parts)+1 zeros), from its
// parts (the rules' minLen known).
func setMinFrom(a *calt, room []int32) {
	a.minFrom = room
	for i := len(a.parts) - 1; i >= 0; i-- {
		a.minFrom[i] = min(a.minFrom[i+1]+partMinLen(&a.parts[i]), maxMinLen)
	}
}

// partsMinLen returns the least number of input bytes parts match.
func partsMinLen(parts []cpart) int32 {
	var n int32
	for i := range parts {
		n = min(n+partMinLen(&parts[i]), maxMinLen)
	}
	return n
}

// partMinLen returns the least number of input bytes p matches: a
// literal at least one per character of its tokens (case folding maps a
// character to one character), a wildcard one (its text, trimmed, is not
// empty), a number one digit.
func partMinLen(p *cpart) int32 {
	if p.optional {
		return 0
	}
	switch p.kind {
	case partString:
		var n int32
		for i := range p.toks {
			if t := &p.toks[i]; t.ascii {
				n += int32(len(t.src))
			} else {
				n += int32(utf8.RuneCountInString(t.src))
			}
		}
		return min(n, maxMinLen)
	case partWildcard, partNumber:
		return 1
	case partRules:
		if p.rule != nil {
			return p.rule.minLen
		}
	}
	return 0
}
