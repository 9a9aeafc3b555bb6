package failures

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/pattern-dialect/dialect/codes"
)

// Detail is the typed detail of one failure: which token, argument, marker
// or reference it was about. It is stored as JSON next to the row.
type Detail interface {
	// Code is the failure code this detail belongs to.
	Code() codes.Code
	// Subject is the short key that failures of the same pattern share:
	// the attempted verb, the unknown modifier, the missing argument... The
	// report groups patterns by (code, verb, subject).
	Subject() string
}

// UnknownVerbDetail: a verb token that no tier resolved.
type UnknownVerbDetail struct {
	Attempted string `json:"attempted"` // the token as written
	NearMiss  string `json:"near_miss,omitempty"`
}

// AmbiguousVerbDetail: a token that two or more verbs match equally well.
type AmbiguousVerbDetail struct {
	Attempted string   `json:"attempted"`
	Options   []string `json:"options"`
}

// AmbiguousArgsDetail: arguments that name more than one thing.
type AmbiguousArgsDetail struct {
	Verb          string   `json:"verb"`
	Args          string   `json:"args"`
	Possibilities []string `json:"possibilities"`
}

// MissingArgDetail: a required argument was not given.
type MissingArgDetail struct {
	Verb string `json:"verb"`
	Arg  string `json:"arg"` // the argument's name, e.g. "url"
}

// MalformedSyntaxDetail: the arguments did not parse.
type MalformedSyntaxDetail struct {
	Verb   string `json:"verb"`
	Issue  string `json:"issue"`            // a short stable phrase, e.g. "unterminated quote"
	Column int    `json:"column,omitempty"` // 1-based column in the action text, 0 if unknown
}

// UnknownModifierDetail: a modifier the verb does not have.
type UnknownModifierDetail struct {
	Verb     string   `json:"verb"`
	Modifier string   `json:"modifier"`
	Valid    []string `json:"valid,omitempty"`
}

// InvalidReferenceDetail: an @reference the host could not resolve.
type InvalidReferenceDetail struct {
	Reference string   `json:"reference"`
	Available []string `json:"available,omitempty"`
}

// PermissionMarkerInvalidDetail: an unknown ?word marker.
type PermissionMarkerInvalidDetail struct {
	Marker string `json:"marker"`
}

// PermissionDeniedDetail: the agent may not run this verb.
type PermissionDeniedDetail struct {
	Verb   string `json:"verb"`
	Reason string `json:"reason,omitempty"`
}

// PendingApprovalDetail: the action was queued for approval.
type PendingApprovalDetail struct {
	Verb     string `json:"verb"`
	Approver string `json:"approver,omitempty"`
	QueueID  string `json:"queue_id,omitempty"`
}

// InputTooLargeDetail: the action text exceeded the limit.
type InputTooLargeDetail struct {
	Size  int `json:"size"`
	Limit int `json:"limit"`
}

// MixedScriptDetail: a verb token that mixes scripts.
type MixedScriptDetail struct {
	Token   string   `json:"token"`
	Scripts []string `json:"scripts,omitempty"`
}

// BannedKeyDetail: a banned key (__proto__...) in a key=value payload.
type BannedKeyDetail struct {
	Key string `json:"key"`
}

// OtherDetail carries the details of a code this package does not know.
type OtherDetail struct {
	C    codes.Code      `json:"-"`
	JSON json.RawMessage `json:"-"`
}

// Code implements Detail.
func (UnknownVerbDetail) Code() codes.Code { return codes.UnknownVerb }

// Code implements Detail.
func (AmbiguousVerbDetail) Code() codes.Code { return codes.AmbiguousVerb }

// Code implements Detail.
func (AmbiguousArgsDetail) Code() codes.Code { return codes.AmbiguousArgs }

// Code implements Detail.
func (MissingArgDetail) Code() codes.Code { return codes.MissingArg }

// Code implements Detail.
func (MalformedSyntaxDetail) Code() codes.Code { return codes.MalformedSyntax }

// Code implements Detail.
func (UnknownModifierDetail) Code() codes.Code { return codes.UnknownModifier }

// Code implements Detail.
func (InvalidReferenceDetail) Code() codes.Code { return codes.InvalidReference }

// Code implements Detail.
func (PermissionMarkerInvalidDetail) Code() codes.Code { return codes.PermissionMarkerInvalid }

// Code implements Detail.
func (PermissionDeniedDetail) Code() codes.Code { return codes.PermissionDenied }

// Code implements Detail.
func (PendingApprovalDetail) Code() codes.Code { return codes.PendingApproval }

// Code implements Detail.
func (InputTooLargeDetail) Code() codes.Code { return codes.InputTooLarge }

// Code implements Detail.
func (MixedScriptDetail) Code() codes.Code { return codes.MixedScript }

// Code implements Detail.
func (BannedKeyDetail) Code() codes.Code { return codes.BannedKey }

// Code implements Detail.
func (d OtherDetail) Code() codes.Code { return d.C }

// Subject implements Detail.
func (d UnknownVerbDetail) Subject() string { return normWord(d.Attempted) }

// Subject implements Detail.
func (d AmbiguousVerbDetail) Subject() string {
	o := append([]string(nil), d.Options...)
	sort.Strings(o)
	return strings.Join(o, "|")
}

// Subject implements Detail.
func (d AmbiguousArgsDetail) Subject() string { return clip(normWord(d.Args), 64) }

// Subject implements Detail.
func (d MissingArgDetail) Subject() string { return d.Arg }

// Subject implements Detail.
func (d MalformedSyntaxDetail) Subject() string { return clip(d.Issue, 64) }

// Subject implements Detail.
func (d UnknownModifierDetail) Subject() string { return clip(normWord(d.Modifier), 64) }

// Subject implements Detail.
func (d InvalidReferenceDetail) Subject() string { return clip(d.Reference, 64) }

// Subject implements Detail.
func (d PermissionMarkerInvalidDetail) Subject() string { return d.Marker }

// Subject implements Detail.
func (d PermissionDeniedDetail) Subject() string { return d.Verb }

// Subject implements Detail.
func (d PendingApprovalDetail) Subject() string { return d.Verb }

// Subject implements Detail.
func (InputTooLargeDetail) Subject() string { return "" }

// Subject implements Detail.
func (d MixedScriptDetail) Subject() string { return normWord(d.Token) }

// Subject implements Detail.
func (d BannedKeyDetail) Subject() string { return d.Key }

// Subject implements Detail.
func (OtherDetail) Subject() string { return "" }

// MarshalJSON writes the raw details of an unknown code as they were.
func (d OtherDetail) MarshalJSON() ([]byte, error) {
	if len(d.JSON) == 0 {
		return []byte("null"), nil
	}
	return d.JSON, nil
}

// decodeDetail reads the stored JSON of a row's details into the type that
// belongs to its code.
func decodeDetail(c codes.Code, data []byte) (Detail, error) {
	if len(data) == 0 || string(data) == "null" {
		return nil, nil
	}
	var d Detail
	switch c {
	case codes.UnknownVerb:
		d = new(UnknownVerbDetail)
	case codes.AmbiguousVerb:
		d = new(AmbiguousVerbDetail)
	case codes.AmbiguousArgs:
		d = new(AmbiguousArgsDetail)
	case codes.MissingArg:
		d = new(MissingArgDetail)
	case codes.MalformedSyntax:
		d = new(MalformedSyntaxDetail)
	case codes.UnknownModifier:
		d = new(UnknownModifierDetail)
	case codes.InvalidReference:
		d = new(InvalidReferenceDetail)
	case codes.PermissionMarkerInvalid:
		d = new(PermissionMarkerInvalidDetail)
	case codes.PermissionDenied:
		d = new(PermissionDeniedDetail)
	case codes.PendingApproval:
		d = new(PendingApprovalDetail)
	case codes.InputTooLarge:
		d = new(InputTooLargeDetail)
	case codes.MixedScript:
		d = new(MixedScriptDetail)
	case codes.BannedKey:
		d = new(BannedKeyDetail)
	default:
		return OtherDetail{C: c, JSON: append(json.RawMessage(nil), data...)}, nil
	}
	if err := json.Unmarshal(data, d); err != nil {
		return nil, fmt.Errorf("failures: details of %s: %w", c, err)
	}
	// Return the value, not the pointer, so callers type-switch on the
	// same types they record.
	switch v := d.(type) {
	case *UnknownVerbDetail:
		return *v, nil
	case *AmbiguousVerbDetail:
		return *v, nil
	case *AmbiguousArgsDetail:
		return *v, nil
	case *MissingArgDetail:
		return *v, nil
	case *MalformedSyntaxDetail:
		return *v, nil
	case *UnknownModifierDetail:
		return *v, nil
	case *InvalidReferenceDetail:
		return *v, nil
	case *PermissionMarkerInvalidDetail:
		return *v, nil
	case *PermissionDeniedDetail:
		return *v, nil
	case *PendingApprovalDetail:
		return *v, nil
	case *InputTooLargeDetail:
		return *v, nil
	case *MixedScriptDetail:
		return *v, nil
	case *BannedKeyDetail:
		return *v, nil
	}
	return d, nil
}

// normWord lower-cases and trims a token so that "Retrieve" and "retrieve"
// count as one.
func normWord(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// clip shortens s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
