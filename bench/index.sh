#!/usr/bin/env bash
# index.sh — how fast `snowline index` fills each store from a node over loopback, beside what
# the node and the decoder alone allow.
#
# The data: a devnet of BENCH_TXS txs (default 3,000,000: with ~1.7 UTXOs per tx that is the
# 5M UTXOs bench/api.sh needs; bench/lib-data.sh makes it once and caches it), served by a plain
# `snowline node` on its store. Then, one after the other, each timed by the indexer's own
# "caught up with …: N txs in T s" (from its start, genesis included, until the store holds
# every container the node has):
#   fetch-only  `snowline index --dry-run`: the same fetchers, HTTP client, decoding and row
#               derivation, with no store. This is the baseline: the rate the node and the
#               decoder allow on this machine in this run, so store/baseline says what the
#               store costs. (avalanchejs on the same containers is bench/decode.sh's
#               baseline; it parses P and X txs only and writes nothing, so it says nothing
#               about a store.)
#   SQLite      into a new SQLite file (the default store)
#   PostgreSQL  into a new database of a PostgreSQL 15 started here (fsync and synchronous
#               commit on, as a real store would run; scripts/pg-test-server.sh)
# and prints seconds, txs/s (txs the store holds: P, X and the C-chain's atomic txs; the
# devnet's EVM-only C-chain txs are read but not stored) and containers/s, against the aim of
# 20,000 txs/s into SQLite. The two stores stay in the cache for bench/api.sh.
#
# Knobs: BENCH_TXS (3000000) BENCH_ACCOUNTS (64) BENCH_CACHE BENCH_FRESH=1 (lib-data.sh)
# BENCH_INDEX_STORES ("sqlite postgres") BENCH_INDEX_DEADLINE (s, per pass) SNOWLINE_BIN
# BENCH_KEEP=1 keeps the scratch directory (logs). Every wait has a deadline; the node, the
# indexer and PostgreSQL are stopped on any exit.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
name=index
stores=${BENCH_INDEX_STORES:-sqlite postgres}
for tool in node curl sqlite3; do
	command -v $tool >/dev/null 2>&1 || { echo "index bench: $tool not found (run scripts/deps.sh)" >&2; exit 1; }
done
# shellcheck source=bench/lib-data.sh
. bench/lib-data.sh
[ -x "$bd_bin" ] || { echo "index bench: $bd_bin not built (make build/snowline)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/snowline-index-bench.XXXXXX")
cleanup() {
	bd_cleanup
	if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "index bench: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bd_devnet || exit 1
bd_node_start || exit 1
containers=$(bd_containers)

declare -A secs txs note
failed=0
run() { # pass store-label store [args]
	local pass=$1 store=$2
	shift 2
	echo "index bench: $pass ..."
	if bd_index "$store" "$tmp/index-$pass.log" "$@"; then
		secs[$pass]=$bd_ix_secs
		txs[$pass]=$bd_ix_txs
	else
		note[$pass]="failed (see above)"
		failed=1
	fi
}

run fetch-only "$tmp/unused.db" --dry-run

for s in $stores; do
	case $s in
	sqlite)
		rm -rf "$bd_cache/sqlite" && mkdir -p "$bd_cache/sqlite"
		run SQLite "$bd_cache/sqlite/index.db"
		if [ -n "${secs[SQLite]:-}" ]; then
			bd_stamp >"$bd_cache/sqlite/stamp"
			note[SQLite]="$(sqlite3 "$bd_cache/sqlite/index.db" 'SELECT count(*) FROM utxos') UTXOs, $(du -sm "$bd_cache/sqlite" | cut -f1) MB"
		fi
		;;
	postgres)
		rm -rf "$bd_cache/pg"
		if bd_pg_start "$bd_cache/pg" && bd_psql "$bd_pg" -c 'CREATE DATABASE snowline'; then
			run PostgreSQL "${bd_pg%/postgres}/snowline"
			if [ -n "${secs[PostgreSQL]:-}" ]; then
				bd_stamp >"$bd_cache/pg/stamp"
				note[PostgreSQL]="$(bd_psql "${bd_pg%/postgres}/snowline" -c 'SELECT count(*) FROM utxos') UTXOs, $(bd_psql "${bd_pg%/postgres}/snowline" -c "SELECT pg_database_size('snowline') / 1048576") MB"
			fi
			scripts/pg-test-server.sh stop "$bd_cache/pg"
		else
			note[PostgreSQL]="PostgreSQL did not start"
			failed=1
		fi
		;;
	*) echo "index bench: unknown store '$s' in BENCH_INDEX_STORES" >&2; exit 2 ;;
	esac
done

echo
echo "Indexing from a node over loopback: devnet ($bd_network) of $bd_txs txs, $containers containers; $(nproc) cores shared"
printf '  %-11s %9s %11s %13s %10s  %s\n' pass seconds "txs/s" "containers/s" "/fetch-only" note
for p in fetch-only SQLite PostgreSQL; do
	[ "$p" = fetch-only ] || [[ " $stores " == *" $([ $p = SQLite ] && echo sqlite || echo postgres) "* ]] || continue
	if [ -n "${secs[$p]:-}" ]; then
		awk -v p="$p" -v s="${secs[$p]}" -v t="${txs[$p]}" -v c="$containers" -v b="${secs[fetch-only]:-0}" -v n="${note[$p]:-}" 'BEGIN {
			printf "  %-11s %9.1f %11.0f %13.0f %10s  %s\n", p, s, t / s, c / s, (b > 0 ? sprintf("%.2fx", b / s) : "-"), n }'
	else
		printf '  %-11s %9s %11s %13s %10s  %s\n' "$p" - - - - "${note[$p]:-not run}"
	fi
done
[ -n "${txs[SQLite]:-}" ] && echo "  (txs: the ${txs[SQLite]} the store holds — P, X and C-chain atomic txs)"
if [ -n "${secs[SQLite]:-}" ]; then
	awk -v s="${secs[SQLite]}" -v t="${txs[SQLite]}" 'BEGIN {
		r = t / s; printf "  aim: at least 20,000 txs/s into SQLite: %s (%.0f)\n", (r >= 20000 ? "met" : "NOT met"), r }'
fi
exit $failed
