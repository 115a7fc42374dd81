# lib-data.sh — sourced by bench/index.sh and bench/api.sh: the big devnet they share, a node
# serving it, throwaway PostgreSQL servers, and `snowline index` until it has caught up (the
# generic helpers are bench/lib.sh's).
#
# The devnet (the expensive part: ~15 minutes for 3M txs on 2 shared cores) is made once and
# kept in a cache directory named by its settings:
#   $BENCH_CACHE/devnet-<network>-<txs>tx-<accounts>acc-<seed>/
#     node/            `snowline devnet --data-dir` (its LMDB store, devnet-genesis.json,
#                      devnet-manifest.json), served afterwards by a plain `snowline node`
#                      on it (the devnet's snapshot is tied to the build that wrote it; the
#                      store is not), reward UTXOs included
#     ready            written when the devnet was ready: which snowline made it
#     sqlite/, pg/     the stores bench/index.sh made last, kept for bench/api.sh, each with
#                      a stamp (the checksum of the binary that indexed it)
# BENCH_CACHE defaults to ${TMPDIR:-/tmp}/snowline-bench-cache; BENCH_FRESH=1 remakes the devnet.
# Settings: BENCH_TXS (3000000: the devnet makes ~1.7 UTXOs per tx, so 5M UTXOs need ~3M txs;
# more accounts only add genesis UTXOs) BENCH_ACCOUNTS (64) BENCH_SEED (snowline), network fuji.
# The caller sets `name` (for messages) and `tmp` (its scratch directory), and calls bd_cleanup
# from its EXIT trap: every process started here and every PostgreSQL server is stopped.

bd_txs=${BENCH_TXS:-3000000}
bd_accounts=${BENCH_ACCOUNTS:-64}
bd_seed=${BENCH_SEED:-snowline}
bd_network=fuji
bd_bin=${SNOWLINE_BIN:-build/snowline}
bd_pg_bin=/usr/lib/postgresql/15/bin
for v in bd_txs bd_accounts; do
	case "${!v}" in '' | *[!0-9]*) echo "$name bench: ${v#bd_} must be a number" >&2; exit 2 ;; esac
done
case "$bd_seed" in '' | *[!A-Za-z0-9_-]*) echo "$name bench: BENCH_SEED: letters, digits, - and _ only" >&2; exit 2 ;; esac
bd_cache=${BENCH_CACHE:-${TMPDIR:-/tmp}/snowline-bench-cache}/devnet-$bd_network-${bd_txs}tx-${bd_accounts}acc-$bd_seed

# shellcheck source=bench/lib.sh
. bench/lib.sh

bd_stamp() { sha256sum "$bd_bin" | cut -c1-16; }

# The devnet, made unless the cache has it. Generation is single-threaded: about 3-5k txs/s here.
bd_devnet() {
	if [ "${BENCH_FRESH:-0}" != 1 ] && [ -f "$bd_cache/ready" ] && [ -f "$bd_cache/node/devnet-genesis.json" ]; then
		echo "$name bench: devnet of $bd_txs txs from the cache ($bd_cache; $(cat "$bd_cache/ready"))"
		return 0
	fi
	rm -rf "$bd_cache"
	mkdir -p "$bd_cache"
	local deadline=$((600 + bd_txs / 1000)) log=$bd_cache/devnet.log
	echo "$name bench: making a devnet of $bd_txs txs, $bd_accounts accounts in $bd_cache (once; up to $deadline s)"
	"$bd_bin" devnet --data-dir "$bd_cache/node" --http-port 0 --network "$bd_network" --devnet-txs "$bd_txs" \
		--devnet-accounts "$bd_accounts" --devnet-seed "$bd_seed" --devnet-interval-ms 0 >"$log" 2>&1 &
	local pid=$!
	bd_pids+=("$pid")
	if ! bd_wait_for "$deadline" "$pid" grep -q 'devnet: ready in' "$log"; then
		echo "$name bench: the devnet was not ready in $deadline s:" >&2
		tail -5 "$log" >&2
		bd_stop "$pid"
		rm -rf "$bd_cache"
		return 1
	fi
	bd_stop "$pid"
	grep 'history made' "$log" | sed 's/.*devnet: /  /'
	echo "$("$bd_bin" --version 2>/dev/null | head -1 || echo snowline), $(date -u +%FT%TZ)" >"$bd_cache/ready"
}

# bd_node_start: a node serving the devnet's store; sets bd_node (its URL) and bd_node_pid.
bd_node_start() {
	local log=$tmp/node.log
	"$bd_bin" node --data-dir "$bd_cache/node" --index-enabled --network-id 5 --http-port 0 \
		--log-dir "$tmp/node-logs" >"$log" 2>&1 &
	bd_node_pid=$!
	bd_pids+=("$bd_node_pid")
	local port=
	bd_wait_for 60 "$bd_node_pid" grep -q 'listening on http' "$log" &&
		port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$log" | head -1)
	if [ -z "$port" ] || ! bd_wait_for 60 "$bd_node_pid" curl -sf --max-time 2 -o /dev/null \
		"http://127.0.0.1:$port/ext/health/readiness"; then
		echo "$name bench: the node did not come up:" >&2
		tail -5 "$log" >&2
		return 1
	fi
	bd_node=http://127.0.0.1:$port
}

# bd_pg_start DIR [keep]: a PostgreSQL 15 server (fsync on: a store, not a test fixture); sets bd_pg
# (its server URL, database postgres). With keep, the cluster already in DIR is started again.
bd_pg_start() {
	local dir=$1 keep=${2:-} out
	mkdir -p "$dir"
	bd_pgdirs+=("$dir")
	out=$(PG_TEST_KEEP=$([ -n "$keep" ] && echo 1 || echo 0) \
		PG_TEST_OPTS="-c fsync=on -c synchronous_commit=on -c full_page_writes=on -c max_wal_size=4GB" \
		timeout 120 scripts/pg-test-server.sh start "$dir") || return 1
	bd_pg=${out#export SNOWLINE_TEST_PG=}
}

bd_psql() { timeout 600 "$bd_pg_bin/psql" -qAtX -v ON_ERROR_STOP=1 "$@"; }

# bd_index STORE LOG [ARGS...]: `snowline index` from the node into STORE until it reports it has
# caught up (deadline: BENCH_INDEX_DEADLINE, default 600 s + 1 s per 2,000 txs), then stopped.
# Sets bd_ix_txs and bd_ix_secs from its "caught up with …: N txs in T s" line.
bd_index() {
	local store=$1 log=$2
	shift 2
	local deadline=${BENCH_INDEX_DEADLINE:-$((600 + bd_txs / 2000))}
	bd_ix_txs= bd_ix_secs=
	"$bd_bin" index --node "$bd_node" --store "$store" --genesis "$bd_cache/node/devnet-genesis.json" \
		--progress log "$@" >"$log" 2>&1 &
	local pid=$!
	bd_pids+=("$pid")
	if ! bd_wait_for "$deadline" "$pid" grep -q 'caught up with' "$log"; then
		echo "$name bench: snowline index did not catch up in $deadline s:" >&2
		tail -8 "$log" >&2
		bd_stop "$pid"
		return 1
	fi
	bd_stop "$pid"
	read -r bd_ix_txs bd_ix_secs < <(sed -n 's/.*caught up with .*: \([0-9]*\) txs in \([0-9.]*\) s.*/\1 \2/p' "$log" | head -1)
	[ -n "$bd_ix_txs" ]
}

# Containers the devnet holds (all five indexes), from its manifest.
bd_containers() {
	node -e 'const m=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));
		console.log(Object.values(m.containers).reduce((a,b)=>a+b,0))' "$bd_cache/node/devnet-manifest.json"
}
