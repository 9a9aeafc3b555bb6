# Sourced by .ci/run: starts a throwaway PostgreSQL server for the tests
# and exports DIALECT_TEST_POSTGRES, the DSN of an empty database on it.
# The server listens on a Unix socket in a temporary directory only (no TCP
# port), runs as the postgres user when started as root, and is stopped and
# removed by stop_postgres (set as an EXIT trap by the caller).
#
# Debian's package is installed when no server binaries are found.

pg_bindir() {
	ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

start_postgres() {
	local bin
	bin=$(pg_bindir)
	if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
		echo "== installing PostgreSQL (Debian package)"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >/dev/null
		apt-get install -y -qq postgresql >/dev/null
		bin=$(pg_bindir)
	fi
	PG_DIR=$(mktemp -d /tmp/dialect-pg.XXXXXX)
	local run=()
	if [ "$(id -u)" = 0 ]; then
		chown postgres: "$PG_DIR"
		run=(runuser -u postgres --)
	fi
	PG_RUN=("${run[@]}")
	PG_BIN=$bin
	"${run[@]}" "$bin/initdb" -D "$PG_DIR/data" -U postgres -A trust --no-sync -E UTF8 --locale=C.UTF-8 >"$PG_DIR/initdb.log" 2>&1 ||
		{ cat "$PG_DIR/initdb.log"; return 1; }
	"${run[@]}" "$bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
		-o "-c listen_addresses='' -k $PG_DIR -p 5432 -c fsync=off -c full_page_writes=off -c max_connections=200" start >/dev/null ||
		{ cat "$PG_DIR/server.log"; return 1; }
	"${run[@]}" "$bin/createdb" -h "$PG_DIR" -p 5432 -U postgres dialect_test
	export DIALECT_TEST_POSTGRES="postgres://postgres@/dialect_test?host=$PG_DIR&port=5432"
	echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on $PG_DIR (DIALECT_TEST_POSTGRES)"
}

stop_postgres() {
	if [ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR/data" ]; then
		"${PG_RUN[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	[ -n "${PG_DIR:-}" ] && rm -rf "$PG_DIR"
	return 0
}
