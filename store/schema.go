package store

import "github.com/pattern-dialect/dialect/internal/sqlite"

// migrations returns the store's schema steps, for sqlite.Open.
func migrations() []sqlite.Migration {
	return []sqlite.Migration{{
		Owner: "store", Version: 1, Name: "memory blocks, messages, sessions, approvals",
		SQL: `
CREATE TABLE blocks (
	id         INTEGER PRIMARY KEY,
	kind       TEXT    NOT NULL CHECK (kind IN ('archival', 'working')),
	name       TEXT    NOT NULL,
	content    TEXT    NOT NULL,
	version    INTEGER NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	UNIQUE (kind, name)
);
CREATE TABLE block_versions (
	block_id INTEGER NOT NULL,
	kind     TEXT    NOT NULL,
	name     TEXT    NOT NULL,
	version  INTEGER NOT NULL,
	op       TEXT    NOT NULL,
	content  TEXT    NOT NULL,
	at       INTEGER NOT NULL,
	PRIMARY KEY (block_id, version)
);
CREATE VIRTUAL TABLE blocks_fts USING fts5(name, content, content='blocks', content_rowid='id', tokenize='porter unicode61');
CREATE TRIGGER blocks_ai AFTER INSERT ON blocks BEGIN
	INSERT INTO blocks_fts(rowid, name, content) VALUES (new.id, new.name, new.content);
END;
CREATE TRIGGER blocks_ad AFTER DELETE ON blocks BEGIN
	INSERT INTO blocks_fts(blocks_fts, rowid, name, content) VALUES ('delete', old.id, old.name, old.content);
END;
CREATE TRIGGER blocks_au AFTER UPDATE ON blocks BEGIN
	INSERT INTO blocks_fts(blocks_fts, rowid, name, content) VALUES ('delete', old.id, old.name, old.content);
	INSERT INTO blocks_fts(rowid, name, content) VALUES (new.id, new.name, new.content);
END;

CREATE TABLE messages (
	id      INTEGER PRIMARY KEY,
	session TEXT    NOT NULL,
	role    TEXT    NOT NULL,
	agent   TEXT    NOT NULL DEFAULT '',
	model   TEXT    NOT NULL DEFAULT '',
	content TEXT    NOT NULL,
	at      INTEGER NOT NULL
);
CREATE INDEX messages_session ON messages (session, id);
CREATE VIRTUAL TABLE messages_fts USING fts5(content, content='messages', content_rowid='id', tokenize='porter unicode61');
CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
	INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN
	INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;

CREATE TABLE outputs (
	id      INTEGER PRIMARY KEY,
	session TEXT    NOT NULL,
	verb    TEXT    NOT NULL,
	status  TEXT    NOT NULL,
	output  TEXT    NOT NULL,
	at      INTEGER NOT NULL
);
CREATE INDEX outputs_session ON outputs (session, id);

CREATE TABLE pending (
	id         INTEGER PRIMARY KEY,
	created_at INTEGER NOT NULL,
	agent      TEXT    NOT NULL DEFAULT '',
	model      TEXT    NOT NULL DEFAULT '',
	session    TEXT    NOT NULL DEFAULT '',
	verb       TEXT    NOT NULL,
	target     TEXT    NOT NULL DEFAULT '',
	intent     TEXT    NOT NULL,
	raw        TEXT    NOT NULL,
	why        TEXT    NOT NULL DEFAULT '',
	status     TEXT    NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied', 'cancelled', 'escalated')),
	decided_by TEXT    NOT NULL DEFAULT '',
	decided_at INTEGER NOT NULL DEFAULT 0,
	note       TEXT    NOT NULL DEFAULT '',
	result     TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX pending_status ON pending (status, id);

CREATE TABLE rules (
	id         INTEGER PRIMARY KEY,
	agent      TEXT    NOT NULL,
	verb       TEXT    NOT NULL,
	target     TEXT    NOT NULL,
	decision   TEXT    NOT NULL CHECK (decision IN ('allow', 'deny')),
	created_at INTEGER NOT NULL,
	created_by TEXT    NOT NULL DEFAULT '',
	UNIQUE (agent, verb, target)
);
`}, {
		Owner: "store", Version: 2, Name: "per-session state (the last fetch cursor)",
		SQL: `
CREATE TABLE session_state (
	session TEXT NOT NULL,
	key     TEXT NOT NULL,
	value   TEXT NOT NULL,
	at      INTEGER NOT NULL,
	PRIMARY KEY (session, key)
);
`}}
}
