package detect

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
)

// earlyRun scans msg in pieces with early execution on and returns the
// callback events in order, and the final actions.
func earlyRun(msg string, unit WindowUnit, window int, cuts []int) ([]string, []Action) {
	var events []string
	opt := DefaultOptions()
	opt.EarlyExecution = true
	opt.EarlyWindow, opt.EarlyWindowUnit = window, unit
	opt.ReadOnly = func(a *Action) bool { return a.Verb == "search" || a.Verb == "calc" }
	opt.OnEarly = func(a Action) { events = append(events, "run "+a.Token+" "+a.Args) }
	opt.OnWithdraw = func(a Action) { events = append(events, "withdraw "+a.Token+" "+a.Args) }
	s := NewScanner(testVocab(), opt)
	prev := 0
	for _, c := range cuts {
		s.Write([]byte(msg[prev:c]))
		events = append(events, fmt.Sprintf("wrote %d", c)) // when, for the "before the end" checks
		prev = c
	}
	s.Write([]byte(msg[prev:]))
	events = append(events, "wrote all")
	s.Close()
	return events, s.Actions()
}

func TestEarlyExecution(t *testing.T) {
	cases := []struct {
		name, msg string
		unit      WindowUnit
		window    int
		want      []string // events with the whole message written at once
		exec      []bool
	}{
		{"runs after the window", "/do /search x\none two three four five six\nseven\n", Words, 5,
			[]string{"run search x", "wrote all"}, []bool{true}},
		{"window counts later lines only", "/do /search a b c d e f g\nx\n", Words, 2,
			[]string{"wrote all"}, []bool{true}},
		{"reconsidered inside the window", "/do /search x\none two, wait\nthree four five six\n", Words, 5,
			[]string{"wrote all"}, []bool{false}},
		{"withdrawn by a later reconsideration", "/do /search x\none two three four five six\nActually no.\n", Words, 5,
			[]string{"run search x", "withdraw search x", "wrote all"}, []bool{false}},
		{"withdrawn by a later cancel", "/do /search x\none two three four five six\n/cancel\n", Words, 5,
			[]string{"run search x", "wrote all", "withdraw search x"}, []bool{false, true}},
		{"not read-only", "/do /post x\none two three four five six\n", Words, 5,
			[]string{"wrote all"}, []bool{true}},
		{"needs the do marker", "/search x\n/calc 1+1\n", Words, 0,
			[]string{"wrote all"}, []bool{true, true}},
		{"message ends inside the window", "/do /calc 2+2\nok\n", Words, 50,
			[]string{"wrote all"}, []bool{true}},
		{"bytes window", "/do /calc 2+2\n12345678\n", Bytes, 9,
			[]string{"run calc 2+2", "wrote all"}, []bool{true}},
		{"content finished first", "/do /search x\n```\na b c d e f\n```\ng h i\n", Words, 3,
			[]string{"run search x", "wrote all"}, []bool{true}},
	}
	rng := rand.New(rand.NewSource(4))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			events, as := earlyRun(c.msg, c.unit, c.window, nil)
			if !reflect.DeepEqual(events, c.want) {
				t.Errorf("events %q, want %q", events, c.want)
			}
			var exec []bool
			for _, a := range as {
				exec = append(exec, a.Executable)
			}
			if !reflect.DeepEqual(exec, c.exec) {
				t.Errorf("executable %v, want %v: %v", exec, c.exec, briefs(as))
			}
			// The same callbacks, in the same order, for any split.
			for k := 0; k < 30; k++ {
				cuts := randomCuts(rng, len(c.msg))
				ev, _ := earlyRun(c.msg, c.unit, c.window, cuts)
				if got, want := callbacks(ev), callbacks(c.want); !reflect.DeepEqual(got, want) {
					t.Fatalf("cuts %v: callbacks %q, want %q", cuts, got, want)
				}
			}
		})
	}
}

// TestEarlyBeforeEnd shows an early action delivered while the message is
// still streaming.
func TestEarlyBeforeEnd(t *testing.T) {
	msg := "/do /search x\none two three four five six\nand the model keeps talking for a while\n"
	events, as := earlyRun(msg, Words, 5, []int{20, 45, 60})
	want := []string{"wrote 20", "run search x", "wrote 45", "wrote 60", "wrote all"}
	if !reflect.DeepEqual(events, want) {
		t.Errorf("events %q, want %q", events, want)
	}
	if !as[0].Early || !as[0].Executable {
		t.Errorf("final action: %s early=%v", brief(as[0]), as[0].Early)
	}
}

func callbacks(events []string) []string {
	var out []string
	for _, e := range events {
		if e[0] != 'w' || e[:5] == "withd" {
			out = append(out, e)
		}
	}
	return out
}
