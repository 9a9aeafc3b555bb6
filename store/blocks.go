package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
)

const blockCols = `id, kind, name, content, version, created_at, updated_at`

func scanBlock(row interface{ Scan(...any) error }) (Block, error) {
	var b Block
	var created, updated int64
	err := row.Scan(&b.ID, &b.Kind, &b.Name, &b.Content, &b.Version, &created, &updated)
	b.Created, b.Updated = time.UnixMilli(created), time.UnixMilli(updated)
	return b, err
}

// Get returns the block kind/name.
func (s *sqlStore) Get(ctx context.Context, kind Kind, name string) (Block, error) {
	b, err := scanBlock(s.queryRow(ctx, `SELECT `+blockCols+` FROM blocks WHERE kind = ? AND name = ?`, kind, name))
	if errors.Is(err, sql.ErrNoRows) {
		return Block{}, fmt.Errorf("%s block %q: %w", kind, name, ErrNotFound)
	}
	return b, err
}

// Names lists the names of kind's blocks, sorted.
func (s *sqlStore) Names(ctx context.Context, kind Kind) ([]string, error) {
	rows, err := s.query(ctx, `SELECT name FROM blocks WHERE kind = ? ORDER BY name`, kind)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// Blocks returns every block of kind, by name.
func (s *sqlStore) Blocks(ctx context.Context, kind Kind) ([]Block, error) {
	rows, err := s.query(ctx, `SELECT `+blockCols+` FROM blocks WHERE kind = ? ORDER BY name`, kind)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Block
	for rows.Next() {
		b, err := scanBlock(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// Update changes kind/name in one transaction: it reads the block, calls
// edit, and writes the result as a new version recorded with op. A block
// that does not exist is created when edit accepts that. Nothing is written
// if edit fails.
func (s *sqlStore) Update(ctx context.Context, kind Kind, name, op string, edit Edit) (Block, error) {
	if err := checkName(name); err != nil {
		return Block{}, err
	}
	var out Block
	err := s.write(ctx, func(tx txn) error {
		now := s.now().UnixMilli()
		cur, err := scanBlock(tx.queryRow(ctx, `SELECT `+blockCols+` FROM blocks WHERE kind = ? AND name = ?`, kind, name))
		exists := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		content, err := edit(cur.Content, exists)
		if err != nil {
			return err
		}
		if exists {
			_, err = tx.exec(ctx, `UPDATE blocks SET content = ?, version = version + 1, updated_at = ? WHERE id = ?`, content, now, cur.ID)
		} else {
			cur = Block{Kind: kind, Name: name, Created: time.UnixMilli(now)}
			// A new block's id is past every id that history holds: a
			// deleted block's versions keep its id, which SQLite would
			// otherwise give again.
			if err = tx.queryRow(ctx, `SELECT COALESCE(MAX(id), 0) + 1 FROM
				(SELECT MAX(id) AS id FROM blocks UNION ALL SELECT MAX(block_id) FROM block_versions) ids`).Scan(&cur.ID); err != nil {
				return err
			}
			_, err = tx.exec(ctx, `INSERT INTO blocks (id, kind, name, content, version, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?)`,
				cur.ID, kind, name, content, now, now)
		}
		if err != nil {
			return err
		}
		cur.Version++
		cur.Content, cur.Updated = content, time.UnixMilli(now)
		_, err = tx.exec(ctx, `INSERT INTO block_versions (block_id, kind, name, version, op, content, at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			cur.ID, kind, name, cur.Version, op, content, now)
		out = cur
		return err
	})
	return out, err
}

// Insert stores content as a new archival entry named memory-N (the next
// free N) and returns it.
func (s *sqlStore) Insert(ctx context.Context, kind Kind, content string) (Block, error) {
	for {
		var n int64
		if err := s.queryRow(ctx, `SELECT COALESCE(MAX(id), 0) + 1 FROM blocks`).Scan(&n); err != nil {
			return Block{}, err
		}
		name := fmt.Sprintf("memory-%d", n)
		b, err := s.Update(ctx, kind, name, "create", func(_ string, exists bool) (string, error) {
			if exists {
				return "", errNameTaken
			}
			return content, nil
		})
		if !errors.Is(err, errNameTaken) {
			return b, err
		}
	}
}

var errNameTaken = errors.New("name taken")

// Delete removes kind/name, recording its last content as a "delete"
// version so that history keeps it.
func (s *sqlStore) Delete(ctx context.Context, kind Kind, name string) error {
	return s.write(ctx, func(tx txn) error {
		cur, err := scanBlock(tx.queryRow(ctx, `SELECT `+blockCols+` FROM blocks WHERE kind = ? AND name = ?`, kind, name))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%s block %q: %w", kind, name, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `INSERT INTO block_versions (block_id, kind, name, version, op, content, at) VALUES (?, ?, ?, ?, 'delete', ?, ?)`,
			cur.ID, kind, name, cur.Version+1, cur.Content, s.now().UnixMilli()); err != nil {
			return err
		}
		_, err = tx.exec(ctx, `DELETE FROM blocks WHERE id = ?`, cur.ID)
		return err
	})
}

// History returns every recorded version of kind/name, oldest first,
// including those of a deleted block of that name.
func (s *sqlStore) History(ctx context.Context, kind Kind, name string) ([]Version, error) {
	rows, err := s.query(ctx, `SELECT version, op, content, at FROM block_versions WHERE kind = ? AND name = ? ORDER BY at, block_id, version`, kind, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Version
	for rows.Next() {
		var v Version
		var at int64
		if err := rows.Scan(&v.Version, &v.Op, &v.Content, &at); err != nil {
			return nil, err
		}
		v.At = time.UnixMilli(at)
		out = append(out, v)
	}
	return out, rows.Err()
}

// Search finds kind's blocks ("" for both kinds) matching any of the query's
// words, best first, with a snippet.
func (s *sqlStore) Search(ctx context.Context, kind Kind, query string, o SearchOptions) ([]Hit, error) {
	words := searchWords(query)
	if len(words) == 0 {
		return nil, nil
	}
	q, args := s.flavor.searchBlocks(words, kind, millis(o.Since), upper(o.Before), limit(o.Limit))
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Hit
	for rows.Next() {
		var h Hit
		var created, updated int64
		if err := rows.Scan(&h.ID, &h.Kind, &h.Name, &h.Content, &h.Version, &created, &updated, &h.Snippet, &h.Score); err != nil {
			return nil, err
		}
		h.Created, h.Updated = time.UnixMilli(created), time.UnixMilli(updated)
		out = append(out, h)
	}
	return out, rows.Err()
}

// searchWords splits free text into the words a search matches any of:
// runs of letters and digits, so that no operator of a full-text query
// language in the text is obeyed.
func searchWords(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// upper is the exclusive upper bound of a time range: t, or no bound.
func upper(t time.Time) int64 {
	if t.IsZero() {
		return math.MaxInt64
	}
	return t.UnixMilli()
}

func millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func limit(n int) int {
	if n <= 0 {
		return 10
	}
	return min(n, 1000)
}

// checkName refuses names that could not be written back as a block name.
func checkName(name string) error {
	if name == "" || len(name) > 200 || strings.ContainsAny(name, "\n\r\x00") {
		return fmt.Errorf("block name %q: must be 1–200 characters on one line", name)
	}
	return nil
}
