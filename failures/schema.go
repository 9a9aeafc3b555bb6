package failures

// SchemaStep is one version of the log's tables, applied in order and once
// by the store that keeps the log: SQL on SQLite, Postgres on PostgreSQL.
// The two make the same tables, columns and keys.
type SchemaStep struct {
	Version  int
	Name     string
	SQL      string // for SQLite
	Postgres string // for PostgreSQL
}

// Schema returns the log's tables as versioned steps. Times are Unix
// milliseconds (UTC); days are whole UTC days since 1970-01-01.
//
// failures holds one row per failure, indexed by time only (an index costs
// insert speed). failure_daily is a roll-up of it by (day, model, code,
// verb, subject), kept in the same transaction as the rows, so that reports
// read the roll-up instead of the rows; each cell also keeps the ids of its
// first and last rows, which the report shows as example usages.
// action_counts counts successful actions per model and day.
func Schema() []SchemaStep {
	return []SchemaStep{{
		Version: 1,
		Name:    "failure log, daily roll-up, action counts",
		SQL: `
CREATE TABLE failures (
	id         INTEGER PRIMARY KEY,
	ts         INTEGER NOT NULL,
	code       TEXT    NOT NULL,
	token      TEXT    NOT NULL DEFAULT '',
	verb       TEXT    NOT NULL DEFAULT '',
	subject    TEXT    NOT NULL DEFAULT '',
	raw        TEXT    NOT NULL,
	agent      TEXT    NOT NULL DEFAULT '',
	model      TEXT    NOT NULL DEFAULT '',
	session    TEXT    NOT NULL DEFAULT '',
	details    TEXT,
	candidates TEXT,
	context    TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX failures_ts ON failures (ts);
CREATE TABLE failure_daily (
	day     INTEGER NOT NULL,
	model   TEXT    NOT NULL,
	code    TEXT    NOT NULL,
	verb    TEXT    NOT NULL,
	subject TEXT    NOT NULL,
	n        INTEGER NOT NULL,
	first_id INTEGER NOT NULL, -- the first and last rows of the cell:
	last_id  INTEGER NOT NULL, -- example usages without an index
	PRIMARY KEY (day, model, code, verb, subject)
) WITHOUT ROWID;
CREATE TABLE action_counts (
	day   INTEGER NOT NULL,
	model TEXT    NOT NULL,
	ok    INTEGER NOT NULL,
	PRIMARY KEY (day, model)
) WITHOUT ROWID;
`,
		Postgres: `
CREATE TABLE failures (
	id         BIGINT PRIMARY KEY,
	ts         BIGINT NOT NULL,
	code       TEXT   NOT NULL,
	token      TEXT   NOT NULL DEFAULT '',
	verb       TEXT   NOT NULL DEFAULT '',
	subject    TEXT   NOT NULL DEFAULT '',
	raw        TEXT   NOT NULL,
	agent      TEXT   NOT NULL DEFAULT '',
	model      TEXT   NOT NULL DEFAULT '',
	session    TEXT   NOT NULL DEFAULT '',
	details    TEXT,
	candidates TEXT,
	context    TEXT   NOT NULL DEFAULT ''
);
CREATE INDEX failures_ts ON failures (ts);
CREATE TABLE failure_daily (
	day      BIGINT NOT NULL,
	model    TEXT   NOT NULL,
	code     TEXT   NOT NULL,
	verb     TEXT   NOT NULL,
	subject  TEXT   NOT NULL,
	n        BIGINT NOT NULL,
	first_id BIGINT NOT NULL,
	last_id  BIGINT NOT NULL,
	PRIMARY KEY (day, model, code, verb, subject)
);
CREATE TABLE action_counts (
	day   BIGINT NOT NULL,
	model TEXT   NOT NULL,
	ok    BIGINT NOT NULL,
	PRIMARY KEY (day, model)
);
`,
	}}
}
