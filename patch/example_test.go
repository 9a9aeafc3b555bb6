package patch_test

import (
	"errors"
	"fmt"

	"github.com/pattern-dialect/dialect/patch"
)

func ExampleApply() {
	// The model's line numbers are off and the file headers are missing.
	memory := "# Project\nDeadline: May 1\nOwner: Ana\nStatus: draft\n"
	diff := "@@ -7,3 +7,3 @@\n # Project\n-Deadline: May 1\n+Deadline: June 15\n Owner: Ana\n"
	text, report, err := patch.Apply(memory, diff)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(text)
	fmt.Printf("hunk #1 at line %d (offset %d)\n", report.Hunks[0].Line, report.Hunks[0].Offset)
	// Output:
	// # Project
	// Deadline: June 15
	// Owner: Ana
	// Status: draft
	// hunk #1 at line 1 (offset -6)
}

func ExampleApply_ambiguous() {
	memory := "- todo: call Bo\n- todo: call Bo\n"
	diff := "@@ -1 +1 @@\n-- todo: call Bo\n+- done: call Bo\n"
	_, _, err := patch.Apply(memory, diff)
	fmt.Println(errors.Is(err, patch.ErrAmbiguous))
	fmt.Println(err)
	// Output:
	// true
	// hunk #1 (@@ -1 +1 @@, diff line 1): its lines fit 2 places equally well (line 1, line 2); the header points at line 1, but line numbers alone do not choose: give more context lines
}

func ExampleDiff() {
	p := patch.Diff("a\nb\nc\n", "a\nB\nc\n", 1)
	p.OldName, p.NewName = "a/notes", "b/notes"
	fmt.Print(p)
	// Output:
	// --- a/notes
	// +++ b/notes
	// @@ -1,3 +1,3 @@
	//  a
	// -b
	// +B
	//  c
}
