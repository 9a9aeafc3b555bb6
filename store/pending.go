package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Status is where a pending action stands.
type Status string

// The statuses of a pending action. Only StatusPending may change, and only
// once: the transition is atomic, so two approvers cannot both run it.
const (
	StatusPending   Status = "pending"
	StatusApproved  Status = "approved"
	StatusDenied    Status = "denied"
	StatusCancelled Status = "cancelled"
	StatusEscalated Status = "escalated"
)

// Pending is an action waiting for approval.
type Pending struct {
	ID        int64
	Created   time.Time
	Agent     string
	Model     string
	Session   string
	Verb      string
	Target    string // the delivery target, when the verb has one
	Intent    string // the intent as JSON (intent.Marshal)
	Raw       string // the action as the model wrote it
	Why       string // why it needs approval
	Status    Status
	DecidedBy string
	DecidedAt time.Time
	Note      string // the reason given with a denial or escalation
	Result    string // the output once it ran
}

const pendingCols = `id, created_at, agent, model, session, verb, target, intent, raw, why, status, decided_by, decided_at, note, result`

func scanPending(row interface{ Scan(...any) error }) (Pending, error) {
	var p Pending
	var created, decided int64
	err := row.Scan(&p.ID, &created, &p.Agent, &p.Model, &p.Session, &p.Verb, &p.Target, &p.Intent, &p.Raw, &p.Why, &p.Status, &p.DecidedBy, &decided, &p.Note, &p.Result)
	p.Created = time.UnixMilli(created)
	if decided != 0 {
		p.DecidedAt = time.UnixMilli(decided)
	}
	return p, err
}

// Enqueue adds p to the queue and returns its id.
func (s *sqlStore) Enqueue(ctx context.Context, p Pending) (int64, error) {
	var id int64
	err := s.write(ctx, func(tx txn) error {
		return tx.queryRow(ctx, `INSERT INTO pending (created_at, agent, model, session, verb, target, intent, raw, why) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			s.now().UnixMilli(), p.Agent, p.Model, p.Session, p.Verb, p.Target, p.Intent, p.Raw, p.Why).Scan(&id)
	})
	return id, err
}

// PendingList returns the actions with status (StatusPending for the queue;
// "" for all), oldest first.
func (s *sqlStore) PendingList(ctx context.Context, status Status) ([]Pending, error) {
	rows, err := s.query(ctx, `SELECT `+pendingCols+` FROM pending WHERE ? = '' OR status = ? ORDER BY id`, status, status)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Pending
	for rows.Next() {
		p, err := scanPending(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// GetPending returns one queued action by id.
func (s *sqlStore) GetPending(ctx context.Context, id int64) (Pending, error) {
	p, err := scanPending(s.queryRow(ctx, `SELECT `+pendingCols+` FROM pending WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("pending action #%d: %w", id, ErrNotFound)
	}
	return p, err
}

// ErrDecided is returned (wrapped) by Decide for an action that is no
// longer pending.
var ErrDecided = errors.New("already decided")

// Decide moves a pending action to status, once: a second decision fails
// with ErrDecided and changes nothing. It returns the action as decided.
func (s *sqlStore) Decide(ctx context.Context, id int64, status Status, by, note string) (Pending, error) {
	var out Pending
	err := s.write(ctx, func(tx txn) error {
		p, err := scanPending(tx.queryRow(ctx, `SELECT `+pendingCols+` FROM pending WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("pending action #%d: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if p.Status != StatusPending {
			return fmt.Errorf("pending action #%d is %s: %w", id, p.Status, ErrDecided)
		}
		now := s.now()
		res, err := tx.exec(ctx, `UPDATE pending SET status = ?, decided_by = ?, decided_at = ?, note = ? WHERE id = ? AND status = 'pending'`,
			status, by, now.UnixMilli(), note, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return fmt.Errorf("pending action #%d was decided meanwhile: %w", id, errors.Join(ErrDecided, err))
		}
		p.Status, p.DecidedBy, p.DecidedAt, p.Note = status, by, now, note
		out = p
		return nil
	})
	return out, err
}

// SetResult records the output of an approved action once it ran.
func (s *sqlStore) SetResult(ctx context.Context, id int64, result string) error {
	return s.write(ctx, func(tx txn) error {
		_, err := tx.exec(ctx, `UPDATE pending SET result = ? WHERE id = ?`, result, id)
		return err
	})
}

// Decision is a standing rule's verdict.
type Decision string

// Standing rule verdicts.
const (
	Allow Decision = "allow"
	Deny  Decision = "deny"
)

const ruleCols = `id, agent, verb, op, target, args, decision, note, created_by, created_at`

func scanRule(row interface{ Scan(...any) error }) (Rule, error) {
	var r Rule
	var at int64
	err := row.Scan(&r.ID, &r.Agent, &r.Verb, &r.Op, &r.Target, &r.Args, &r.Decision, &r.Note, &r.By, &at)
	r.Created = time.UnixMilli(at)
	return r, err
}

// CheckRule reports what makes r impossible to save: a decision other than
// allow or deny, or a field that is empty where it must say "*".
func CheckRule(r Rule) error {
	switch {
	case r.Decision != Allow && r.Decision != Deny:
		return fmt.Errorf("store: a rule decides allow or deny, not %q", r.Decision)
	case r.Agent == "" || r.Verb == "" || r.Args == "":
		return errors.New(`store: a rule's agent, verb and args are "*" when they cover anything`)
	}
	return nil
}

// SaveRule records r, replacing a rule for exactly the same calls.
func (s *sqlStore) SaveRule(ctx context.Context, r Rule) (Rule, error) {
	if err := CheckRule(r); err != nil {
		return Rule{}, err
	}
	r.Created = time.UnixMilli(s.now().UnixMilli())
	err := s.write(ctx, func(tx txn) error {
		_, err := tx.exec(ctx, `INSERT INTO rules (agent, verb, op, target, args, decision, note, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (agent, verb, op, target, args) DO UPDATE SET decision = excluded.decision, note = excluded.note, created_at = excluded.created_at, created_by = excluded.created_by`,
			r.Agent, r.Verb, r.Op, r.Target, r.Args, r.Decision, r.Note, r.Created.UnixMilli(), r.By)
		if err != nil {
			return err
		}
		return tx.queryRow(ctx, `SELECT id FROM rules WHERE agent = ? AND verb = ? AND op = ? AND target = ? AND args = ?`,
			r.Agent, r.Verb, r.Op, r.Target, r.Args).Scan(&r.ID)
	})
	return r, err
}

// Rules lists the standing rules by id.
func (s *sqlStore) Rules(ctx context.Context) ([]Rule, error) {
	return s.rules(ctx, `SELECT `+ruleCols+` FROM rules ORDER BY id`)
}

func (s *sqlStore) rules(ctx context.Context, query string, args ...any) ([]Rule, error) {
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Rule
	for rows.Next() {
		r, err := scanRule(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// RemoveRule deletes rule id.
func (s *sqlStore) RemoveRule(ctx context.Context, id int64) error {
	return s.write(ctx, func(tx txn) error {
		res, err := tx.exec(ctx, `DELETE FROM rules WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, fmt.Errorf("rule #%d: %w", id, ErrNotFound))
		}
		return nil
	})
}

// MatchRule returns the rule that decides a. The exact fields narrow the
// candidates in SQL; argument patterns are matched here, with MatchArgs,
// so that every backend reads a pattern the same way.
func (s *sqlStore) MatchRule(ctx context.Context, a Action) (Rule, bool, error) {
	rs, err := s.rules(ctx, `SELECT `+ruleCols+` FROM rules
		WHERE agent IN (?, '*') AND verb IN (?, '*') AND op IN (?, '*') AND target IN (?, '*')`,
		a.Agent, a.Verb, a.Op, a.Target)
	if err != nil {
		return Rule{}, false, err
	}
	var best Rule
	found := false
	for _, r := range rs {
		if r.Covers(a) && (!found || r.Decides(best)) {
			best, found = r, true
		}
	}
	return best, found, nil
}
