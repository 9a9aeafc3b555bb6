package intent

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestMarshalRoundTrip(t *testing.T) {
	day := 24 * time.Hour
	tests := []struct {
		name     string
		in       Intent
		json     string
		readOnly bool
	}{
		{"recall read", Recall{Op: RecallRead, Block: "project_notes"}, `{"kind":"recall","op":"read","block":"project_notes"}`, true},
		{"recall search with filters", Recall{Op: RecallSearch, Query: "deadlines", Filters: Filters{Tags: []string{"work"}, Since: Since{Ago: 7 * day}, Limit: 5}},
			`{"kind":"recall","op":"search","query":"deadlines","filters":{"tags":["work"],"since":"7d","limit":5}}`, true},
		{"recall insert", Recall{Op: RecallInsert, Content: "met Ana"}, `{"kind":"recall","op":"insert","content":"met Ana"}`, false},
		{"recall append ref", Recall{Op: RecallAppend, Block: "log", Content: "@last.output", Refs: []Ref{{Kind: RefLastOutput, Token: "@last.output"}}},
			`{"kind":"recall","op":"append","block":"log","content":"@last.output","refs":[{"kind":"last.output","token":"@last.output"}]}`, false},
		{"recall delete", Recall{Op: RecallDelete, Block: "old"}, `{"kind":"recall","op":"delete","block":"old"}`, false},
		{"recall patch", Recall{Op: RecallPatch, Block: "b", Patch: "@@ -1 +1 @@\n-a\n+b\n"}, `{"kind":"recall","op":"patch","block":"b","patch":"@@ -1 +1 @@\n-a\n+b\n"}`, false},
		{"recall history", Recall{Op: RecallHistory, Block: "plan"}, `{"kind":"recall","op":"history","block":"plan"}`, true},
		{"recall read version", Recall{Op: RecallRead, Block: "plan", Version: 2}, `{"kind":"recall","op":"read","block":"plan","version":2}`, true},
		{"recall restore", Recall{Op: RecallRestore, Block: "plan", Version: 2}, `{"kind":"recall","op":"restore","block":"plan","version":2}`, false},
		{"recall insert labelled", Recall{Op: RecallInsert, Content: "shipped", Tags: []string{"release"}, Project: "apollo"},
			`{"kind":"recall","op":"insert","content":"shipped","tags":["release"],"project":"apollo"}`, false},
		{"search newer than", Search{Terms: "x", Time: TimeRange{NewerThan: 36 * time.Hour}}, `{"kind":"search","terms":"x","time":{"newer_than":"36h"}}`, true},
		{"search odd span", Search{Terms: "x", Time: TimeRange{OlderThan: 90 * time.Second}}, `{"kind":"search","terms":"x","time":{"older_than":"1m30s"}}`, true},
		{"context replace", Context{Op: ContextReplace, Block: "human", Old: "old", New: "new"}, `{"kind":"context","op":"replace","block":"human","old":"old","new":"new"}`, false},
		{"context swap", Context{Op: ContextSwap, Block: "persona", Label: "formal"}, `{"kind":"context","op":"swap","block":"persona","label":"formal"}`, false},
		{"search", Search{Terms: "budget", Domains: []string{DomainConversations}, Time: TimeRange{OlderThan: 14 * day}, Role: "assistant"},
			`{"kind":"search","terms":"budget","domains":["conversations"],"time":{"older_than":"14d"},"role":"assistant"}`, true},
		{"send", Send{Domain: "agent", Target: "anchor", Content: "hi"}, `{"kind":"send","domain":"agent","target":"anchor","content":"hi"}`, false},
		{"fetch", Fetch{URL: "https://example.org", Format: "html"}, `{"kind":"fetch","url":"https://example.org","format":"html"}`, false},
		{"fetch continue", Fetch{Continue: true}, `{"kind":"fetch","continue":true}`, false},
		{"web", Web{Query: "go 1.26"}, `{"kind":"web","query":"go 1.26"}`, false},
		{"calc", Calc{Expr: "20% of 350"}, `{"kind":"calc","expr":"20% of 350"}`, true},
		{"calc ref", Calc{Expr: "@last * 2", Refs: []Ref{{Kind: RefLast, Token: "@last"}}}, `{"kind":"calc","expr":"@last * 2","refs":[{"kind":"last","token":"@last"}]}`, true},
		{"search ref", Search{Terms: "@thread", Refs: []Ref{{Kind: RefThread, Token: "@thread"}}}, `{"kind":"search","terms":"@thread","refs":[{"kind":"thread","token":"@thread"}]}`, true},
		{"fetch ref", Fetch{URL: "@last.output", Refs: []Ref{{Kind: RefLastOutput, Token: "@last.output"}}}, `{"kind":"fetch","url":"@last.output","refs":[{"kind":"last.output","token":"@last.output"}]}`, false},
		{"web ref", Web{Query: "@parent", Refs: []Ref{{Kind: RefParent, Token: "@parent"}}}, `{"kind":"web","query":"@parent","refs":[{"kind":"parent","token":"@parent"}]}`, false},
		{"approve always", Authority{Op: Approve, ID: "12", Always: true}, `{"kind":"authority","op":"approve","id":"12","always":true}`, false},
		{"halt", Authority{Op: Halt, Reason: "loop"}, `{"kind":"authority","op":"halt","reason":"loop"}`, false},
		{"custom over search", Custom{Verb: "lookit", MapsTo: "search", Inner: Search{Terms: "x"}},
			`{"kind":"custom","verb":"lookit","maps_to":"search","inner":{"kind":"search","terms":"x"}}`, true},
		{"custom tool", Custom{Verb: "player", MapsTo: "player_tool", Args: map[string]any{"trackName": "Yesterday"}, TemplateApplied: "play Yesterday", Target: &Target{Type: "agent", ID: "dj"}},
			`{"kind":"custom","verb":"player","maps_to":"player_tool","args":{"trackName":"Yesterday"},"template_applied":"play Yesterday","target":{"type":"agent","id":"dj"}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.json {
				t.Errorf("Marshal =\n %s\nwant\n %s", b, tt.json)
			}
			if tt.in.ReadOnly() != tt.readOnly {
				t.Errorf("ReadOnly = %v, want %v", tt.in.ReadOnly(), tt.readOnly)
			}
			back, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tt.in) {
				t.Errorf("Decode(Marshal(x)) = %#v, want %#v", back, tt.in)
			}
		})
	}
}

// TestTimeRangeReadsNanoseconds: intents queued before spans were written
// as text carry nanoseconds; they must still decode.
func TestTimeRangeReadsNanoseconds(t *testing.T) {
	in, err := Decode([]byte(`{"kind":"search","terms":"b","time":{"older_than":1209600000000000}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := in.(Search).Time.OlderThan; got != 14*24*time.Hour {
		t.Errorf("older_than = %v", got)
	}
	for _, bad := range []string{`{"kind":"search","time":{"older_than":"soon"}}`, `{"kind":"search","time":{"older_than":true}}`} {
		if _, err := Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%s) accepted a bad span", bad)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, in := range []string{
		`not json`, `{}`, `{"kind":"teleport"}`, `{"kind":"recall","op":"burn"}`,
		`{"kind":"authority","op":"promote"}`, `{"kind":"calc","expr":5}`,
		`{"kind":"custom","verb":"a","inner":{"kind":"custom","verb":"b"}}`,
	} {
		_, err := Decode([]byte(in))
		var de *DecodeError
		if !errors.As(err, &de) {
			t.Errorf("Decode(%s) error = %v, want a *DecodeError", in, err)
		}
	}
}

func TestSince(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		in, canon string
		from      time.Time
	}{
		{"7d", "7d", now.Add(-7 * 24 * time.Hour)},
		{"2w", "14d", now.Add(-14 * 24 * time.Hour)},
		{"12h", "12h", now.Add(-12 * time.Hour)},
		{"30m", "30m", now.Add(-30 * time.Minute)},
		{"2026-01-31", "2026-01-31", time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)},
	} {
		s, err := ParseSince(tt.in)
		if err != nil {
			t.Errorf("ParseSince(%q): %v", tt.in, err)
			continue
		}
		if !s.From(now).Equal(tt.from) {
			t.Errorf("ParseSince(%q).From = %v, want %v", tt.in, s.From(now), tt.from)
		}
		if s.String() != tt.canon {
			t.Errorf("ParseSince(%q).String() = %q, want %q", tt.in, s.String(), tt.canon)
		}
	}
	for _, bad := range []string{"", "d", "7", "7y", "-3d", "2026-13-01", "0d"} {
		if _, err := ParseSince(bad); err == nil {
			t.Errorf("ParseSince(%q) accepted", bad)
		}
	}
}

func TestParseRef(t *testing.T) {
	for tok, want := range map[string]RefKind{
		"@last": RefLast, "@last.message": RefLastMessage, "@last.output": RefLastOutput,
		"@thread": RefThread, "@parent": RefParent, "@[doc://notes/1]": RefURI,
	} {
		r, ok := ParseRef(tok)
		if !ok || r.Kind != want || r.Token != tok {
			t.Errorf("ParseRef(%q) = %+v, %v", tok, r, ok)
		}
	}
	for _, tok := range []string{"@lastly", "last", "@7d", "@[]", "@user", "@"} {
		if r, ok := ParseRef(tok); ok {
			t.Errorf("ParseRef(%q) = %+v, want not a reference", tok, r)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"kind":"recall","op":"search","query":"x","filters":{"since":"7d"}}`))
	f.Add([]byte(`{"kind":"custom","verb":"a","maps_to":"search","inner":{"kind":"search","terms":"q"}}`))
	f.Add([]byte(`{"kind":"search","terms":"q","time":{"older_than":"14d","newer_than":1209600000000000}}`))
	f.Add([]byte(`{"kind":"recall","op":"restore","block":"b","version":2,"tags":["a"],"project":"p"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := Decode(data)
		if err != nil {
			return
		}
		b, err := Marshal(in)
		if err != nil {
			t.Fatalf("decoded %T but cannot encode it: %v", in, err)
		}
		again, err := Decode(b)
		if err != nil || !strings.HasPrefix(string(b), `{"kind":"`+in.Kind()+`"`) {
			t.Fatalf("re-decode of %s: %v", b, err)
		}
		b2, _ := Marshal(again)
		if string(b) != string(b2) {
			t.Fatalf("unstable encoding:\n%s\n%s", b, b2)
		}
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			t.Fatalf("invalid JSON %s", b)
		}
	})
}
