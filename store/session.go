package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Message is one logged conversation message. Tags and Project are its
// labels, for the filters #tag and *project.
type Message struct {
	ID      int64
	Session string
	Role    string // "user", "assistant", "system", "tool"
	Agent   string
	Model   string
	Content string
	At      time.Time
	Tags    []string
	Project string
}

// LogMessage records a message so that /search in conversations finds it.
func (s *sqlStore) LogMessage(ctx context.Context, m Message) (int64, error) {
	if m.At.IsZero() {
		m.At = s.now()
	}
	var id int64
	err := s.write(ctx, func(tx txn) error {
		return tx.queryRow(ctx, `INSERT INTO messages (session, role, agent, model, content, at, tags, project) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			m.Session, m.Role, m.Agent, m.Model, m.Content, m.At.UnixMilli(), joinTags(NormTags(m.Tags)), NormProject(m.Project)).Scan(&id)
	})
	return id, err
}

// MessageHit is one message found by SearchMessages.
type MessageHit struct {
	Message
	Snippet string
	Score   float64
}

// MessageQuery narrows a message search. Zero values mean no bound.
type MessageQuery struct {
	Role    string
	Session string
	Since   time.Time
	Before  time.Time
	Limit   int
	Tags    []string // carries every one of these tags
	Project string   // belongs to this project
}

// SearchMessages finds logged messages matching any of query's words, best
// first; with an empty query, the messages q admits, newest first. It
// finds every message logged before it, by any process: on SQLite the
// full-text index first catches up with the messages not in it yet.
func (s *sqlStore) SearchMessages(ctx context.Context, query string, q MessageQuery) ([]MessageHit, error) {
	words := searchWords(query)
	if len(words) == 0 && strings.TrimSpace(query) != "" {
		return nil, nil
	}
	where := ` AND (? = '' OR m.role = ?) AND (? = '' OR m.session = ?) AND m.at >= ? AND m.at < ?`
	args := []any{q.Role, q.Role, q.Session, q.Session, millis(q.Since), upper(q.Before)}
	for _, t := range NormTags(q.Tags) {
		where += ` AND ` + s.flavor.strpos + `(m.tags, ?) > 0`
		args = append(args, " "+t+" ")
	}
	if p := NormProject(q.Project); p != "" {
		where += ` AND m.project = ?`
		args = append(args, p)
	}
	var sqlText string
	if len(words) == 0 {
		sqlText = `SELECT m.id, m.session, m.role, m.agent, m.model, m.content, m.at, m.tags, m.project, '', 0
			FROM messages m WHERE 1 = 1` + where + ` ORDER BY m.id DESC LIMIT ?`
		args = append(args, limit(q.Limit))
	} else {
		// The index first takes in every message logged so far.
		if err := s.catchUpMessages(ctx); err != nil {
			return nil, fmt.Errorf("store: indexing the conversation log: %w", err)
		}
		sqlText, args = s.flavor.searchMessages(words, where, args, limit(q.Limit))
	}
	rows, err := s.query(ctx, sqlText, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []MessageHit
	for rows.Next() {
		var h MessageHit
		var at int64
		var tags string
		if err := rows.Scan(&h.ID, &h.Session, &h.Role, &h.Agent, &h.Model, &h.Content, &at, &tags, &h.Project, &h.Snippet, &h.Score); err != nil {
			return nil, err
		}
		h.At, h.Tags = time.UnixMilli(at), splitTags(tags)
		if len(words) == 0 {
			h.Snippet = Excerpt(h.Content, 100)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// LastMessage returns the session's latest message with role ("" any).
func (s *sqlStore) LastMessage(ctx context.Context, session, role string) (Message, error) {
	var m Message
	var at int64
	var tags string
	err := s.queryRow(ctx, `SELECT id, session, role, agent, model, content, at, tags, project FROM messages
		WHERE session = ? AND (? = '' OR role = ?) ORDER BY id DESC LIMIT 1`, session, role, role).
		Scan(&m.ID, &m.Session, &m.Role, &m.Agent, &m.Model, &m.Content, &at, &tags, &m.Project)
	if errors.Is(err, sql.ErrNoRows) {
		return m, fmt.Errorf("no message in session %q: %w", session, ErrNotFound)
	}
	m.At, m.Tags = time.UnixMilli(at), splitTags(tags)
	return m, err
}

// Output is the recorded result of one action, for @last and @last.output.
type Output struct {
	ID      int64
	Session string
	Verb    string
	Status  string
	Output  string
	At      time.Time
}

// RecordOutput remembers an action's result in its session.
func (s *sqlStore) RecordOutput(ctx context.Context, o Output) error {
	if o.At.IsZero() {
		o.At = s.now()
	}
	return s.write(ctx, func(tx txn) error {
		_, err := tx.exec(ctx, `INSERT INTO outputs (session, verb, status, output, at) VALUES (?, ?, ?, ?, ?)`,
			o.Session, o.Verb, o.Status, o.Output, o.At.UnixMilli())
		return err
	})
}

// LastOutput returns the session's latest recorded action result.
func (s *sqlStore) LastOutput(ctx context.Context, session string) (Output, error) {
	var o Output
	var at int64
	err := s.queryRow(ctx, `SELECT id, session, verb, status, output, at FROM outputs WHERE session = ? ORDER BY id DESC LIMIT 1`, session).
		Scan(&o.ID, &o.Session, &o.Verb, &o.Status, &o.Output, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return o, fmt.Errorf("no earlier action in session %q: %w", session, ErrNotFound)
	}
	o.At = time.UnixMilli(at)
	return o, err
}

// SetState keeps value under key for session; an empty value removes it.
func (s *sqlStore) SetState(ctx context.Context, session, key, value string) error {
	return s.write(ctx, func(tx txn) error {
		if value == "" {
			_, err := tx.exec(ctx, `DELETE FROM session_state WHERE session = ? AND key = ?`, session, key)
			return err
		}
		_, err := tx.exec(ctx, `INSERT INTO session_state (session, key, value, at) VALUES (?, ?, ?, ?)
			ON CONFLICT (session, key) DO UPDATE SET value = excluded.value, at = excluded.at`, session, key, value, s.now().UnixMilli())
		return err
	})
}

// State returns the value kept under key for session, or "".
func (s *sqlStore) State(ctx context.Context, session, key string) (string, error) {
	var v string
	err := s.queryRow(ctx, `SELECT value FROM session_state WHERE session = ? AND key = ?`, session, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}
