package intent

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Filters are the CTX-notation filters of search-like arguments: #tag,
// @7d or @2026-01-31 (since), ^5 (limit), *project and &format.
type Filters struct {
	Tags    []string `json:"tags,omitempty"`
	Since   Since    `json:"since,omitzero"`
	Limit   int      `json:"limit,omitempty"`
	Project string   `json:"project,omitempty"`
	Format  string   `json:"format,omitempty"`
}

// IsZero reports whether no filter is set.
func (f Filters) IsZero() bool {
	return len(f.Tags) == 0 && f.Since.IsZero() && f.Limit == 0 && f.Project == "" && f.Format == ""
}

// Since is a lower bound in time: either a span back from now (Ago) or a
// calendar date (Date, at midnight UTC). It is written "7d", "12h", "2w"
// or "2026-01-31".
type Since struct {
	Ago  time.Duration
	Date time.Time
}

// IsZero reports whether no bound is set.
func (s Since) IsZero() bool { return s.Ago == 0 && s.Date.IsZero() }

// From returns the instant the bound names, counting Ago back from now.
func (s Since) From(now time.Time) time.Time {
	if !s.Date.IsZero() {
		return s.Date
	}
	return now.Add(-s.Ago)
}

// String writes the bound as it is written in a filter, without the @.
func (s Since) String() string {
	switch {
	case !s.Date.IsZero():
		return s.Date.Format(time.DateOnly)
	case s.Ago == 0:
		return ""
	}
	for _, u := range spanUnits[1:] { // weeks are written as days
		if s.Ago%u.d == 0 {
			return strconv.FormatInt(int64(s.Ago/u.d), 10) + u.name
		}
	}
	return s.Ago.String()
}

// MarshalText writes String.
func (s Since) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads what MarshalText writes.
func (s *Since) UnmarshalText(b []byte) error {
	v, err := ParseSince(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

var spanUnits = []struct {
	name string
	d    time.Duration
}{
	{"w", 7 * 24 * time.Hour},
	{"d", 24 * time.Hour},
	{"h", time.Hour},
	{"m", time.Minute},
}

// ParseSince reads "7d", "3w", "12h", "30m" or a date "2026-01-31".
func ParseSince(s string) (Since, error) {
	if len(s) == len(time.DateOnly) && strings.Count(s, "-") == 2 {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return Since{}, fmt.Errorf("%q is not a date (YYYY-MM-DD)", s)
		}
		return Since{Date: d}, nil
	}
	if len(s) >= 2 {
		n, err := strconv.Atoi(s[:len(s)-1])
		if err == nil && n > 0 && n < 1e6 {
			for _, u := range spanUnits {
				if s[len(s)-1:] == u.name {
					return Since{Ago: time.Duration(n) * u.d}, nil
				}
			}
		}
	}
	return Since{}, fmt.Errorf("%q is not a time span (7d, 2w, 12h, 30m) or date", s)
}

// TimeRange bounds a search by age: OlderThan and NewerThan are spans back
// from now ("> 2 weeks" is OlderThan two weeks; "< 3 days" is NewerThan
// three days). Zero means unbounded. In JSON a span is written as a filter
// writes it ("2w", "36h"), so that people and programs read the same
// thing; a number of nanoseconds is still read.
type TimeRange struct {
	OlderThan time.Duration
	NewerThan time.Duration
}

// IsZero reports whether the range is unbounded.
func (r TimeRange) IsZero() bool { return r.OlderThan == 0 && r.NewerThan == 0 }

// timeRangeJSON is TimeRange as JSON.
type timeRangeJSON struct {
	OlderThan span `json:"older_than,omitzero"`
	NewerThan span `json:"newer_than,omitzero"`
}

// MarshalJSON writes the spans as "2w", "36h", "90m".
func (r TimeRange) MarshalJSON() ([]byte, error) {
	return json.Marshal(timeRangeJSON{span(r.OlderThan), span(r.NewerThan)})
}

// UnmarshalJSON reads what MarshalJSON writes, and nanoseconds.
func (r *TimeRange) UnmarshalJSON(b []byte) error {
	var v timeRangeJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = TimeRange{OlderThan: time.Duration(v.OlderThan), NewerThan: time.Duration(v.NewerThan)}
	return nil
}

// span is a duration written in JSON as a filter writes a span.
type span time.Duration

func (s span) MarshalJSON() ([]byte, error) {
	return json.Marshal(Since{Ago: time.Duration(s)}.String())
}

func (s *span) UnmarshalJSON(b []byte) error {
	var n int64
	if err := json.Unmarshal(b, &n); err == nil {
		*s = span(n)
		return nil
	}
	var text string
	if err := json.Unmarshal(b, &text); err != nil {
		return fmt.Errorf("a time span is a string such as \"2w\": %w", err)
	}
	if text == "" {
		*s = 0
		return nil
	}
	v, err := ParseSince(text)
	if err != nil || v.Ago == 0 {
		if d, derr := time.ParseDuration(text); derr == nil && d > 0 {
			*s = span(d)
			return nil
		}
		return fmt.Errorf("%q is not a time span (2w, 36h, 90m)", text)
	}
	*s = span(v.Ago)
	return nil
}

// RefKind is what a reference points at.
type RefKind string

// The references of docs/language.md §3.
const (
	RefLast        RefKind = "last"         // @last: the previous action's result
	RefLastMessage RefKind = "last.message" // @last.message: the previous message
	RefLastOutput  RefKind = "last.output"  // @last.output: the previous action's output
	RefThread      RefKind = "thread"       // @thread: the current thread
	RefParent      RefKind = "parent"       // @parent: the message replied to
	RefURI         RefKind = "uri"          // @[uri]: a resource by URI
)

// Ref is a reference written in arguments, left for the runtime to resolve.
// Token is the text as written, so the runtime can substitute it.
type Ref struct {
	Kind  RefKind `json:"kind"`
	URI   string  `json:"uri,omitempty"`
	Token string  `json:"token"`
}

// ParseRef reads one reference token ("@last.output", "@[doc://x]"); ok is
// false when tok is not a reference.
func ParseRef(tok string) (Ref, bool) {
	if strings.HasPrefix(tok, "@[") && strings.HasSuffix(tok, "]") && len(tok) > 3 {
		return Ref{Kind: RefURI, URI: tok[2 : len(tok)-1], Token: tok}, true
	}
	switch k := RefKind(strings.TrimPrefix(tok, "@")); k {
	case RefLast, RefLastMessage, RefLastOutput, RefThread, RefParent:
		if strings.HasPrefix(tok, "@") {
			return Ref{Kind: k, Token: tok}, true
		}
	}
	return Ref{}, false
}
