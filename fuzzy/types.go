package fuzzy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pattern-dialect/dialect/codes"
)

// Strictness says how forgiving resolution may be for a verb. The values
// are in the same order as verbs.Strictness, so a conversion works.
type Strictness int

const (
	// Normal verbs use every tier with the normal edit allowance.
	Normal Strictness = iota
	// Loose verbs use every tier with the loose edit allowance.
	Loose
	// Strict verbs resolve by exact or case-insensitive match only.
	Strict
)

// String returns the strictness as written in dialect.toml.
func (s Strictness) String() string {
	switch s {
	case Loose:
		return "loose"
	case Strict:
		return "strict"
	default:
		return "normal"
	}
}

// Entry is one verb of the vocabulary.
type Entry struct {
	Verb       string     // canonical verb; it is also a name
	Names      []string   // aliases, possibly several words ("search web")
	Strictness Strictness // how forgiving resolution may be
	// Priority settles a name claimed by several verbs (docs/language.md §5):
	// on a tie in tiers 1–3 the higher priority wins; equal priorities
	// give AMBIGUOUS_VERB.
	Priority int
}

// Tier names the resolution tier that matched.
type Tier uint8

// The tiers, in the order they are tried. TierNone means unresolved.
const (
	TierNone Tier = iota
	TierExact
	TierCase
	TierMorph
	TierSpelling
	TierEdit
	TierPhonetic
	TierSemantic
)

var tierNames = [...]string{"", "exact", "case", "morph", "spelling", "edit", "phonetic", "semantic"}

// String returns the tier's name as used in JSON output ("" for TierNone).
func (t Tier) String() string {
	if int(t) < len(tierNames) {
		return tierNames[t]
	}
	return fmt.Sprintf("tier(%d)", t)
}

// MarshalText writes the tier's name.
func (t Tier) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// Candidate is one verb a token might have meant.
type Candidate struct {
	Verb  string  `json:"verb"`           // canonical verb
	Name  string  `json:"name"`           // the name (canonical or alias) that came close
	Form  string  `json:"form,omitempty"` // the inflected form of Name that came close, if not Name itself
	Tier  Tier    `json:"tier"`           // the tier that found it
	Score float64 `json:"score"`          // 0..1, higher is closer
}

// Result is the outcome of resolving one token. Exactly one of Verb and
// Code is non-empty.
//
// Candidates mean, per Code: AMBIGUOUS_VERB, the tied verbs (the runtime
// may settle them by argument shape); UNKNOWN_VERB, the strict verb of a
// near miss, else names within the allowance that a guard held back.
type Result struct {
	Input      string      // the token as given
	Verb       string      // canonical verb, or "" when unresolved
	Name       string      // the name that matched (folded), or ""
	Form       string      // edit and phonetic tiers: the inflected form of Name the token is a typo of ("canceled"), or "" for Name itself
	Tier       Tier        // the tier that matched, or TierNone
	Score      float64     // 0..1: 1 for exact, lower for looser tiers
	Code       codes.Code  // UNKNOWN_VERB, AMBIGUOUS_VERB or MIXED_SCRIPT; "" on success
	Candidates []Candidate // on failure: up to Options.MaxCandidates, best first (see below)
	// Suggestions are, on UNKNOWN_VERB only, the verbs the token may have
	// meant, nearest first, up to Options.MaxCandidates: the strict verb
	// of a near miss, else the nearest names within a radius wider than
	// the tiers' (see docs/resolution.md). They are for the message back
	// to the model only: unlike the Candidates of AMBIGUOUS_VERB, which
	// the runtime may settle by argument shape, nothing ever runs or
	// settles a suggestion.
	Suggestions []Candidate
	Offset      int // MIXED_SCRIPT: byte offset in Input of the first letter from another script

	nearMiss bool // UNKNOWN_VERB because the token is a near miss of a strict verb
}

// NearMiss reports whether the token failed as a near miss of a strict
// verb (its first candidate): it must be retyped exactly.
func (r Result) NearMiss() bool { return r.nearMiss }

// OK reports whether the token resolved to a verb.
func (r Result) OK() bool { return r.Verb != "" }

// Err returns nil on success, else an *Error describing the failure.
func (r Result) Err() error {
	if r.Code == "" {
		return nil
	}
	return &Error{Code: r.Code, Input: r.Input, Offset: r.Offset, Candidates: r.Candidates, Suggestions: r.Suggestions}
}

// Message is the sentence for the agent: empty on success, else what went
// wrong and what the model may have meant.
func (r Result) Message() string {
	if r.Code == "" {
		return ""
	}
	return (&Error{Code: r.Code, Input: r.Input, Offset: r.Offset, Candidates: r.Candidates, Suggestions: r.Suggestions}).Error()
}

// Error is a resolution failure, usable with errors.Is against ErrUnknownVerb,
// ErrAmbiguousVerb and ErrMixedScript, and with errors.As.
type Error struct {
	Code       codes.Code  // failure code
	Input      string      // the token as given
	Offset     int         // byte offset in Input the failure refers to (MIXED_SCRIPT), else 0
	Candidates []Candidate // AMBIGUOUS_VERB: the tied verbs; UNKNOWN_VERB: as Result.Candidates
	// Suggestions are the did-you-mean of UNKNOWN_VERB (Result.Suggestions).
	Suggestions []Candidate
}

// Sentinel errors for errors.Is: an *Error matches the sentinel of its Code.
var (
	ErrUnknownVerb   = &Error{Code: codes.UnknownVerb}
	ErrAmbiguousVerb = &Error{Code: codes.AmbiguousVerb}
	ErrMixedScript   = &Error{Code: codes.MixedScript}
)

// Is reports whether target is the sentinel for e's code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Input == "" && t.Candidates == nil && t.Suggestions == nil && t.Code == e.Code
}

// Error returns a short sentence a model can act on. Control and
// formatting characters of the token are escaped, so the sentence is safe
// to print on a terminal.
func (e *Error) Error() string {
	tok := "/" + Printable(e.Input)
	switch e.Code {
	case codes.MixedScript:
		return fmt.Sprintf("%s mixes Latin letters with look-alikes from another script (at byte %d) — retype it in plain letters", tok, e.Offset)
	case codes.AmbiguousVerb:
		if len(e.Candidates) >= 2 {
			return fmt.Sprintf("I couldn't tell if you meant %s — which one?", orList(e.Candidates))
		}
		return fmt.Sprintf("%s is ambiguous", tok)
	default:
		cs := e.Suggestions
		if len(cs) == 0 {
			cs = e.Candidates
		}
		if len(cs) == 0 {
			return fmt.Sprintf("%s is not a verb", tok)
		}
		return fmt.Sprintf("%s is not a verb — did you mean %s?", tok, nameList(cs))
	}
}

// Printable returns s with control characters (C0, DEL, C1) and Unicode
// format characters (such as bidirectional overrides) written as Go
// escapes, and invalid UTF-8 as \x escapes; other text is unchanged.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError:
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// nameList writes the distinct names of cs as "/a", "/a or /b", "/a, /b or
// /c".
func nameList(cs []Candidate) string {
	var names []string
	for _, c := range cs {
		if n := "/" + Printable(c.Name); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func orList(cs []Candidate) string {
	seen := map[string]bool{}
	var names []string
	for _, c := range cs {
		if !seen[c.Verb] {
			seen[c.Verb] = true
			names = append(names, "/"+c.Verb)
		}
	}
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
