package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// table is one table that Copy moves, with all of its columns.
type table struct {
	name      string
	cols      []string
	key       []string // the primary key
	identity  bool     // id is generated: PostgreSQL's sequence follows a copy
	immutable bool     // rows never change once written: a row already there is kept
}

// copyTables is every table of the store and of its failure log, parents
// first. A table added to the schema is added here; TestCopyCoversSchema
// fails until it is.
var copyTables = []table{
	{name: "blocks", cols: []string{"id", "kind", "name", "content", "version", "created_at", "updated_at", "tags", "project"}, key: []string{"id"}, identity: true},
	{name: "block_versions", cols: []string{"block_id", "kind", "name", "version", "op", "content", "at", "agent", "tags", "project"}, key: []string{"kind", "name", "version"}},
	{name: "messages", cols: []string{"id", "session", "role", "agent", "model", "content", "at", "tags", "project"}, key: []string{"id"}, identity: true, immutable: true},
	{name: "outputs", cols: []string{"id", "session", "verb", "status", "output", "at"}, key: []string{"id"}, identity: true},
	{name: "pending", cols: strings.Split(strings.ReplaceAll(pendingCols, " ", ""), ","), key: []string{"id"}, identity: true},
	{name: "rules", cols: []string{"id", "agent", "verb", "op", "target", "args", "decision", "note", "created_at", "created_by"}, key: []string{"id"}, identity: true},
	{name: "session_state", cols: []string{"session", "key", "value", "at"}, key: []string{"session", "key"}},
	{name: "failures", cols: []string{"id", "ts", "code", "token", "verb", "subject", "raw", "agent", "model", "session", "details", "candidates", "context"}, key: []string{"id"}},
	{name: "failure_daily", cols: []string{"day", "model", "code", "verb", "subject", "n", "first_id", "last_id"}, key: []string{"day", "model", "code", "verb", "subject"}},
	{name: "action_counts", cols: []string{"day", "model", "ok"}, key: []string{"day", "model"}},
}

// TableCount is one table's rows in the source and, after the copy, in
// the destination.
type TableCount struct {
	Table string `json:"table"`
	From  int64  `json:"from"`
	To    int64  `json:"to"`
}

// ErrCopyMismatch is returned (wrapped) by Copy when the destination would
// not hold exactly the source's rows; nothing is written then.
var ErrCopyMismatch = errors.New("row counts differ after the copy")

// copyBatch is how many rows one INSERT statement carries (at most 15
// columns each: well under either database's parameter limit).
const copyBatch = 100

// Copy moves all the state of src into dst — memory blocks and their
// history, messages, outputs, session state, the approval queue and its
// rules, the failure log and its counters — keeping every row's id. It
// runs in one write transaction of dst, reading src in one read-only
// transaction (a snapshot), and is idempotent: a row whose key dst already
// has is replaced by the source's. Before committing it counts each
// table in dst; unless every count equals the source's (dst held other
// rows), it writes nothing and returns an error wrapping ErrCopyMismatch.
// Both stores must come from Open.
func Copy(ctx context.Context, dst, src Store) ([]TableCount, error) {
	d, ok1 := dst.(*sqlStore)
	s, ok2 := src.(*sqlStore)
	if !ok1 || !ok2 {
		return nil, errors.New("store: Copy needs two stores opened by store.Open")
	}
	if d.location == s.location {
		return nil, fmt.Errorf("store: copy from %s to itself", s.location)
	}
	var counts []TableCount
	err := d.write(ctx, func(tx txn) error {
		counts = counts[:0]
		rtx, err := s.db.BeginTx(ctx, s.flavor.snapshot)
		if err != nil {
			return fmt.Errorf("read %s: %w", s.location, err)
		}
		defer rtx.Rollback()
		for _, t := range copyTables {
			n, err := copyTable(ctx, tx, txn{rtx, s.db.Rebind}, t)
			if err != nil {
				return fmt.Errorf("copy %s: %w", t.name, err)
			}
			var have int64
			if err := tx.queryRow(ctx, `SELECT count(*) FROM `+t.name).Scan(&have); err != nil {
				return err
			}
			counts = append(counts, TableCount{Table: t.name, From: n, To: have})
		}
		var bad []string
		for _, c := range counts {
			if c.From != c.To {
				bad = append(bad, fmt.Sprintf("%s: %d rows copied, %d there", c.Table, c.From, c.To))
			}
		}
		if len(bad) > 0 {
			return fmt.Errorf("%w (%s): %s holds rows %s does not; copy into an empty store or one copied from it",
				ErrCopyMismatch, strings.Join(bad, "; "), d.location, s.location)
		}
		return d.flavor.afterCopy(ctx, tx, copyTables)
	})
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return counts, nil
}

// copyTable upserts every row of t from src into dst and returns how many
// rows it read.
func copyTable(ctx context.Context, dst, src txn, t table) (int64, error) {
	cols := strings.Join(t.cols, ", ")
	rows, err := src.query(ctx, `SELECT `+cols+` FROM `+t.name+` ORDER BY `+strings.Join(t.key, ", "))
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int64
	batch := make([]any, 0, copyBatch*len(t.cols))
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		_, err := dst.exec(ctx, upsertSQL(t, len(batch)/len(t.cols)), batch...)
		batch = batch[:0]
		return err
	}
	for rows.Next() {
		vals := make([]any, len(t.cols))
		ptrs := make([]any, len(t.cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = string(b)
			}
		}
		batch = append(batch, vals...)
		n++
		if len(batch) == cap(batch) {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	return n, flush()
}

// upsertSQL inserts k rows into t, replacing (or, for an immutable table,
// keeping) a row with the same key.
func upsertSQL(t table, k int) string {
	var b strings.Builder
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(t.cols)), ", ") + ")"
	b.WriteString(`INSERT INTO ` + t.name + ` (` + strings.Join(t.cols, ", ") + `) VALUES `)
	for i := range k {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(one)
	}
	b.WriteString(` ON CONFLICT (` + strings.Join(t.key, ", ") + `) DO `)
	if t.immutable {
		b.WriteString("NOTHING")
		return b.String()
	}
	b.WriteString("UPDATE SET ")
	first := true
	for _, c := range t.cols {
		if isKey(t, c) {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(c + " = excluded." + c)
	}
	return b.String()
}

func isKey(t table, col string) bool {
	for _, k := range t.key {
		if k == col {
			return true
		}
	}
	return false
}
