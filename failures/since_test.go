package failures

import (
	"errors"
	"testing"
	"time"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 30, 0, 0, time.UTC)
	good := map[string]time.Time{
		"7d":                   now.Add(-7 * 24 * time.Hour),
		"12h":                  now.Add(-12 * time.Hour),
		"2w":                   now.Add(-14 * 24 * time.Hour),
		"30m":                  now.Add(-30 * time.Minute),
		" 90d ":                now.Add(-90 * 24 * time.Hour),
		"2026-01-31":           time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC),
		"2026-01-31T10:00:00Z": time.Date(2026, 1, 31, 10, 0, 0, 0, time.UTC),
	}
	for in, want := range good {
		got, err := ParseSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	bad := map[string]int{"": 0, "d": 0, "7": 1, "7x": 1, "7dd": 1, "-3d": 0, "0d": 0, "9999999d": 0, "2026-13-01": 0, "yesterday": 0}
	for in, off := range bad {
		_, err := ParseSince(in, now)
		var te *TimeError
		if !errors.Is(err, ErrBadTime) || !errors.As(err, &te) || te.Offset != off {
			t.Errorf("ParseSince(%q) = %v; want a *TimeError at offset %d", in, err, off)
		}
	}
	if got := StartOfDay(now); !got.Equal(time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("StartOfDay = %v", got)
	}
	if got := StartOfDay(time.Date(1969, 12, 31, 23, 0, 0, 0, time.UTC)); !got.Equal(time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("StartOfDay before 1970 = %v", got)
	}
}

func FuzzParseSince(f *testing.F) {
	for _, s := range []string{"7d", "12h", "2026-01-31", "2026-01-31T10:00:00Z", "-1d", "999999w", "1\u00e9"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 21, 12, 30, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseSince(s, now)
		if err != nil {
			var te *TimeError
			if !errors.As(err, &te) || te.Offset < 0 || te.Offset > len(s) {
				t.Fatalf("bad error for %q: %v", s, err)
			}
			return
		}
		if len(s) < 10 && got.After(now) {
			t.Fatalf("age %q gave a time after now: %v", s, got)
		}
	})
}

func TestEditMatcher(t *testing.T) {
	m := &EditMatcher{Terms: []Term{{"search", "search"}, {"recall", "recall"}, {"look up", "web"}, {"find", "search"}},
		Synonyms: map[string]string{"retrieve": "recall"}}
	cases := []struct {
		tok  string
		verb string
		conf float64
		ok   bool
	}{
		{"srch", "search", 1 - 2.0/6, true},
		{"saerch", "search", 1 - 1.0/6, true}, // a transposition is one edit
		{"Retrieve", "recall", SynonymConfidence, true},
		{"recal", "recall", 1 - 1.0/6, true},
		{"fnd", "search", 1 - 1.0/4, true},
		{"search", "", 0, false}, // identical is not a suggestion
		{"zz", "", 0, false},     // too short
		{"lookup", "", 0, false}, // multi-word terms are not edit targets
		{"qqqqqq", "", 0, false},
	}
	for _, c := range cases {
		v, conf, ok := m.Suggest(c.tok)
		if v != c.verb || ok != c.ok || (ok && (conf-c.conf > 1e-9 || c.conf-conf > 1e-9)) {
			t.Errorf("Suggest(%q) = %q %.3f %v; want %q %.3f %v", c.tok, v, conf, ok, c.verb, c.conf, c.ok)
		}
	}
	for _, s := range []string{"look up", "heads-up", "a1_b"} {
		if !ValidAlias(s) {
			t.Errorf("ValidAlias(%q) = false", s)
		}
	}
	for _, s := range []string{"", "1abc", "two  spaces", " lead", "a\"b", "a/b"} {
		if ValidAlias(s) {
			t.Errorf("ValidAlias(%q) = true", s)
		}
	}
}
