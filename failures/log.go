package failures

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/pattern-dialect/dialect/codes"
)

// MaxRaw is the most bytes of an action's raw text that a row keeps; longer
// text (an INPUT_TOO_LARGE action is up to 64 KiB and more) is cut on a rune
// boundary and marked with a trailing "…".
const MaxRaw = 4096

// MaxContext is the most bytes of the context hint a row keeps.
const MaxContext = 1024

// Failure is one row of the failure log: one action in an executable
// position that could not run.
type Failure struct {
	ID      int64      `json:"id"`
	Time    time.Time  `json:"time"`
	Code    codes.Code `json:"code"`
	Raw     string     `json:"raw"`               // the action as written, "/serch deadlines"
	Token   string     `json:"token"`             // the verb token as written, "serch"
	Verb    string     `json:"verb,omitempty"`    // the canonical verb, when it was resolved
	Agent   string     `json:"agent,omitempty"`   // who wrote it
	Model   string     `json:"model,omitempty"`   // which model
	Session string     `json:"session,omitempty"` // for grouping related failures
	Detail  Detail     `json:"detail,omitempty"`
	// Candidates are what the matcher offered, best first.
	Candidates []Candidate `json:"candidates,omitempty"`
	// Context is the hint of what the agent was trying to do: the sentence
	// before the action.
	Context string `json:"context,omitempty"`
}

// Candidate is one verb the matcher considered for the token.
type Candidate struct {
	Verb  string  `json:"verb"`
	Score float64 `json:"score"`
	Tier  string  `json:"tier,omitempty"`
}

// Subject is the pattern key of the failure: its detail's subject, or for a
// failure without details the lower-cased token when the verb was unknown.
func (f *Failure) Subject() string {
	if f.Detail != nil {
		return f.Detail.Subject()
	}
	if f.Code == codes.UnknownVerb || f.Code == codes.MixedScript {
		return normWord(f.Token)
	}
	return ""
}

// ErrInvalid is returned (wrapped in *InvalidError) for a row that cannot be
// recorded.
var ErrInvalid = errors.New("invalid failure")

// InvalidError says which row of a batch was rejected and why. A batch with
// an invalid row records nothing.
type InvalidError struct {
	Index  int // position in the batch, 0 for Record
	Reason string
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("failures: row %d: %s", e.Index, e.Reason)
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// Log is the failure log, kept in the store's SQL database. It is safe
// for concurrent use, and many processes may write to it at once.
type Log struct {
	db    DB
	clock func() time.Time // the time of rows recorded without one

	mu    sync.Mutex           // guards stmts
	stmts map[string]*sql.Stmt // prepared multi-row statements, by SQL
}

// DB is the SQL database a Log keeps its tables in (see Schema): the
// store's, SQLite or PostgreSQL. Write runs fn in a transaction that
// behaves as if it ran alone, retrying while another process holds the
// database (so fn may run more than once). The log writes portable SQL
// with `?` placeholders and passes every statement through Rebind, which
// turns them into what the database takes.
type DB interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
	Write(ctx context.Context, fn func(tx *sql.Tx) error) error
	Rebind(query string) string
}

// Option configures a Log.
type Option func(*Log)

// WithClock sets the clock used for rows without a time and for "now" in
// queries; tests use it to pin time.
func WithClock(now func() time.Time) Option { return func(l *Log) { l.clock = now } }

// New returns the log stored in db, which must hold the tables of Schema.
// The store that owns db opens and closes it.
func New(db DB, opts ...Option) *Log {
	l := &Log{db: db, clock: time.Now}
	for _, o := range opts {
		o(l)
	}
	return l
}

// Close closes the log's prepared statements; the database stays open.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.stmts {
		s.Close()
	}
	l.stmts = nil
	return nil
}

// stmt returns query prepared (once per log, then per connection by
// database/sql) and bound to tx. Multi-row statements are costly to
// prepare, and SQLite's parser would otherwise run on every batch.
func (l *Log) stmt(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	l.mu.Lock()
	s, ok := l.stmts[query]
	if !ok {
		var err error
		if s, err = l.db.PrepareContext(ctx, l.db.Rebind(query)); err != nil {
			l.mu.Unlock()
			return nil, err
		}
		if l.stmts == nil {
			l.stmts = map[string]*sql.Stmt{}
		}
		l.stmts[query] = s
	}
	l.mu.Unlock()
	return tx.StmtContext(ctx, s), nil
}

// chunks splits n rows into statement sizes: as many of max as fit, then
// powers of two, so that only a few distinct statements are ever prepared.
func chunks(n, max int) []int {
	var out []int
	for n >= max {
		out = append(out, max)
		n -= max
	}
	for p := 1 << 30; p > 0; p >>= 1 {
		if n >= p {
			out = append(out, p)
			n -= p
		}
	}
	return out
}

// execChunks runs prefix + k×values + suffix for each chunk of the rows,
// with width parameters per row taken from args in order.
func (l *Log) execChunks(ctx context.Context, tx *sql.Tx, prefix, values, suffix string, width, max int, args []any) error {
	n := len(args) / width
	at := 0
	for _, k := range chunks(n, max) {
		q := prefix + strings.Repeat(values+",", k-1) + values + suffix
		st, err := l.stmt(ctx, tx, q)
		if err != nil {
			return err
		}
		if _, err := st.ExecContext(ctx, args[at*width:(at+k)*width]...); err != nil {
			return err
		}
		at += k
	}
	return nil
}

func (l *Log) now() time.Time { return l.clock() }

// row is a failure prepared for insertion.
type row struct {
	ts                                                 int64
	code, token, verb, subject, raw, agent, model, ses string
	detail, cands                                      sql.NullString
	ctx                                                string
}

// prepare validates f and turns it into column values.
func (l *Log) prepare(i int, f *Failure, now time.Time) (row, error) {
	if f.Code == "" && f.Detail != nil {
		f.Code = f.Detail.Code()
	}
	if !f.Code.Valid() {
		return row{}, &InvalidError{i, fmt.Sprintf("code %q is not a failure code", f.Code)}
	}
	if f.Detail != nil && f.Detail.Code() != f.Code {
		return row{}, &InvalidError{i, fmt.Sprintf("detail is for %s, row is %s", f.Detail.Code(), f.Code)}
	}
	if strings.TrimSpace(f.Raw) == "" {
		return row{}, &InvalidError{i, "raw input is empty"}
	}
	ts := f.Time
	if ts.IsZero() {
		ts = now
	}
	r := row{
		ts:      ts.UnixMilli(),
		code:    string(f.Code),
		token:   clean(f.Token, 256),
		verb:    clean(f.Verb, 256),
		subject: clean(f.Subject(), 256),
		raw:     clean(f.Raw, MaxRaw),
		agent:   clean(f.Agent, 256),
		model:   clean(f.Model, 256),
		ses:     clean(f.Session, 256),
		ctx:     clean(f.Context, MaxContext),
	}
	if f.Detail != nil {
		b, err := json.Marshal(f.Detail)
		if err != nil {
			return row{}, &InvalidError{i, "detail: " + err.Error()}
		}
		r.detail = sql.NullString{String: string(b), Valid: true}
	}
	if len(f.Candidates) > 0 {
		b, err := json.Marshal(f.Candidates)
		if err != nil {
			return row{}, &InvalidError{i, "candidates: " + err.Error()}
		}
		r.cands = sql.NullString{String: string(b), Valid: true}
	}
	return r, nil
}

// clean replaces invalid UTF-8 and NUL (which PostgreSQL refuses in text)
// with U+FFFD and cuts s to at most n bytes, marking a cut with "…".
func clean(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	if len(s) <= n {
		return s
	}
	return clip(s, n-len("…")) + "…"
}

// Record logs one failure and returns its id. A zero Time means now; a
// missing Code is taken from Detail.
func (l *Log) Record(ctx context.Context, f Failure) (int64, error) {
	ids, err := l.insert(ctx, []Failure{f})
	if err != nil {
		return 0, fmt.Errorf("failures: record: %w", err)
	}
	return ids, nil
}

// RecordBatch logs many failures in one transaction: all or none. It is
// the fast path for a runtime that buffers failures, and for imports.
func (l *Log) RecordBatch(ctx context.Context, fs []Failure) error {
	if len(fs) == 0 {
		return nil
	}
	if _, err := l.insert(ctx, fs); err != nil {
		return fmt.Errorf("failures: record batch of %d: %w", len(fs), err)
	}
	return nil
}

// batchRows is how many rows one INSERT statement carries (13 parameters
// each, well under SQLite's limit of 32766 and PostgreSQL's of 65535).
const batchRows = 200

const insertPrefix = `INSERT INTO failures (id, ts, code, token, verb, subject, raw, agent, model, session, details, candidates, context) VALUES `
const insertValues = `(?,?,?,?,?,?,?,?,?,?,?,?,?)`

func (r *row) args(id int64) []any {
	return []any{id, r.ts, r.code, r.token, r.verb, r.subject, r.raw, r.agent, r.model, r.ses, r.detail, r.cands, r.ctx}
}

// insert validates fs, then writes the rows and their roll-up in one
// transaction and returns the id of the last row. Ids are given
// explicitly, after the largest id in the table, so that the roll-up can
// point at its rows: the write transaction behaves as if it ran alone
// (SQLite's write lock; PostgreSQL's SERIALIZABLE level, which aborts and
// retries one of two writers that read the same largest id).
func (l *Log) insert(ctx context.Context, fs []Failure) (int64, error) {
	now := l.now()
	rows := make([]row, len(fs))
	for i := range fs {
		f := fs[i] // prepare may fill Code; do not write to the caller's slice
		r, err := l.prepare(i, &f, now)
		if err != nil {
			return 0, err
		}
		rows[i] = r
	}
	var last int64
	err := l.db.Write(ctx, func(tx *sql.Tx) error {
		var base int64
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM failures`).Scan(&base); err != nil {
			return err
		}
		daily := map[dailyKey]*dailyVal{}
		for i := range rows {
			id := base + int64(i) + 1
			k := rows[i].key()
			if v := daily[k]; v == nil {
				daily[k] = &dailyVal{n: 1, first: id, last: id}
			} else {
				v.n++
				v.last = id
			}
		}
		args := make([]any, 0, 13*len(rows))
		for i := range rows {
			args = append(args, rows[i].args(base+int64(i)+1)...)
		}
		if err := l.execChunks(ctx, tx, insertPrefix, insertValues, "", 13, batchRows, args); err != nil {
			return err
		}
		last = base + int64(len(rows))
		return l.bumpDaily(ctx, tx, daily)
	})
	return last, err
}

// dailyKey is one cell of the daily roll-up.
type dailyKey struct {
	day                        int64
	model, code, verb, subject string
}

// dailyVal is what the roll-up keeps for a cell: the count, and the first
// and last row ids, which serve as example usages.
type dailyVal struct{ n, first, last int64 }

const dayMillis = int64(24 * time.Hour / time.Millisecond)

func (r *row) key() dailyKey {
	return dailyKey{floorDiv(r.ts, dayMillis), r.model, r.code, r.verb, r.subject}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// dailyRows is how many cells one roll-up upsert carries.
const dailyRows = 200

const upsertPrefix = `INSERT INTO failure_daily (day, model, code, verb, subject, n, first_id, last_id) VALUES `
const upsertValues = `(?,?,?,?,?,?,?,?)`
const upsertSuffix = ` ON CONFLICT (day, model, code, verb, subject) DO UPDATE SET n = failure_daily.n + excluded.n,
	first_id = CASE WHEN excluded.first_id < failure_daily.first_id THEN excluded.first_id ELSE failure_daily.first_id END,
	last_id = CASE WHEN excluded.last_id > failure_daily.last_id THEN excluded.last_id ELSE failure_daily.last_id END`

// bumpDaily adds counts to the daily roll-up, in the same transaction as
// the rows they count, so the two never disagree.
func (l *Log) bumpDaily(ctx context.Context, tx *sql.Tx, daily map[dailyKey]*dailyVal) error {
	args := make([]any, 0, 8*len(daily))
	for key, v := range daily {
		args = append(args, key.day, key.model, key.code, key.verb, key.subject, v.n, v.first, v.last)
	}
	return l.execChunks(ctx, tx, upsertPrefix, upsertValues, upsertSuffix, 8, dailyRows, args)
}

// RecordSuccess counts n actions of model that ran, for failure rates: one
// upsert into a per-model, per-day counter, not a row per action.
func (l *Log) RecordSuccess(ctx context.Context, model string, n int) error {
	return l.RecordSuccessAt(ctx, model, l.now(), n)
}

// RecordSuccessAt is RecordSuccess for actions that ran at time at (for
// imports and generated loads).
func (l *Log) RecordSuccessAt(ctx context.Context, model string, at time.Time, n int) error {
	if n <= 0 {
		return nil
	}
	day := floorDiv(at.UnixMilli(), dayMillis)
	model = clean(model, 256)
	err := l.db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, l.db.Rebind(`INSERT INTO action_counts (day, model, ok) VALUES (?,?,?)
			ON CONFLICT (day, model) DO UPDATE SET ok = action_counts.ok + excluded.ok`), day, model, n)
		return err
	})
	if err != nil {
		return fmt.Errorf("failures: record success: %w", err)
	}
	return nil
}

// UnmarshalJSON reads a failure as written by encoding/json, decoding the
// detail into the type that belongs to its code.
func (f *Failure) UnmarshalJSON(b []byte) error {
	type plain Failure
	aux := struct {
		*plain
		Detail json.RawMessage `json:"detail,omitempty"`
	}{plain: (*plain)(f)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	d, err := decodeDetail(f.Code, aux.Detail)
	if err != nil {
		return err
	}
	f.Detail = d
	return nil
}
