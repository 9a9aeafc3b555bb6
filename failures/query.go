package failures

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pattern-dialect/dialect/codes"
)

// Filter selects rows of the log for List and Count. Zero fields select
// everything.
type Filter struct {
	Since   time.Time // rows at or after
	Until   time.Time // rows before
	Code    codes.Code
	Model   string
	Agent   string
	Session string
	Verb    string // canonical verb
	Subject string // pattern key: the attempted verb of UNKNOWN_VERB, the modifier...
	Limit   int    // at most this many rows, newest first; 0 means all
	Oldest  bool   // oldest first instead
}

func (f Filter) where() (string, []any) {
	var conds []string
	var args []any
	add := func(c string, a any) { conds = append(conds, c); args = append(args, a) }
	if !f.Since.IsZero() {
		add("ts >= ?", f.Since.UnixMilli())
	}
	if !f.Until.IsZero() {
		add("ts < ?", f.Until.UnixMilli())
	}
	if f.Code != "" {
		add("code = ?", string(f.Code))
	}
	if f.Model != "" {
		add("model = ?", f.Model)
	}
	if f.Agent != "" {
		add("agent = ?", f.Agent)
	}
	if f.Session != "" {
		add("session = ?", f.Session)
	}
	if f.Verb != "" {
		add("verb = ?", f.Verb)
	}
	if f.Subject != "" {
		add("subject = ?", normWord(f.Subject))
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// List calls each with the rows that f selects, newest first (or oldest
// first), stopping at the first error each returns.
func (l *Log) List(ctx context.Context, f Filter, each func(Failure) error) error {
	where, args := f.where()
	q := `SELECT id, ts, code, token, verb, raw, agent, model, session, details, candidates, context FROM failures` + where
	if f.Oldest {
		q += " ORDER BY ts, id"
	} else {
		q += " ORDER BY ts DESC, id DESC"
	}
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	rows, err := l.db.QueryContext(ctx, l.db.Rebind(q), args...)
	if err != nil {
		return fmt.Errorf("failures: list: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		fl, err := scanFailure(rows)
		if err != nil {
			return err
		}
		if err := each(fl); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("failures: list: %w", err)
	}
	return nil
}

// Count returns how many rows f selects (ignoring Limit).
func (l *Log) Count(ctx context.Context, f Filter) (int64, error) {
	where, args := f.where()
	var n int64
	if err := l.db.QueryRowContext(ctx, l.db.Rebind(`SELECT count(*) FROM failures`+where), args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("failures: count: %w", err)
	}
	return n, nil
}

// ByModel returns the latest failures of one model, newest first.
func (l *Log) ByModel(ctx context.Context, model string, limit int) ([]Failure, error) {
	var out []Failure
	err := l.List(ctx, Filter{Model: model, Limit: limit}, func(f Failure) error {
		out = append(out, f)
		return nil
	})
	return out, err
}

func scanFailure(rows *sql.Rows) (Failure, error) {
	var f Failure
	var ts int64
	var code string
	var det, cands sql.NullString
	if err := rows.Scan(&f.ID, &ts, &code, &f.Token, &f.Verb, &f.Raw, &f.Agent, &f.Model, &f.Session, &det, &cands, &f.Context); err != nil {
		return f, fmt.Errorf("failures: read row: %w", err)
	}
	f.Time = time.UnixMilli(ts).UTC()
	f.Code = codes.Code(code)
	if det.Valid {
		d, err := decodeDetail(f.Code, []byte(det.String))
		if err != nil {
			return f, fmt.Errorf("failures: row %d: %w", f.ID, err)
		}
		f.Detail = d
	}
	if cands.Valid {
		if err := json.Unmarshal([]byte(cands.String), &f.Candidates); err != nil {
			return f, fmt.Errorf("failures: row %d candidates: %w", f.ID, err)
		}
	}
	return f, nil
}

// cell is one entry of the roll-up: n failures of (code, verb, subject) by
// model on one day.
type cell struct {
	day                        int64
	model, code, verb, subject string
	n                          int
	first, last                int64 // ids of the cell's first and last rows
}

// cells returns the roll-up of every failure at or after since. Whole days
// come from failure_daily; the part of since's day after since, if since is
// not midnight UTC, is counted from the rows themselves, so the answer is
// exact.
func (l *Log) cells(ctx context.Context, since time.Time) ([]cell, error) {
	ms := since.UnixMilli()
	first := floorDiv(ms, dayMillis)
	whole := first
	var out []cell
	if ms != first*dayMillis {
		whole = first + 1
		rows, err := l.db.QueryContext(ctx, l.db.Rebind(`SELECT model, code, verb, subject, count(*), min(id), max(id) FROM failures
			WHERE ts >= ? AND ts < ? GROUP BY model, code, verb, subject`), ms, whole*dayMillis)
		if err != nil {
			return nil, fmt.Errorf("failures: aggregate: %w", err)
		}
		for rows.Next() {
			c := cell{day: first}
			if err := rows.Scan(&c.model, &c.code, &c.verb, &c.subject, &c.n, &c.first, &c.last); err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	rows, err := l.db.QueryContext(ctx, l.db.Rebind(`SELECT day, model, code, verb, subject, n, first_id, last_id FROM failure_daily WHERE day >= ?`), whole)
	if err != nil {
		return nil, fmt.Errorf("failures: aggregate: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c cell
		if err := rows.Scan(&c.day, &c.model, &c.code, &c.verb, &c.subject, &c.n, &c.first, &c.last); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// successes returns successful actions per model on days from since's day.
// Counters are per day, so a since inside a day counts that whole day.
func (l *Log) successes(ctx context.Context, since time.Time) (map[string]int, error) {
	rows, err := l.db.QueryContext(ctx, l.db.Rebind(`SELECT model, CAST(sum(ok) AS BIGINT) FROM action_counts WHERE day >= ? GROUP BY model`),
		floorDiv(since.UnixMilli(), dayMillis))
	if err != nil {
		return nil, fmt.Errorf("failures: action counts: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var m string
		var n int
		if err := rows.Scan(&m, &n); err != nil {
			return nil, err
		}
		out[m] = n
	}
	return out, rows.Err()
}

// Example is one usage of a failing pattern, for people reading a report.
type Example struct {
	Time    time.Time `json:"time"`
	Raw     string    `json:"raw"`
	Context string    `json:"context,omitempty"`
	Model   string    `json:"model,omitempty"`
	Agent   string    `json:"agent,omitempty"`
}

// exKey names a pattern whose example rows are wanted; an empty verb
// means any verb.
type exKey struct{ code, verb, subject string }

// exampleIDs returns, for each wanted pattern, the ids of the first and
// last rows of its cells, in one pass over the cells.
func exampleIDs(cs []cell, keys []exKey) map[exKey][]int64 {
	out := make(map[exKey][]int64, len(keys))
	anyVerb := false
	for _, k := range keys {
		out[k] = nil
		anyVerb = anyVerb || k.verb == ""
	}
	for _, c := range cs {
		k := exKey{c.code, c.verb, c.subject}
		if ids, ok := out[k]; ok {
			out[k] = append(ids, c.first, c.last)
		}
		if anyVerb && c.verb != "" {
			k.verb = ""
			if ids, ok := out[k]; ok {
				out[k] = append(ids, c.first, c.last)
			}
		}
	}
	return out
}

// examples returns up to n of the newest distinct usages (raw text and
// context) among the rows with the given ids (the first and last rows of a
// pattern's cells): no scan of the rows is needed.
func (l *Log) examples(ctx context.Context, cand []int64, n int) ([]Example, error) {
	if n <= 0 || len(cand) == 0 {
		return nil, nil
	}
	ids := slices.Clone(cand)
	slices.Sort(ids)
	slices.Reverse(ids)
	ids = slices.Compact(ids)
	if len(ids) > 8*n {
		ids = ids[:8*n]
	}
	var q strings.Builder
	q.WriteString(`SELECT ts, raw, context, model, agent FROM failures WHERE id IN (`)
	args := make([]any, len(ids))
	for i, id := range ids {
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteByte('?')
		args[i] = id
	}
	q.WriteString(`) ORDER BY ts DESC, id DESC`)
	rows, err := l.db.QueryContext(ctx, l.db.Rebind(q.String()), args...)
	if err != nil {
		return nil, fmt.Errorf("failures: examples: %w", err)
	}
	defer rows.Close()
	var out []Example
	seen := map[[2]string]bool{}
	for rows.Next() && len(out) < n {
		var e Example
		var ts int64
		if err := rows.Scan(&ts, &e.Raw, &e.Context, &e.Model, &e.Agent); err != nil {
			return nil, err
		}
		k := [2]string{e.Raw, e.Context}
		if seen[k] {
			continue
		}
		seen[k] = true
		e.Time = time.UnixMilli(ts).UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}

// TokenCount is how often an unknown verb token was written.
type TokenCount struct {
	Token    string         `json:"token"`
	Count    int            `json:"count"`
	ByModel  map[string]int `json:"by_model"`
	Examples []Example      `json:"examples,omitempty"`
}

// UnknownVerbs returns the tokens of UNKNOWN_VERB failures since the given
// time, most frequent first, with up to examples usages each.
func (l *Log) UnknownVerbs(ctx context.Context, since time.Time, examples int) ([]TokenCount, error) {
	cs, err := l.cells(ctx, since)
	if err != nil {
		return nil, err
	}
	out := unknownVerbs(cs)
	keys := make([]exKey, len(out))
	for i := range out {
		keys[i] = exKey{string(codes.UnknownVerb), "", out[i].Token}
	}
	x := exampleIDs(cs, keys)
	for i := range out {
		if out[i].Examples, err = l.examples(ctx, x[keys[i]], examples); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func unknownVerbs(cs []cell) []TokenCount {
	idx := map[string]int{}
	var out []TokenCount
	for _, c := range cs {
		if c.code != string(codes.UnknownVerb) || c.subject == "" {
			continue
		}
		i, ok := idx[c.subject]
		if !ok {
			i = len(out)
			idx[c.subject] = i
			out = append(out, TokenCount{Token: c.subject, ByModel: map[string]int{}})
		}
		out[i].Count += c.n
		out[i].ByModel[c.model] += c.n
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Token < out[j].Token
	})
	return out
}

// ModelStat is one model's failures against the actions it wrote.
type ModelStat struct {
	Model     string             `json:"model"`
	Failures  int                `json:"failures"`
	Successes int                `json:"successes"`
	Actions   int                `json:"actions"` // failures + successes
	Rate      float64            `json:"rate"`    // failures / actions, 0 when no actions
	ByCode    map[codes.Code]int `json:"by_code"`
}

// ModelStats returns failures per model since the given time, as a rate of
// the actions seen, highest failure count first.
func (l *Log) ModelStats(ctx context.Context, since time.Time) ([]ModelStat, error) {
	cs, err := l.cells(ctx, since)
	if err != nil {
		return nil, err
	}
	ok, err := l.successes(ctx, since)
	if err != nil {
		return nil, err
	}
	return modelStats(cs, ok), nil
}

func modelStats(cs []cell, ok map[string]int) []ModelStat {
	by := map[string]*ModelStat{}
	get := func(m string) *ModelStat {
		s := by[m]
		if s == nil {
			s = &ModelStat{Model: m, ByCode: map[codes.Code]int{}}
			by[m] = s
		}
		return s
	}
	for _, c := range cs {
		s := get(c.model)
		s.Failures += c.n
		s.ByCode[codes.Code(c.code)] += c.n
	}
	for m, n := range ok {
		get(m).Successes += n
	}
	out := make([]ModelStat, 0, len(by))
	for _, s := range by {
		s.Actions = s.Failures + s.Successes
		if s.Actions > 0 {
			s.Rate = float64(s.Failures) / float64(s.Actions)
		}
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Failures != out[j].Failures {
			return out[i].Failures > out[j].Failures
		}
		return out[i].Model < out[j].Model
	})
	return out
}

// Prune deletes the rows older than before, in chunks so that other writers
// are not locked out for long, and keeps the roll-up and the action
// counters in step. It returns how many rows it deleted. progress, if not
// nil, is called after each chunk with the rows deleted so far and the
// total to delete.
func (l *Log) Prune(ctx context.Context, before time.Time, progress func(done, total int64)) (int64, error) {
	cut := before.UnixMilli()
	total, err := l.Count(ctx, Filter{Until: before})
	if err != nil {
		return 0, err
	}
	const chunk = 20000
	var done int64
	for {
		var n int64
		err := l.db.Write(ctx, func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, l.db.Rebind(`DELETE FROM failures WHERE id IN (SELECT id FROM failures WHERE ts < ? LIMIT ?)`), cut, chunk)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return done, fmt.Errorf("failures: prune: %w", err)
		}
		done += n
		if progress != nil {
			progress(done, max(total, done))
		}
		if n < chunk {
			break
		}
	}
	day := floorDiv(cut, dayMillis)
	err = l.db.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, l.db.Rebind(`DELETE FROM failure_daily WHERE day <= ?`), day); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, l.db.Rebind(`DELETE FROM action_counts WHERE day < ?`), day); err != nil {
			return err
		}
		// The cut's own day keeps the rows at or after the cut: count them
		// again from the rows.
		_, err := tx.ExecContext(ctx, l.db.Rebind(`INSERT INTO failure_daily (day, model, code, verb, subject, n, first_id, last_id)
			SELECT CAST(? AS BIGINT), model, code, verb, subject, count(*), min(id), max(id) FROM failures WHERE ts >= ? AND ts < ?
			GROUP BY model, code, verb, subject`), day, day*dayMillis, (day+1)*dayMillis)
		return err
	})
	if err != nil {
		return done, fmt.Errorf("failures: prune roll-up: %w", err)
	}
	return done, nil
}
