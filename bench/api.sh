#!/usr/bin/env bash
# api.sh — the Data API's two busiest lists against nginx serving the same bodies.
#
# On the store bench/index.sh leaves (a devnet of BENCH_TXS txs, default 3,000,000: ~2.2M txs
# and ~5.1M UTXOs in the store; made here, with the indexer, when the cache has none), for the
# X-chain address of the devnet's first account (every one of its 64 accounts is about as busy):
#   GET …/x-chain/utxos?addresses=A&pageSize=100          (unspent, oldest first: the defaults)
#   GET …/x-chain/transactions?addresses=A&pageSize=100   (latest first)
# each as "page 1" (the same URL again and again) and as "pages 1-N" (the first BENCH_API_PAGES
# pages, walked once with their nextPageToken beforehand; wrk cycles through those URLs, tokens
# and all). The bodies of all of them are saved from the API and served by nginx as static files
# (2 workers, sendfile, access log off: bench/http.sh's setup), requested in the same order.
# Load: wrk --latency, BENCH_CONNECTIONS (64) connections for BENCH_SECONDS (10) s, nginx
# first, then snowline; printed: req/s, p50, p99 and snowline/nginx, against the aim of at
# least 0.3x nginx's req/s with a p99 under 10 ms.
#   SQLite      one `snowline api` (HTTP threads: one per core, each with its own connection)
#   PostgreSQL  two `snowline api` on the same database, each given half the connections by its
#               own wrk (two wrk processes at once; req/s summed, p99 the worse of the two). No
#               proxy in front: on two cores a balancer would be a third server sharing them.
#               nginx gets the same split (two wrk processes, half the connections each).
# API servers run with --rate-anonymous 0 (no rate limit) and --log-level warn (no access log,
# as nginx's is off). Each configuration is measured twice: with the response cache (the
# default: a page already made is served again until the store changes; every 10 s one request
# makes it again while the others still get the old one; wrk asks for the same URLs again and
# again, so nearly every request is a hit) and without it (--cache-mb 0: every request reads the store and renders its page). The
# aim is judged on both rows. Before each wrk run every URL is asked once of each server (nginx
# included), so neither starts cold.
#
# Knobs: BENCH_TXS BENCH_ACCOUNTS BENCH_CACHE BENCH_FRESH (lib-data.sh) BENCH_API_STORES
# ("sqlite postgres") BENCH_API_PAGES (20) BENCH_SECONDS (10) BENCH_CONNECTIONS (64)
# BENCH_THREADS (2) BENCH_REINDEX=1 (index again even when the cache holds a store)
# SNOWLINE_BIN; BENCH_KEEP=1 keeps the scratch directory. Every wait has a deadline, wrk runs
# under `timeout`, and every server is stopped on any exit.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
name=api
stores=${BENCH_API_STORES:-sqlite postgres}
pages=${BENCH_API_PAGES:-20}
secs=${BENCH_SECONDS:-10}
conns=${BENCH_CONNECTIONS:-64}
threads=${BENCH_THREADS:-2}
for v in pages secs conns threads; do
	case "${!v}" in '' | 0 | *[!0-9]*) echo "api bench: $v must be a positive number" >&2; exit 2 ;; esac
done
for tool in wrk nginx curl node sqlite3; do
	command -v $tool >/dev/null 2>&1 || { echo "api bench: $tool not found (run scripts/deps.sh)" >&2; exit 1; }
done
# shellcheck source=bench/lib-data.sh
. bench/lib-data.sh
[ -x "$bd_bin" ] || { echo "api bench: $bd_bin not built (make build/snowline)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/snowline-api-bench.XXXXXX")
cleanup() {
	bd_cleanup
	if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "api bench: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bd_devnet || exit 1
addr=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).accounts[0].xAddress)' \
	"$bd_cache/node/devnet-manifest.json") || exit 1
base=/v1/networks/$bd_network/blockchains/x-chain

declare -A rps p50 p99 err npages bytes
failed=0
lists="utxos transactions"
query_utxos="addresses=$addr&pageSize=100"
query_transactions="addresses=$addr&pageSize=100"
report=()

for s in $stores; do
	case $s in
	sqlite) cfg=sqlite label="SQLite, one snowline api" ninst=1 ;;
	postgres) cfg=postgres label="PostgreSQL, two snowline api" ninst=2 ;;
	*) echo "api bench: unknown store '$s' in BENCH_API_STORES" >&2; exit 2 ;;
	esac
	bd_store=
	if [ $cfg = sqlite ]; then bd_sqlite_store; else bd_pg_store; fi || { failed=1; report+=("$label: no store"); continue; }
	bd_api_ports=()
	ok=1
	for _ in $(seq $ninst); do bd_api_start "$bd_store" 64 || ok=0; done
	cached_ports=("${bd_api_ports[@]}")
	for _ in $(seq $ninst); do bd_api_start "$bd_store" 0 || ok=0; done
	uncached_ports=("${bd_api_ports[@]:$ninst}")
	[ $ok = 1 ] || { failed=1; report+=("$label: the API did not start"); continue; }
	for l in $lists; do
		q=query_$l
		bd_save_pages "$cfg/$l" "$base/$l?${!q}" "$pages" || { ok=0; break; }
	done
	[ $ok = 1 ] || { failed=1; report+=("$label: a page failed"); continue; }
	# nginx: once, serving every configuration's bodies
	if [ -z "${bd_nginx_port:-}" ]; then bd_nginx_start "$tmp/www" || exit 1; fi
	nports=()
	for _ in $(seq $ninst); do nports+=("$bd_nginx_port"); done
	for l in $lists; do
		for w in first all; do
			echo "api bench: $label: $l, $([ $w = first ] && echo "page 1" || echo "pages 1-${npages[$cfg/$l]}")"
			bd_load "nginx-$cfg-$l-$w" "$tmp/paths/$cfg-$l-$w.nginx" "${nports[@]}"
			bd_load "snowline-$cfg-$l-$w-cache" "$tmp/paths/$cfg-$l-$w.snowline" "${cached_ports[@]}"
			bd_load "snowline-$cfg-$l-$w-nocache" "$tmp/paths/$cfg-$l-$w.snowline" "${uncached_ports[@]}"
		done
	done
	# stop this configuration's servers before the next one shares the cores
	bd_api_stop
	[ $cfg = postgres ] && scripts/pg-test-server.sh stop "$bd_cache/pg"
	report+=("$cfg")
done

echo
echo "Data API against nginx serving the same bodies: X-chain address $addr of a devnet of $bd_txs txs"
echo "wrk -c$conns -d${secs}s --latency, keep-alive, loopback, $(nproc) cores shared; aim: >= 0.3x nginx, p99 < 10 ms"
for r in "${report[@]}"; do
	case $r in
	sqlite | postgres)
		cfg=$r
		[ $cfg = sqlite ] && echo "  SQLite, one snowline api:" || echo "  PostgreSQL, two snowline api (wrk split across both; nginx likewise):"
		bd_table_head
		for l in $lists; do
			for w in first all; do
				what="$l, $([ $w = first ] && echo "page 1" || echo "pages 1-${npages[$cfg/$l]}")"
				for c in cache nocache; do
					bd_table_row "$what" "$([ $c = cache ] && echo cached || echo uncached)" "snowline-$cfg-$l-$w-$c" \
						"nginx-$cfg-$l-$w" "${bytes[$cfg/$l-$w]}" || failed=1
				done
			done
		done
		;;
	*) echo "  $r" ;;
	esac
done
exit $failed
