#!/usr/bin/env bash
# A throwaway PostgreSQL 15 server for the tests, on loopback, in a temporary directory.
#
#   eval "$(scripts/pg-test-server.sh start DIR)"   # prints: export SNOWLINE_TEST_PG=postgres://…
#   scripts/pg-test-server.sh stop DIR
#
# initdb runs as an unprivileged user: the caller when not root, else the `postgres` user that
# Debian's postgresql-15 package creates (PostgreSQL refuses to run as root). The server listens on
# 127.0.0.1 at a free port, keeps its socket in DIR, trusts local connections (a test server only)
# and is tuned for throwaway data (fsync off). Idempotent: start on a running DIR prints its URL.
# PG_TEST_OPTS: more server settings ("-c fsync=on ..."; they override the ones above).
# PG_TEST_KEEP=1: start the cluster already in DIR (one a previous start made) instead of a new one.
set -euo pipefail
cmd=${1:?start|stop}; dir=${2:?directory}
bin=$(ls -d /usr/lib/postgresql/15/bin 2>/dev/null || true)
[ -n "$bin" ] || { echo "pg-test-server: PostgreSQL 15 is not installed (scripts/deps.sh installs it)" >&2; exit 1; }
as() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
case $cmd in
start)
	mkdir -p "$dir"
	[ "$(id -u)" = 0 ] && chown postgres: "$dir"
	if [ -f "$dir/url" ] && as "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
		echo "export SNOWLINE_TEST_PG=$(cat "$dir/url")"; exit 0
	fi
	if [ "${PG_TEST_KEEP:-0}" != 1 ] || [ ! -f "$dir/data/PG_VERSION" ]; then
		rm -rf "$dir/data"
		as "$bin/initdb" -D "$dir/data" -U snowline -A trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 ||
			{ cat "$dir/initdb.log" >&2; exit 1; }
	fi
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
	as "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
		-o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c shared_buffers=256MB ${PG_TEST_OPTS:-}" \
		>/dev/null || { cat "$dir/server.log" >&2; exit 1; }
	url="postgres://snowline@127.0.0.1:$port/postgres"
	echo "$url" >"$dir/url"
	echo "export SNOWLINE_TEST_PG=$url"
	;;
stop)
	[ -d "$dir/data" ] && as "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
	;;
*) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
