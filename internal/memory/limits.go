package memory

import (
	"fmt"
	"unicode/utf8"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/store"
)

// Limits bound the size of memory blocks, in characters, as Letta bounds
// its core memory blocks: a working block is in every prompt, so it must
// stay small; an archival block is read on demand. A write that would pass
// the limit is refused with BLOCK_FULL before anything is written. Zero
// means no limit.
type Limits struct {
	Archival int            // every archival block
	Working  int            // every working block
	Blocks   map[string]int // by block name, over its kind's limit
}

// Of returns the limit of kind/name, 0 for none.
func (l Limits) Of(kind store.Kind, name string) int {
	if n, ok := l.Blocks[name]; ok && name != "" {
		return n
	}
	if kind == store.Working {
		return l.Working
	}
	return l.Archival
}

// check refuses content that passes kind/name's limit.
func (l Limits) check(kind store.Kind, name, content string) error {
	limit := l.Of(kind, name)
	n := chars(content)
	if limit <= 0 || n <= limit {
		return nil
	}
	var what, hint string
	switch {
	case name == "":
		what = fmt.Sprintf("the new %s entry", kind)
		hint = "split it into several entries"
	case kind == store.Working:
		what = fmt.Sprintf("working block %q", name)
		hint = fmt.Sprintf("shorten it (/context %s \"old\" -> \"new\"), or move part of it to archival memory (/recall + \"...\")", name)
	default:
		what = fmt.Sprintf("archival block %q", name)
		hint = fmt.Sprintf("save the rest as a new entry (/recall + \"...\"), or patch out what is no longer needed (/recall patch %s)", name)
	}
	return &codes.Error{Code: codes.BlockFull, Subject: name,
		Msg: fmt.Sprintf("%s would be %d characters; its limit is %d — nothing was written. To make room, %s.", what, n, limit, hint)}
}

func chars(s string) int { return utf8.RuneCountInString(s) }
