package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
)

const blockCols = `id, kind, name, content, version, created_at, updated_at, tags, project`

func scanBlock(row interface{ Scan(...any) error }) (Block, error) {
	var b Block
	var created, updated int64
	var tags string
	err := row.Scan(&b.ID, &b.Kind, &b.Name, &b.Content, &b.Version, &created, &updated, &tags, &b.Project)
	b.Created, b.Updated, b.Tags = time.UnixMilli(created), time.UnixMilli(updated), splitTags(tags)
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
	return s.strings(ctx, `SELECT name FROM blocks WHERE kind = ? ORDER BY name`, kind)
}

// HistoryNames lists the names of kind with a history, sorted.
func (s *sqlStore) HistoryNames(ctx context.Context, kind Kind) ([]string, error) {
	return s.strings(ctx, `SELECT DISTINCT name FROM block_versions WHERE kind = ? ORDER BY name`, kind)
}

func (s *sqlStore) strings(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := s.query(ctx, query, args...)
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

// Update implements Store.
func (s *sqlStore) Update(ctx context.Context, kind Kind, name, op string, edit Edit) (Block, error) {
	if name == "" {
		return Block{}, checkName(name)
	}
	return s.Apply(ctx, Change{Kind: kind, Name: name, Op: op, Edit: edit})
}

// Insert implements Store.
func (s *sqlStore) Insert(ctx context.Context, kind Kind, content string) (Block, error) {
	return s.Apply(ctx, Change{Kind: kind, Op: "create", Edit: func(string, bool) (string, error) { return content, nil }})
}

// Delete implements Store.
func (s *sqlStore) Delete(ctx context.Context, kind Kind, name string) error {
	if name == "" {
		return checkName(name)
	}
	_, err := s.Apply(ctx, Change{Kind: kind, Name: name, Op: "delete", Remove: true})
	return err
}

// Apply makes one change to a block in one transaction.
func (s *sqlStore) Apply(ctx context.Context, c Change) (Block, error) {
	if err := checkChange(c); err != nil {
		return Block{}, err
	}
	var out Block
	err := s.write(ctx, func(tx txn) error {
		now := s.now().UnixMilli()
		name := c.Name
		if name == "" {
			var err error
			if name, err = freeName(ctx, tx, c.Kind); err != nil {
				return err
			}
		}
		cur, err := scanBlock(tx.queryRow(ctx, `SELECT `+blockCols+` FROM blocks WHERE kind = ? AND name = ?`, c.Kind, name))
		exists := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if c.Remove {
			if !exists {
				return fmt.Errorf("%s block %q: %w", c.Kind, name, ErrNotFound)
			}
			if err := addVersion(ctx, tx, cur, "delete", c.Agent, now); err != nil {
				return err
			}
			_, err = tx.exec(ctx, `DELETE FROM blocks WHERE id = ?`, cur.ID)
			cur.Version++
			out = cur
			return err
		}
		content, err := c.Edit(cur.Content, exists)
		if err != nil {
			return err
		}
		tags, project := labels(cur, c)
		if exists {
			_, err = tx.exec(ctx, `UPDATE blocks SET content = ?, version = version + 1, updated_at = ?, tags = ?, project = ? WHERE id = ?`,
				content, now, joinTags(tags), project, cur.ID)
			cur.Version++
		} else {
			// A name written again after a deletion goes on from its last
			// version, so that a name and a number mean one state.
			var last int
			if err := tx.queryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM block_versions WHERE kind = ? AND name = ?`, c.Kind, name).Scan(&last); err != nil {
				return err
			}
			cur = Block{Kind: c.Kind, Name: name, Version: last + 1, Created: time.UnixMilli(now)}
			err = tx.queryRow(ctx, `INSERT INTO blocks (kind, name, content, version, created_at, updated_at, tags, project) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
				c.Kind, name, content, cur.Version, now, now, joinTags(tags), project).Scan(&cur.ID)
		}
		if err != nil {
			return err
		}
		cur.Content, cur.Updated, cur.Tags, cur.Project = content, time.UnixMilli(now), tags, project
		out = cur
		return addVersion(ctx, tx, cur, c.Op, c.Agent, now)
	})
	return out, err
}

// checkChange refuses changes that could not be recorded.
func checkChange(c Change) error {
	if c.Kind != Archival && c.Kind != Working {
		return fmt.Errorf("store: %q is not a kind of memory (archival, working)", c.Kind)
	}
	if c.Name != "" {
		if err := checkName(c.Name); err != nil {
			return err
		}
	}
	switch {
	case c.Remove && c.Name == "":
		return errors.New("store: a deletion needs a block name")
	case !c.Remove && c.Edit == nil:
		return errors.New("store: a change needs an edit")
	case strings.TrimSpace(c.Op) == "":
		return errors.New("store: a change needs an op for the history")
	}
	return nil
}

// labels are the block's tags and project after change c.
func labels(cur Block, c Change) ([]string, string) {
	if c.ExactLabels {
		return NormTags(c.Tags), NormProject(c.Project)
	}
	tags := NormTags(append(slices.Clone(cur.Tags), c.Tags...))
	project := cur.Project
	if p := NormProject(c.Project); p != "" {
		project = p
	}
	return tags, project
}

// addVersion records b as it is after op.
func addVersion(ctx context.Context, tx txn, b Block, op, agent string, at int64) error {
	v := b.Version
	if op == "delete" {
		v++
	}
	_, err := tx.exec(ctx, `INSERT INTO block_versions (block_id, kind, name, version, op, content, at, agent, tags, project) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		b.ID, b.Kind, b.Name, v, op, b.Content, at, agent, joinTags(b.Tags), b.Project)
	return err
}

// freeName returns memory-N for the next N that no block of kind, and no
// history, has used.
func freeName(ctx context.Context, tx txn, kind Kind) (string, error) {
	var n int64
	if err := tx.queryRow(ctx, `SELECT COALESCE(MAX(id), 0) + 1 FROM blocks`).Scan(&n); err != nil {
		return "", err
	}
	for ; ; n++ {
		name := fmt.Sprintf("memory-%d", n)
		var taken bool
		if err := tx.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM blocks WHERE kind = ? AND name = ?) OR EXISTS (SELECT 1 FROM block_versions WHERE kind = ? AND name = ?)`,
			kind, name, kind, name).Scan(&taken); err != nil {
			return "", err
		}
		if !taken {
			return name, nil
		}
	}
}

const versionCols = `version, op, content, at, agent, tags, project`

func scanVersion(row interface{ Scan(...any) error }) (Version, error) {
	var v Version
	var at int64
	var tags string
	err := row.Scan(&v.Version, &v.Op, &v.Content, &at, &v.Agent, &tags, &v.Project)
	v.At, v.Tags = time.UnixMilli(at), splitTags(tags)
	return v, err
}

// History returns every recorded version of kind/name, oldest first,
// including those of a deleted block of that name.
func (s *sqlStore) History(ctx context.Context, kind Kind, name string) ([]Version, error) {
	rows, err := s.query(ctx, `SELECT `+versionCols+` FROM block_versions WHERE kind = ? AND name = ? ORDER BY version`, kind, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Version
	for rows.Next() {
		v, err := scanVersion(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Version returns version n of kind/name.
func (s *sqlStore) Version(ctx context.Context, kind Kind, name string, n int) (Version, error) {
	v, err := scanVersion(s.queryRow(ctx, `SELECT `+versionCols+` FROM block_versions WHERE kind = ? AND name = ? AND version = ?`, kind, name, n))
	if errors.Is(err, sql.ErrNoRows) {
		return Version{}, fmt.Errorf("%s block %q has no version %d: %w", kind, name, n, ErrNotFound)
	}
	return v, err
}

// Import writes whole histories in one transaction.
func (s *sqlStore) Import(ctx context.Context, recs []Record) error {
	for i, r := range recs {
		if err := CheckRecord(r); err != nil {
			return fmt.Errorf("record %d: %w", i+1, err)
		}
	}
	return s.write(ctx, func(tx txn) error {
		for _, r := range recs {
			var taken bool
			if err := tx.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM blocks WHERE kind = ? AND name = ?) OR EXISTS (SELECT 1 FROM block_versions WHERE kind = ? AND name = ?)`,
				r.Kind, r.Name, r.Kind, r.Name).Scan(&taken); err != nil {
				return err
			}
			if taken {
				return fmt.Errorf("%s block %q: %w", r.Kind, r.Name, ErrExists)
			}
			b, live := r.Current()
			var id int64
			if live {
				if err := tx.queryRow(ctx, `INSERT INTO blocks (kind, name, content, version, created_at, updated_at, tags, project) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
					b.Kind, b.Name, b.Content, b.Version, b.Created.UnixMilli(), b.Updated.UnixMilli(), joinTags(b.Tags), b.Project).Scan(&id); err != nil {
					return err
				}
			}
			for _, v := range r.Versions {
				if _, err := tx.exec(ctx, `INSERT INTO block_versions (block_id, kind, name, version, op, content, at, agent, tags, project) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
					id, r.Kind, r.Name, v.Version, v.Op, v.Content, v.At.UnixMilli(), v.Agent, joinTags(NormTags(v.Tags)), NormProject(v.Project)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// Search finds kind's blocks ("" for both kinds) matching any of the query's
// words, best first, with a snippet; with an empty query, the blocks the
// options admit, most recently changed first.
func (s *sqlStore) Search(ctx context.Context, kind Kind, query string, o SearchOptions) ([]Hit, error) {
	words := searchWords(query)
	if len(words) == 0 && strings.TrimSpace(query) != "" {
		return nil, nil // only punctuation: nothing can match
	}
	where := ` AND (? = '' OR b.kind = ?) AND b.updated_at >= ? AND b.updated_at < ?`
	args := []any{kind, kind, millis(o.Since), upper(o.Before)}
	for _, t := range NormTags(o.Tags) {
		where += ` AND ` + s.flavor.strpos + `(b.tags, ?) > 0`
		args = append(args, " "+t+" ")
	}
	if p := NormProject(o.Project); p != "" {
		where += ` AND b.project = ?`
		args = append(args, p)
	}
	var sqlText string
	if len(words) == 0 {
		sqlText = `SELECT b.id, b.kind, b.name, b.content, b.version, b.created_at, b.updated_at, b.tags, b.project, '', 0
			FROM blocks b WHERE 1 = 1` + where + ` ORDER BY b.updated_at DESC, b.id DESC LIMIT ?`
		args = append(args, limit(o.Limit))
	} else {
		sqlText, args = s.flavor.searchBlocks(words, where, args, limit(o.Limit))
	}
	rows, err := s.query(ctx, sqlText, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Hit
	for rows.Next() {
		var h Hit
		var created, updated int64
		var tags string
		if err := rows.Scan(&h.ID, &h.Kind, &h.Name, &h.Content, &h.Version, &created, &updated, &tags, &h.Project, &h.Snippet, &h.Score); err != nil {
			return nil, err
		}
		h.Created, h.Updated, h.Tags = time.UnixMilli(created), time.UnixMilli(updated), splitTags(tags)
		if len(words) == 0 {
			h.Snippet = Excerpt(h.Content, 100)
		}
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
