package morph

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		// the design notes' strip rules get these wrong
		{"makes", "make"}, {"caching", "cache"}, {"stopped", "stop"}, {"queried", "query"},
		{"Searching", "search"}, {"searches", "search"}, {"searched", "search"},
		{"sent", "send"}, {"wrote", "write"}, {"recalled", "recall"},
		{"cancelled", "cancel"}, {"canceled", "cancel"}, {"hoped", "hope"}, {"hopped", "hop"},
		{"visited", "visit"}, {"updated", "update"}, {"agreed", "agree"}, {"dying", "die"},
		{"bless", "bless"}, {"search", "search"}, {"sing", "sing"},
		// verbs WordNet does not know still get a rule-based base form
		{"yeeted", "yeet"}, {"frobbed", "frob"}, {"blorks", "blork"}, {"zorping", "zorp"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := Normalize(tc.in); got != tc.want {
			t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestNormalizeFixture measures Normalize on a small fixture in the shape of
// the UniMorph evaluation data.
func TestNormalizeFixture(t *testing.T) {
	f, err := os.Open("testdata/inflections.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	n, ok := 0, 0
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		n++
		if got := Normalize(p[0]); got == p[1] {
			ok++
		} else {
			t.Errorf("%s %s: got %q, want %q", p[2], p[0], got, p[1])
		}
	}
	if n < 30 {
		t.Fatalf("fixture has %d rows", n)
	}
}

func TestLemmas(t *testing.T) {
	l := Default()
	if got := l.Lemmas("found"); !slices.Contains(got, "find") || !slices.Contains(got, "found") {
		t.Errorf("Lemmas(found) = %v, want find and found", got)
	}
	if got := l.Lemmas("serching"); got != nil {
		t.Errorf("Lemmas(serching) = %v, want nil", got)
	}
}

func TestStemsNeverWord(t *testing.T) {
	for _, w := range []string{"stopped", "caching", "makes", "queries", "dying", "sees", "xes", "ed", "ing"} {
		if slices.Contains(Stems(w), w) {
			t.Errorf("Stems(%q) contains the word", w)
		}
	}
	if got := Stems("stopped"); len(got) == 0 || got[0] != "stop" {
		t.Errorf("Stems(stopped) = %v, want stop first", got)
	}
}

func TestVariants(t *testing.T) {
	tests := []struct{ in, want string }{
		{"summarise", "summarize"}, {"summarized", "summarised"}, {"analyse", "analyze"},
		{"colour", "color"}, {"colored", "coloured"}, {"cancelled", "canceled"},
		{"canceling", "cancelling"}, {"fulfil", "fulfill"},
	}
	for _, tc := range tests {
		if got := Variants(tc.in); !slices.Contains(got, tc.want) {
			t.Errorf("Variants(%q) = %v, want it to contain %q", tc.in, got, tc.want)
		}
	}
	if got := Variants("door"); slices.Contains(got, "dour") {
		t.Errorf("Variants(door) = %v: -or → -our only after a consonant", got)
	}
}

func TestForms(t *testing.T) {
	l := Default()
	tests := []struct {
		lemma string
		want  []string
	}{
		{"send", []string{"sent", "sends", "sending"}},
		{"query", []string{"queries", "queried", "querying"}},
		{"stop", []string{"stops", "stopped", "stopping"}},
		{"save", []string{"saves", "saved", "saving"}},
		{"look up", []string{"looks up", "looked up", "looking up"}},
		// WordNet lists cancelled and travelled; the American past is
		// the regular one and belongs beside them.
		{"cancel", []string{"cancels", "cancelled", "canceled", "cancelling", "canceling"}},
		{"travel", []string{"travelled", "traveled"}},
	}
	for _, tc := range tests {
		got := l.Forms(tc.lemma)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("Forms(%q) = %v, missing %q", tc.lemma, got, w)
			}
		}
		if slices.Contains(got, "sended") {
			t.Errorf("Forms(send) has a regular past beside the irregular one: %v", got)
		}
	}
}

func TestSpellings(t *testing.T) {
	l := Default()
	tests := []struct {
		lemma    string
		want     []string
		wantNone []string
	}{
		{"summarize", []string{"summarized", "summarise", "summarised", "summarising", "summarises"}, []string{"summarize"}},
		{"colour", []string{"coloured", "color", "colored"}, nil},
		{"cancel", []string{"canceled", "cancelled"}, []string{"cancell"}},     // cancell is no verb
		{"store", []string{"stored", "storing"}, []string{"stour", "stoured"}}, // -or → -our only where WordNet has it
		{"look up", []string{"looked up"}, nil},
	}
	for _, tc := range tests {
		got := l.Spellings(tc.lemma)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("Spellings(%q) = %v, missing %q", tc.lemma, got, w)
			}
		}
		for _, w := range tc.wantNone {
			if slices.Contains(got, w) {
				t.Errorf("Spellings(%q) = %v, has %q", tc.lemma, got, w)
			}
		}
	}
}

func TestSynonyms(t *testing.T) {
	l := Default()
	var words []string
	for _, s := range l.Synonyms("retrieve") {
		words = append(words, s.Word)
		if s.Sense < 1 || s.Rank < 1 {
			t.Errorf("bad ranks in %+v", s)
		}
	}
	if !slices.Contains(words, "recall") || !slices.Contains(words, "remember") {
		t.Errorf("Synonyms(retrieve) = %v, want recall and remember", words)
	}
	if got := l.Synonyms("notaverb"); got != nil {
		t.Errorf("Synonyms(notaverb) = %v", got)
	}
	if !l.IsVerb("look up") || l.IsVerb("lookup") {
		t.Error("IsVerb: want multi-word lemmas with spaces")
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"searching", "queried", "stopped", "", "ing", "ies", "ed", "s", "ÿing", "\xff\xfeed", "a b c", "eeeeeeing"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Normalize(s)
		if s != "" && got == "" && utf8.ValidString(s) {
			t.Errorf("Normalize(%q) is empty", s)
		}
		for _, st := range Stems(strings.ToLower(s)) {
			if st == strings.ToLower(s) {
				t.Errorf("Stems(%q) returns the word", s)
			}
		}
		_ = Variants(s)
		_ = Default().Forms(s)
	})
}
