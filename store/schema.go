package store

import "github.com/pattern-dialect/dialect/internal/migrate"

// The store's schema is kept twice, once per backend, with the same
// versions: version N makes the same tables, columns and keys on SQLite
// and on PostgreSQL. A new step is added to both lists (and the new
// tables to copyTables).

// sqliteMigrations returns the store's schema steps for SQLite.
func sqliteMigrations() []migrate.Migration {
	return []migrate.Migration{{
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
`}, {
		Owner: "store", Version: 3, Name: "labels, version numbers per name, who changed a block, narrower rules",
		// Version numbers become a sequence per (kind, name), so that a
		// block deleted and written again goes on counting: the versions
		// recorded so far are renumbered in the order they were made.
		// Rules gain an operation, an argument pattern and a note; the
		// rules made so far cover every operation and argument, as
		// before. A rule for the agent '' (a message with no agent) is
		// now written as the runtime names that agent: 'default'.
		SQL: `
ALTER TABLE blocks ADD COLUMN tags TEXT NOT NULL DEFAULT '';
ALTER TABLE blocks ADD COLUMN project TEXT NOT NULL DEFAULT '';

CREATE TABLE block_versions_v3 (
	block_id INTEGER NOT NULL,
	kind     TEXT    NOT NULL,
	name     TEXT    NOT NULL,
	version  INTEGER NOT NULL,
	op       TEXT    NOT NULL,
	content  TEXT    NOT NULL,
	at       INTEGER NOT NULL,
	agent    TEXT    NOT NULL DEFAULT '',
	tags     TEXT    NOT NULL DEFAULT '',
	project  TEXT    NOT NULL DEFAULT '',
	PRIMARY KEY (kind, name, version)
);
INSERT INTO block_versions_v3 (block_id, kind, name, version, op, content, at)
	SELECT block_id, kind, name, ROW_NUMBER() OVER (PARTITION BY kind, name ORDER BY at, block_id, version), op, content, at
	FROM block_versions;
DROP TABLE block_versions;
ALTER TABLE block_versions_v3 RENAME TO block_versions;
UPDATE blocks SET version = (SELECT MAX(v.version) FROM block_versions v WHERE v.kind = blocks.kind AND v.name = blocks.name)
	WHERE EXISTS (SELECT 1 FROM block_versions v WHERE v.kind = blocks.kind AND v.name = blocks.name);

ALTER TABLE messages ADD COLUMN tags TEXT NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN project TEXT NOT NULL DEFAULT '';

CREATE TABLE rules_v3 (
	id         INTEGER PRIMARY KEY,
	agent      TEXT    NOT NULL,
	verb       TEXT    NOT NULL,
	op         TEXT    NOT NULL DEFAULT '*',
	target     TEXT    NOT NULL,
	args       TEXT    NOT NULL DEFAULT '*',
	decision   TEXT    NOT NULL CHECK (decision IN ('allow', 'deny')),
	note       TEXT    NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	created_by TEXT    NOT NULL DEFAULT '',
	UNIQUE (agent, verb, op, target, args)
);
INSERT INTO rules_v3 (id, agent, verb, op, target, args, decision, created_at, created_by)
	SELECT id, CASE agent WHEN '' THEN 'default' ELSE agent END, verb, '*', target, '*', decision, created_at, created_by FROM rules;
DROP TABLE rules;
ALTER TABLE rules_v3 RENAME TO rules;
`}, {
		Owner: "store", Version: 4, Name: "the conversation log indexed when it is searched",
		// The conversation log's full-text index is no longer written
		// with each message: a message goes into its table alone, and
		// the index catches up with every message not in it yet, in
		// bulk, before a conversation search and when a batched writer
		// is idle (catchUpMessages). messages_fts_mark holds the
		// highest id the index has caught up to: every message at or
		// below it is in the index, none above it. The triggers keep
		// that true for rows written at or below the mark (an id reused
		// after the newest rows were deleted, a copied row): such a row
		// is indexed as it is inserted and taken out as it is deleted;
		// a row above the mark, never indexed, must not be 'delete'd,
		// which would corrupt an external-content FTS5 index. Every
		// message so far was indexed by the old trigger.
		SQL: `
CREATE TABLE messages_fts_mark (
	id   INTEGER PRIMARY KEY CHECK (id = 1),
	mark INTEGER NOT NULL
);
INSERT INTO messages_fts_mark (id, mark) VALUES (1, COALESCE((SELECT max(id) FROM messages), 0));
DROP TRIGGER messages_ai;
DROP TRIGGER messages_ad;
CREATE TRIGGER messages_ai AFTER INSERT ON messages WHEN new.id <= (SELECT mark FROM messages_fts_mark) BEGIN
	INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_ad AFTER DELETE ON messages WHEN old.id <= (SELECT mark FROM messages_fts_mark) BEGIN
	INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
`}}
}

// postgresMigrations returns the store's schema steps for PostgreSQL. Times
// are Unix milliseconds in BIGINT, as on SQLite. Full-text search uses a
// stored tsvector column with a GIN index, under the text search
// configuration dialect_english: English stemming (snowball) without a
// stop-word list, so that every word is searchable, as with SQLite's
// porter tokenizer.
func postgresMigrations() []migrate.Migration {
	return []migrate.Migration{{
		Owner: "store", Version: 1, Name: "memory blocks, messages, sessions, approvals",
		SQL: `
CREATE TEXT SEARCH DICTIONARY dialect_stem (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION dialect_english (COPY = english);
ALTER TEXT SEARCH CONFIGURATION dialect_english ALTER MAPPING REPLACE english_stem WITH dialect_stem;

CREATE TABLE blocks (
	id         BIGINT  GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	kind       TEXT    NOT NULL CHECK (kind IN ('archival', 'working')),
	name       TEXT    NOT NULL,
	content    TEXT    NOT NULL,
	version    INTEGER NOT NULL,
	created_at BIGINT  NOT NULL,
	updated_at BIGINT  NOT NULL,
	tsv        tsvector GENERATED ALWAYS AS (
		setweight(to_tsvector('dialect_english', name), 'A') || setweight(to_tsvector('dialect_english', content), 'B')) STORED,
	UNIQUE (kind, name)
);
CREATE INDEX blocks_tsv ON blocks USING GIN (tsv);
CREATE TABLE block_versions (
	block_id BIGINT  NOT NULL,
	kind     TEXT    NOT NULL,
	name     TEXT    NOT NULL,
	version  INTEGER NOT NULL,
	op       TEXT    NOT NULL,
	content  TEXT    NOT NULL,
	at       BIGINT  NOT NULL,
	PRIMARY KEY (block_id, version)
);
CREATE INDEX block_versions_name ON block_versions (kind, name);

CREATE TABLE messages (
	id      BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	session TEXT   NOT NULL,
	role    TEXT   NOT NULL,
	agent   TEXT   NOT NULL DEFAULT '',
	model   TEXT   NOT NULL DEFAULT '',
	content TEXT   NOT NULL,
	at      BIGINT NOT NULL,
	tsv     tsvector GENERATED ALWAYS AS (to_tsvector('dialect_english', content)) STORED
);
CREATE INDEX messages_session ON messages (session, id);
CREATE INDEX messages_tsv ON messages USING GIN (tsv);

CREATE TABLE outputs (
	id      BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	session TEXT   NOT NULL,
	verb    TEXT   NOT NULL,
	status  TEXT   NOT NULL,
	output  TEXT   NOT NULL,
	at      BIGINT NOT NULL
);
CREATE INDEX outputs_session ON outputs (session, id);

CREATE TABLE pending (
	id         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	created_at BIGINT NOT NULL,
	agent      TEXT   NOT NULL DEFAULT '',
	model      TEXT   NOT NULL DEFAULT '',
	session    TEXT   NOT NULL DEFAULT '',
	verb       TEXT   NOT NULL,
	target     TEXT   NOT NULL DEFAULT '',
	intent     TEXT   NOT NULL,
	raw        TEXT   NOT NULL,
	why        TEXT   NOT NULL DEFAULT '',
	status     TEXT   NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied', 'cancelled', 'escalated')),
	decided_by TEXT   NOT NULL DEFAULT '',
	decided_at BIGINT NOT NULL DEFAULT 0,
	note       TEXT   NOT NULL DEFAULT '',
	result     TEXT   NOT NULL DEFAULT ''
);
CREATE INDEX pending_status ON pending (status, id);

CREATE TABLE rules (
	id         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	agent      TEXT   NOT NULL,
	verb       TEXT   NOT NULL,
	target     TEXT   NOT NULL,
	decision   TEXT   NOT NULL CHECK (decision IN ('allow', 'deny')),
	created_at BIGINT NOT NULL,
	created_by TEXT   NOT NULL DEFAULT '',
	UNIQUE (agent, verb, target)
);
`}, {
		Owner: "store", Version: 2, Name: "per-session state (the last fetch cursor)",
		SQL: `
CREATE TABLE session_state (
	session TEXT   NOT NULL,
	key     TEXT   NOT NULL,
	value   TEXT   NOT NULL,
	at      BIGINT NOT NULL,
	PRIMARY KEY (session, key)
);
`}, {
		Owner: "store", Version: 3, Name: "labels, version numbers per name, who changed a block, narrower rules",
		// As store/3 on SQLite: see there.
		SQL: `
ALTER TABLE blocks ADD COLUMN tags TEXT NOT NULL DEFAULT '';
ALTER TABLE blocks ADD COLUMN project TEXT NOT NULL DEFAULT '';

CREATE TABLE block_versions_v3 (
	block_id BIGINT  NOT NULL,
	kind     TEXT    NOT NULL,
	name     TEXT    NOT NULL,
	version  INTEGER NOT NULL,
	op       TEXT    NOT NULL,
	content  TEXT    NOT NULL,
	at       BIGINT  NOT NULL,
	agent    TEXT    NOT NULL DEFAULT '',
	tags     TEXT    NOT NULL DEFAULT '',
	project  TEXT    NOT NULL DEFAULT '',
	PRIMARY KEY (kind, name, version)
);
INSERT INTO block_versions_v3 (block_id, kind, name, version, op, content, at)
	SELECT block_id, kind, name, ROW_NUMBER() OVER (PARTITION BY kind, name ORDER BY at, block_id, version), op, content, at
	FROM block_versions;
DROP TABLE block_versions;
ALTER TABLE block_versions_v3 RENAME TO block_versions;
UPDATE blocks SET version = (SELECT MAX(v.version) FROM block_versions v WHERE v.kind = blocks.kind AND v.name = blocks.name)
	WHERE EXISTS (SELECT 1 FROM block_versions v WHERE v.kind = blocks.kind AND v.name = blocks.name);

ALTER TABLE messages ADD COLUMN tags TEXT NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN project TEXT NOT NULL DEFAULT '';

CREATE TABLE rules_v3 (
	id         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	agent      TEXT   NOT NULL,
	verb       TEXT   NOT NULL,
	op         TEXT   NOT NULL DEFAULT '*',
	target     TEXT   NOT NULL,
	args       TEXT   NOT NULL DEFAULT '*',
	decision   TEXT   NOT NULL CHECK (decision IN ('allow', 'deny')),
	note       TEXT   NOT NULL DEFAULT '',
	created_at BIGINT NOT NULL,
	created_by TEXT   NOT NULL DEFAULT '',
	UNIQUE (agent, verb, op, target, args)
);
INSERT INTO rules_v3 (id, agent, verb, op, target, args, decision, created_at, created_by)
	SELECT id, CASE agent WHEN '' THEN 'default' ELSE agent END, verb, '*', target, '*', decision, created_at, created_by FROM rules;
DROP TABLE rules;
ALTER TABLE rules_v3 RENAME TO rules;
SELECT setval(pg_get_serial_sequence('rules', 'id'), COALESCE((SELECT max(id) FROM rules), 0) + 1, false);
`}, {
		Owner: "store", Version: 4, Name: "the conversation log indexed when it is searched",
		// Nothing changes on PostgreSQL: the tsvector column is computed
		// in the server's process as a row is written, and the GIN
		// index's pending list (fastupdate) already defers its
		// insertion; store/4 on SQLite defers FTS5's work, which is in
		// this process. The step keeps the versions the same on both.
		SQL: `SELECT 1;`}}
}
