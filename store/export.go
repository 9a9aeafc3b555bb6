package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
	"unicode/utf8"
)

// Memory is exported as JSON Lines, one Record a line: a block name with
// every version it ever had, deleted blocks included. Importing an export
// into an empty store and exporting again gives the same bytes.

// MaxRecordBytes bounds one line of an import.
const MaxRecordBytes = 64 << 20

// Current returns the block as the record's last version left it, and
// false when that version deleted it.
func (r Record) Current() (Block, bool) {
	if len(r.Versions) == 0 {
		return Block{}, false
	}
	last := r.Versions[len(r.Versions)-1]
	if last.Deleted() {
		return Block{}, false
	}
	b := Block{Kind: r.Kind, Name: r.Name, Content: last.Content, Version: last.Version,
		Updated: last.At, Tags: NormTags(last.Tags), Project: NormProject(last.Project)}
	// The block was created by the first version after its last deletion.
	b.Created = r.Versions[0].At
	for i := len(r.Versions) - 2; i >= 0; i-- {
		if r.Versions[i].Deleted() {
			b.Created = r.Versions[i+1].At
			break
		}
	}
	return b, true
}

// RecordError says which line of an import is wrong, and why.
type RecordError struct {
	Line int // 1-based
	Err  error
}

// Error says the line and what is wrong with it.
func (e *RecordError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns what is wrong.
func (e *RecordError) Unwrap() error { return e.Err }

// CheckRecord reports what makes r impossible to import: a kind or name
// the store does not take, no versions, version numbers that do not
// increase, a version with no op or time, labels that are not one word.
func CheckRecord(r Record) error {
	if r.Kind != Archival && r.Kind != Working {
		return fmt.Errorf("%q is not a kind of memory (archival, working)", r.Kind)
	}
	if err := checkName(r.Name); err != nil {
		return err
	}
	if len(r.Versions) == 0 {
		return fmt.Errorf("block %q has no versions", r.Name)
	}
	prev := 0
	for _, v := range r.Versions {
		switch {
		case v.Version <= prev:
			return fmt.Errorf("block %q: version %d follows version %d; versions must increase", r.Name, v.Version, prev)
		case v.Op == "" || len(v.Op) > 200:
			return fmt.Errorf("block %q version %d: op must be 1–200 bytes", r.Name, v.Version)
		case v.At.IsZero():
			return fmt.Errorf("block %q version %d has no time", r.Name, v.Version)
		case !utf8.ValidString(v.Content) || !utf8.ValidString(v.Agent) || !utf8.ValidString(v.Op):
			return fmt.Errorf("block %q version %d is not valid UTF-8", r.Name, v.Version)
		case v.Project != "" && NormProject(v.Project) != v.Project:
			return fmt.Errorf("block %q version %d: project %q is not one lower-case word", r.Name, v.Version, v.Project)
		case !slices.Equal(NormTags(v.Tags), nilIfEmpty(v.Tags)):
			return fmt.Errorf("block %q version %d: tags must be lower-case words, sorted, each once", r.Name, v.Version)
		}
		prev = v.Version
	}
	return nil
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// Export writes every block of the kinds given (both when none), with its
// whole history, as JSON Lines: archival first, then working, by name. It
// returns how many records it wrote.
func Export(ctx context.Context, s Store, w io.Writer, kinds ...Kind) (int, error) {
	if len(kinds) == 0 {
		kinds = []Kind{Archival, Working}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	n := 0
	for _, k := range kinds {
		names, err := s.HistoryNames(ctx, k)
		if err != nil {
			return n, err
		}
		for _, name := range names {
			vs, err := s.History(ctx, k, name)
			if err != nil {
				return n, err
			}
			for i := range vs {
				vs[i].At = vs[i].At.UTC()
			}
			if err := enc.Encode(Record{Kind: k, Name: name, Versions: vs}); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// ReadRecords reads JSON Lines written by Export, checking each record: an
// unknown field, a line that is not a record, or a record CheckRecord
// refuses is a *RecordError with its line. A name given twice is refused
// too. Nothing is written anywhere.
func ReadRecords(r io.Reader) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxRecordBytes)
	seen := map[[2]string]int{}
	var out []Record
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		var rec Record
		if err := dec.Decode(&rec); err != nil {
			return nil, &RecordError{line, err}
		}
		if dec.More() {
			return nil, &RecordError{line, errors.New("more than one JSON value on the line")}
		}
		if err := CheckRecord(rec); err != nil {
			return nil, &RecordError{line, err}
		}
		key := [2]string{string(rec.Kind), rec.Name}
		if first, dup := seen[key]; dup {
			return nil, &RecordError{line, fmt.Errorf("%s block %q is also on line %d", rec.Kind, rec.Name, first)}
		}
		seen[key] = line
		for i := range rec.Versions {
			// The store keeps milliseconds; so must what it is given, or
			// an export of the import would differ.
			rec.Versions[i].At = rec.Versions[i].At.Truncate(time.Millisecond)
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Import reads an export (see ReadRecords) and writes it with s.Import, in
// one transaction: either every record is imported or none. It returns how
// many records it imported.
func Import(ctx context.Context, s Store, r io.Reader) (int, error) {
	recs, err := ReadRecords(r)
	if err != nil {
		return 0, err
	}
	if err := s.Import(ctx, recs); err != nil {
		return 0, err
	}
	return len(recs), nil
}

// Restore makes a new version of kind/name equal to its version n — its
// content and labels — recorded as "restore vN" by agent. Nothing is lost:
// the versions after n stay in the history. A deleted block comes back.
// check, when not nil, may refuse the content (a size limit) before
// anything is written.
func Restore(ctx context.Context, s Store, kind Kind, name string, n int, agent string, check func(string) error) (Block, error) {
	v, err := s.Version(ctx, kind, name, n)
	if err != nil {
		return Block{}, err
	}
	return s.Apply(ctx, Change{Kind: kind, Name: name, Op: fmt.Sprintf("restore v%d", n), Agent: agent,
		Tags: v.Tags, Project: v.Project, ExactLabels: true,
		Edit: func(string, bool) (string, error) {
			if check != nil {
				if err := check(v.Content); err != nil {
					return "", err
				}
			}
			return v.Content, nil
		}})
}
