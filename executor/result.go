package executor

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Result is what an executor hands back: Text for the model (compact,
// bounded, free of control characters) and Data, a JSON-able value for
// programs (`dialect run --json`).
type Result struct {
	Text string `json:"text"`
	Data any    `json:"data,omitempty"`
}

// Duration is a time.Duration written in TOML as a string ("5s", "250ms").
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration as a Go duration string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// or returns d, or def when d is not positive.
func (d Duration) or(def time.Duration) time.Duration {
	if d.Duration > 0 {
		return d.Duration
	}
	return def
}

func orInt[T int | int64](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// Clean makes text safe to print on a terminal (docs/language.md §7): invalid
// UTF-8 becomes U+FFFD; ANSI escape sequences (CSI, OSC, and the like) are
// removed whole; other C0 and C1 control characters, DEL, and the Unicode
// bidirectional overrides are dropped. Newlines and tabs stay; "\r\n"
// becomes "\n" and a lone "\r" a newline.
func Clean(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0x1b { // ESC: drop the whole sequence
			i = skipEscape(s, i)
			continue
		}
		if c < utf8.RuneSelf {
			switch {
			case c == '\n' || c == '\t':
				b.WriteByte(c)
			case c == '\r':
				if i+1 >= len(s) || s[i+1] != '\n' {
					b.WriteByte('\n')
				}
			case c < 0x20 || c == 0x7f:
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == 0x9b: // C1 CSI: skip its parameters like ESC [
			i = skipCSI(s, i)
		case r >= 0x80 && r <= 0x9f, isBidiControl(r):
		default:
			b.WriteString(s[i-size : i])
		}
	}
	return b.String()
}

func isClean(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || (r >= 0x80 && r <= 0x9f) || isBidiControl(r) {
			return false
		}
		i += size
	}
	return true
}

func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

// skipEscape returns the index after the escape sequence that starts with
// ESC at s[i].
func skipEscape(s string, i int) int {
	i++ // ESC
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', '_', '^', 'X': // OSC, DCS, APC, PM, SOS: up to BEL or ST
		for j := i + 1; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
		}
		return len(s)
	}
	// Two-character sequences (ESC c, ESC 7...) and charset designations
	// (ESC ( B): intermediates 0x20–0x2f, then one final byte.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipCSI skips the parameter and intermediate bytes of a CSI sequence and
// its final byte, starting after "ESC [".
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// truncate cuts s to at most max bytes on a rune boundary and reports
// whether it cut.
func truncate(s string, max int) (string, bool) {
	if max <= 0 || len(s) <= max {
		return s, false
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}

// bound cleans s and cuts it to max bytes, saying so at the end when it cut.
func bound(s string, max int) string {
	s = Clean(s)
	if t, cut := truncate(s, max); cut {
		return t + "\n[truncated]"
	}
	return s
}

// limitedBuffer keeps the first max bytes written to it and counts the rest.
type limitedBuffer struct {
	max     int
	buf     []byte
	dropped int64
}

// Write keeps what fits and reports everything written, so that a
// command is never blocked or failed by a full buffer.
func (l *limitedBuffer) Write(p []byte) (int, error) {
	room := l.max - len(l.buf)
	if room > len(p) {
		room = len(p)
	}
	if room > 0 {
		l.buf = append(l.buf, p[:room]...)
	}
	l.dropped += int64(len(p) - max(room, 0))
	return len(p), nil
}

// String returns what was kept.
func (l *limitedBuffer) String() string { return string(l.buf) }
