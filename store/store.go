package store

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/pattern-dialect/dialect/failures"
	"github.com/pattern-dialect/dialect/internal/postgres"
	"github.com/pattern-dialect/dialect/internal/sqlite"
)

// Kind says which memory a block belongs to.
type Kind string

// The two memories.
const (
	Archival Kind = "archival" // long-term, searched and read on demand (/recall)
	Working  Kind = "working"  // always in the prompt (/context)
)

// ErrNotFound is returned (wrapped) when a block, version, pending action,
// rule or output does not exist.
var ErrNotFound = errors.New("not found")

// ErrExists is returned (wrapped) by Import for a name that is taken.
var ErrExists = errors.New("already exists")

// Block is one memory block at its current version. Tags and Project are
// its labels: the filters #tag and *project find a block by them.
type Block struct {
	ID      int64
	Kind    Kind
	Name    string
	Content string
	Version int
	Created time.Time
	Updated time.Time
	Tags    []string // lower case, sorted, without '#'
	Project string   // lower case, without '*'
}

// Version is one recorded state of a block: the content and labels after
// Op, who made the change, and when. Version numbers count the changes of
// one name: a block deleted and written again goes on from its last
// number, so a name and a number always mean one state.
type Version struct {
	Version int       `json:"version"`
	Op      string    `json:"op"` // "create", "replace", "append", "patch", "restore v2", "delete", ...
	At      time.Time `json:"at"`
	Agent   string    `json:"agent,omitempty"` // the agent, or the person, who made the change
	Tags    []string  `json:"tags,omitempty"`
	Project string    `json:"project,omitempty"`
	Content string    `json:"content"`
}

// Deleted reports whether the version records a deletion.
func (v Version) Deleted() bool { return v.Op == "delete" }

// Edit is how Update changes a block's content. It gets the current
// content and whether the block exists, and returns the new content. An
// error leaves the block unchanged and is returned by Update.
type Edit func(old string, exists bool) (string, error)

// Change is one write to a block, carried out by Apply in one transaction.
type Change struct {
	Kind Kind
	// Name is the block; "" stores a new block named memory-N (the next
	// free N), and Edit is then called with exists false.
	Name string
	// Op names the change in the block's history ("append", "patch"...).
	Op string
	// Agent is who makes it, recorded in the history.
	Agent string
	// Edit gives the new content; nil with Remove.
	Edit Edit
	// Remove deletes the block, recording its last content as a "delete"
	// version so that history keeps it.
	Remove bool
	// Tags are added to the block's tags, and Project, when not "", sets
	// its project. With ExactLabels they replace the block's labels.
	Tags        []string
	Project     string
	ExactLabels bool
}

// Hit is one search result.
type Hit struct {
	Block
	Snippet string  // the matching passage, terms in [brackets]
	Score   float64 // lower is better: bm25 on SQLite, -ts_rank on PostgreSQL
}

// SearchOptions narrow a search. Zero values mean no bound. With an empty
// query a search lists the blocks the options admit, most recently
// changed first.
type SearchOptions struct {
	Limit   int       // default 10
	Since   time.Time // updated at or after
	Before  time.Time // updated before
	Tags    []string  // carries every one of these tags
	Project string    // belongs to this project
}

// Record is the whole history of one block name, the unit of Export and
// Import: every version, oldest first. The block exists unless its last
// version is a deletion; its current state is its last version.
type Record struct {
	Kind     Kind      `json:"kind"`
	Name     string    `json:"name"`
	Versions []Version `json:"versions"`
}

// Rule is a standing decision on calls: every field but Decision, Note
// and the bookkeeping says which calls it covers. Agent, Verb, Op and
// Target match exactly, "*" matching anything; Args is a pattern over the
// call's argument (see MatchArgs), "*" matching anything. Verb is the verb
// after mapping (what carries the call out: "send" for /tell); Op is the
// operation ("insert", "search"; "" for a verb that has one).
type Rule struct {
	ID       int64     `json:"id"`
	Agent    string    `json:"agent"`
	Verb     string    `json:"verb"`
	Op       string    `json:"op"`
	Target   string    `json:"target"`
	Args     string    `json:"args"`
	Decision Decision  `json:"decision"`
	Note     string    `json:"note,omitempty"` // the reason given; a denial tells the model
	By       string    `json:"by,omitempty"`
	Created  time.Time `json:"created"`
}

// Action is a call as standing rules see it (see Rule).
type Action struct {
	Agent, Verb, Op, Target, Args string
}

// Store is the runtime's state: memory blocks with their history,
// conversations and sessions, the approval queue with its standing rules,
// and the failure log. Implementations are safe for concurrent use, and
// many processes may share one store.
type Store interface {
	// Get returns the block kind/name, or an error wrapping ErrNotFound.
	Get(ctx context.Context, kind Kind, name string) (Block, error)
	// Names lists the names of kind's blocks, sorted.
	Names(ctx context.Context, kind Kind) ([]string, error)
	// HistoryNames lists the names of kind that have a history, the
	// deleted blocks' included, sorted.
	HistoryNames(ctx context.Context, kind Kind) ([]string, error)
	// Blocks returns every block of kind, by name.
	Blocks(ctx context.Context, kind Kind) ([]Block, error)
	// Apply makes one change to a block in one transaction: it reads the
	// block, calls c.Edit, and writes the result and its labels as a new
	// version recorded with c.Op and c.Agent. A block that does not exist
	// is created when the edit accepts that. Nothing is written if the
	// edit fails; its error is returned.
	Apply(ctx context.Context, c Change) (Block, error)
	// Update is Apply with only the kind, name, op and edit of a change.
	Update(ctx context.Context, kind Kind, name, op string, edit Edit) (Block, error)
	// Insert stores content as a new block named memory-N (the next free
	// N) and returns it.
	Insert(ctx context.Context, kind Kind, content string) (Block, error)
	// Delete removes kind/name, recording its last content as a "delete"
	// version so that history keeps it.
	Delete(ctx context.Context, kind Kind, name string) error
	// History returns every recorded version of kind/name, oldest first,
	// including those of a deleted block of that name.
	History(ctx context.Context, kind Kind, name string) ([]Version, error)
	// Version returns version n of kind/name, or an error wrapping
	// ErrNotFound.
	Version(ctx context.Context, kind Kind, name string, n int) (Version, error)
	// Import writes whole histories (see Record) in one transaction: each
	// name's versions as they are, and its block as its last version left
	// it. A name that already has a block or a history is an error wrapping
	// ErrExists, and then nothing is written.
	Import(ctx context.Context, recs []Record) error
	// Search finds kind's blocks ("" for both kinds) matching any of the
	// query's words, best first, with a snippet.
	Search(ctx context.Context, kind Kind, query string, o SearchOptions) ([]Hit, error)

	// LogMessage records a conversation message for /search in
	// conversations and @last.message.
	LogMessage(ctx context.Context, m Message) (int64, error)
	// SearchMessages finds logged messages matching any of query's
	// words, best first; with an empty query, the messages q admits,
	// newest first.
	SearchMessages(ctx context.Context, query string, q MessageQuery) ([]MessageHit, error)
	// LastMessage returns the session's latest message (of role, when not
	// empty), or an error wrapping ErrNotFound.
	LastMessage(ctx context.Context, session, role string) (Message, error)
	// RecordOutput records an action's output for @last.output.
	RecordOutput(ctx context.Context, o Output) error
	// LastOutput returns the session's latest recorded output, or an
	// error wrapping ErrNotFound.
	LastOutput(ctx context.Context, session string) (Output, error)
	// SetState sets a session's value for key; "" removes it.
	SetState(ctx context.Context, session, key, value string) error
	// State returns a session's value for key, "" when unset.
	State(ctx context.Context, session, key string) (string, error)

	// Enqueue adds p to the approval queue and returns its id.
	Enqueue(ctx context.Context, p Pending) (int64, error)
	// PendingList lists the queue, oldest first: only the actions in
	// status, or all of them when status is "".
	PendingList(ctx context.Context, status Status) ([]Pending, error)
	// GetPending returns one queued action, or an error wrapping
	// ErrNotFound.
	GetPending(ctx context.Context, id int64) (Pending, error)
	// Decide moves a pending action to status, exactly once: a second
	// decision gets an error wrapping ErrDecided.
	Decide(ctx context.Context, id int64, status Status, by, note string) (Pending, error)
	// SetResult records what a decided action's execution gave.
	SetResult(ctx context.Context, id int64, result string) error
	// SaveRule records a standing rule, replacing one that covers exactly
	// the same calls, and returns it with its id and time.
	SaveRule(ctx context.Context, r Rule) (Rule, error)
	// Rules lists the standing rules by id.
	Rules(ctx context.Context) ([]Rule, error)
	// RemoveRule deletes rule id, or returns an error wrapping
	// ErrNotFound.
	RemoveRule(ctx context.Context, id int64) error
	// MatchRule returns the rule that decides a: of the rules covering
	// it, the most specific (the most fields that are not "*"), a denial
	// before an allowance, then the newest. ok is false when none covers
	// it.
	MatchRule(ctx context.Context, a Action) (r Rule, ok bool, err error)

	// Failures returns the failure log kept in the same store.
	Failures() *failures.Log
	// Location names where the store is, for messages: a file path, or
	// a postgres:// URL without its password.
	Location() string
	// Close releases the store.
	Close() error
}

// Open opens the store at location, creating it and applying its
// migrations when needed. A postgres:// or postgresql:// URL selects
// PostgreSQL (the URL takes pgx's parameters, and pool_max_conns for the
// size of the connection pool); anything else is a SQLite file path; ""
// means DefaultPath.
func Open(ctx context.Context, location string) (Store, error) {
	if location == "" {
		p, err := DefaultPath()
		if err != nil {
			return nil, err
		}
		location = p
	}
	if postgres.IsLocation(location) {
		return openPostgres(ctx, location)
	}
	return openSQLite(ctx, location)
}

// DefaultPath returns the location used when none is named: $DIALECT_DB
// if set (a file path or a postgres:// URL), else $XDG_STATE_HOME/dialect/dialect.db, else
// ~/.local/state/dialect/dialect.db. It creates nothing.
func DefaultPath() (string, error) { return sqlite.DefaultPath() }

// Put sets kind/name to content, creating the block if needed.
func Put(ctx context.Context, s Store, kind Kind, name, content string) (Block, error) {
	return s.Update(ctx, kind, name, "replace", func(string, bool) (string, error) { return content, nil })
}

// Append adds content on a new line at the end of kind/name, creating the
// block if needed.
func Append(ctx context.Context, s Store, kind Kind, name, content string) (Block, error) {
	return s.Update(ctx, kind, name, "append", func(old string, exists bool) (string, error) {
		if !exists || old == "" {
			return content, nil
		}
		return strings.TrimRight(old, "\n") + "\n" + content, nil
	})
}

// Move renames kind/name to toKind/toName (archive: working → archival;
// load: archival → working), with its labels, recording a version on both
// sides made by agent. With keep, the source stays (a copy).
func Move(ctx context.Context, s Store, kind Kind, name string, toKind Kind, toName string, keep bool, agent string) (Block, error) {
	src, err := s.Get(ctx, kind, name)
	if err != nil {
		return Block{}, err
	}
	b, err := s.Apply(ctx, Change{Kind: toKind, Name: toName, Op: "from " + string(kind) + " " + name, Agent: agent,
		Tags: src.Tags, Project: src.Project,
		Edit: func(string, bool) (string, error) { return src.Content, nil }})
	if err != nil || keep {
		return b, err
	}
	_, err = s.Apply(ctx, Change{Kind: kind, Name: name, Op: "delete", Agent: agent, Remove: true})
	return b, err
}
