package failures

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrBadTime is returned (wrapped in *TimeError) for a --since or
// --older-than value that is neither an age nor a date.
var ErrBadTime = errors.New("bad time")

// TimeError says which text could not be read as a time, and where.
type TimeError struct {
	Text   string
	Offset int // 0-based byte offset of the problem
	Reason string
}

func (e *TimeError) Error() string {
	return fmt.Sprintf("%q at offset %d: %s (want an age like 7d, 12h, 2w, 30m, or a date like 2026-01-31 or 2026-01-31T12:00:00Z)", e.Text, e.Offset, e.Reason)
}

// Unwrap makes errors.Is(err, ErrBadTime) true.
func (e *TimeError) Unwrap() error { return ErrBadTime }

// ParseAge reads an age: a positive whole number followed by m (minutes),
// h (hours), d (days) or w (weeks), e.g. "7d", "90d", "12h".
func ParseAge(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, &TimeError{s, 0, "empty"}
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, &TimeError{s, 0, "an age starts with a number"}
	}
	if i > 6 {
		return 0, &TimeError{s, 0, "number too large"}
	}
	n, _ := strconv.Atoi(t[:i])
	if n <= 0 {
		return 0, &TimeError{s, 0, "an age must be positive"}
	}
	var unit time.Duration
	switch t[i:] {
	case "m":
		unit = time.Minute
	case "h":
		unit = time.Hour
	case "d":
		unit = 24 * time.Hour
	case "w":
		unit = 7 * 24 * time.Hour
	case "":
		return 0, &TimeError{s, i, "missing unit (m, h, d or w)"}
	default:
		return 0, &TimeError{s, i, fmt.Sprintf("unknown unit %q (m, h, d or w)", t[i:])}
	}
	const maxAge = 100 * 365 * 24 * time.Hour
	if time.Duration(n) > maxAge/unit {
		return 0, &TimeError{s, 0, "age too large (at most 100 years)"}
	}
	return time.Duration(n) * unit, nil
}

// ParseSince reads a start time: an age before now ("7d"), a date
// ("2026-01-31", midnight UTC) or an RFC 3339 time.
func ParseSince(s string, now time.Time) (time.Time, error) {
	t := strings.TrimSpace(s)
	if len(t) >= 10 && t[4] == '-' {
		if d, err := time.Parse(time.DateOnly, t); err == nil {
			return d, nil
		}
		if d, err := time.Parse(time.RFC3339, t); err == nil {
			return d, nil
		}
		return time.Time{}, &TimeError{s, 0, "not a date (2006-01-02) or an RFC 3339 time"}
	}
	d, err := ParseAge(t)
	if err != nil {
		return time.Time{}, err
	}
	return now.Add(-d), nil
}

// StartOfDay returns midnight UTC of t's UTC day.
func StartOfDay(t time.Time) time.Time {
	return time.UnixMilli(floorDiv(t.UnixMilli(), dayMillis) * dayMillis).UTC()
}
