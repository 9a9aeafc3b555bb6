package intent

import (
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
// three days). Zero means unbounded.
type TimeRange struct {
	OlderThan time.Duration `json:"older_than,omitempty"`
	NewerThan time.Duration `json:"newer_than,omitempty"`
}

// IsZero reports whether the range is unbounded.
func (r TimeRange) IsZero() bool { return r.OlderThan == 0 && r.NewerThan == 0 }

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
