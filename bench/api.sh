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

# a store for each backend: the cache's, or one indexed now
node_up() { [ -n "${bd_node:-}" ] || bd_node_start; }
stamp_note() { # dir
	[ "$(cat "$1/stamp" 2>/dev/null)" = "$(bd_stamp)" ] ||
		echo "api bench: note: the cached store in $1 was indexed by another build (BENCH_REINDEX=1 remakes it)"
}
sqlite_store() {
	local db=$bd_cache/sqlite/index.db
	if [ "${BENCH_REINDEX:-0}" = 1 ] || [ ! -f "$bd_cache/sqlite/stamp" ]; then
		echo "api bench: indexing the devnet into SQLite first"
		rm -rf "$bd_cache/sqlite" && mkdir -p "$bd_cache/sqlite"
		node_up && bd_index "$db" "$tmp/index-sqlite.log" || return 1
		bd_stamp >"$bd_cache/sqlite/stamp"
	else
		stamp_note "$bd_cache/sqlite"
	fi
	store_url=$db
}
pg_store() {
	if [ "${BENCH_REINDEX:-0}" = 1 ] || [ ! -f "$bd_cache/pg/stamp" ]; then
		echo "api bench: indexing the devnet into PostgreSQL first"
		rm -rf "$bd_cache/pg"
		bd_pg_start "$bd_cache/pg" && bd_psql "$bd_pg" -c 'CREATE DATABASE snowline' || return 1
		node_up && bd_index "${bd_pg%/postgres}/snowline" "$tmp/index-pg.log" || return 1
		bd_stamp >"$bd_cache/pg/stamp"
	else
		stamp_note "$bd_cache/pg"
		bd_pg_start "$bd_cache/pg" keep || return 1
	fi
	store_url=${bd_pg%/postgres}/snowline
}

# api_start STORE CACHE_MB: one `snowline api`; appends its port to api_ports
api_start() {
	local port log
	port=$(bd_free_port)
	log=$tmp/api-$port.log
	"$bd_bin" api --store "$1" --cache-mb "$2" --http-port "$port" --rate-anonymous 0 --log-level warn \
		>"$log" 2>&1 &
	local pid=$!
	bd_pids+=("$pid")
	if ! bd_wait_for 60 "$pid" curl -sf --max-time 2 -o /dev/null "http://127.0.0.1:$port/health"; then
		echo "api bench: snowline api did not come up:" >&2
		tail -5 "$log" >&2
		return 1
	fi
	api_ports+=("$port")
}

# save_pages CFG LIST QUERY: walk the first $pages pages of a list; writes the bodies under
# $tmp/www/CFG/LIST/ and the two path files (snowline's URLs, nginx's files) for page 1 and all.
save_pages() {
	local cfg=$1 list=$2 query=$3 port=${api_ports[0]} i=1 token= url dir=$tmp/www/$1/$2
	mkdir -p "$dir" "$tmp/paths"
	: >"$tmp/paths/$cfg-$list-all.snowline"
	: >"$tmp/paths/$cfg-$list-all.nginx"
	while [ $i -le "$pages" ]; do
		url="$base/$list?$query${token:+&pageToken=$token}"
		if ! curl -sf --max-time 30 -o "$dir/$i.json" "http://127.0.0.1:$port$url"; then
			echo "api bench: GET $url failed" >&2
			return 1
		fi
		echo "$url" >>"$tmp/paths/$cfg-$list-all.snowline"
		echo "/$cfg/$list/$i.json" >>"$tmp/paths/$cfg-$list-all.nginx"
		token=$(node -e 'const b=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));
			console.log(b.nextPageToken||"")' "$dir/$i.json")
		[ -n "$token" ] || break
		i=$((i + 1))
	done
	head -1 "$tmp/paths/$cfg-$list-all.snowline" >"$tmp/paths/$cfg-$list-first.snowline"
	head -1 "$tmp/paths/$cfg-$list-all.nginx" >"$tmp/paths/$cfg-$list-first.nginx"
	npages[$cfg-$list]=$(wc -l <"$tmp/paths/$cfg-$list-all.snowline")
	bytes[$cfg-$list-first]=$(wc -c <"$dir/1.json")
	local total n=${npages[$cfg-$list]}
	total=$(cat "$dir"/*.json | wc -c)
	bytes[$cfg-$list-all]=$((total / n))
}

# load KEY PATHFILE PORT...: wrk on each port at once (the connections split among them);
# fills rps[KEY] (summed) p50[KEY] p99[KEY] (the worst) err[KEY]
load() {
	local key=$1 pf=$2
	shift 2
	local k=$# i=0 port wpids=() t=$((threads / $#)) c=$((conns / $#)) u
	[ $t -ge 1 ] || t=1
	# warm: each URL asked once on each server first (nginx's files are in the page cache too)
	for port in "$@"; do
		while read -r u; do curl -s --max-time 30 -o /dev/null "http://127.0.0.1:$port$u"; done <"$pf"
	done
	for port in "$@"; do
		BENCH_PATHS=$pf timeout --kill-after=5 $((secs + 30)) wrk -t$t -c$c -d"${secs}s" --latency --timeout 5s \
			-s bench/api-paths.lua "http://127.0.0.1:$port" >"$tmp/wrk-$key-$i.txt" 2>&1 &
		wpids+=($!)
		i=$((i + 1))
	done
	local rc=0
	for p in "${wpids[@]}"; do wait "$p" || rc=1; done
	rps[$key]=0 p50[$key]=0 p99[$key]=0 err[$key]=
	for i in $(seq 0 $((k - 1))); do
		local out=$tmp/wrk-$key-$i.txt r a b e
		r=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
		a=$(bd_to_ms "$(awk '$1 == "50%" { print $2; exit }' "$out")")
		b=$(bd_to_ms "$(awk '$1 == "99%" { print $2; exit }' "$out")")
		e=$(grep -E '^ *(Non-2xx|Socket errors)' "$out" | sed 's/^ *//' | paste -sd ';' -)
		if [ -z "$r" ]; then
			err[$key]="no result: $(tail -2 "$out" | paste -sd ' ' -)"
			rps[$key]=
			return 1
		fi
		rps[$key]=$(awk -v x="${rps[$key]}" -v y="$r" 'BEGIN { print x + y }')
		p50[$key]=$(awk -v x="${p50[$key]}" -v y="$a" 'BEGIN { print (y > x ? y : x) }')
		p99[$key]=$(awk -v x="${p99[$key]}" -v y="$b" 'BEGIN { print (y > x ? y : x) }')
		[ -n "$e" ] && err[$key]="${err[$key]}$e "
	done
	[ $rc = 0 ] || err[$key]="${err[$key]}wrk failed"
}

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
	store_url=
	if [ $cfg = sqlite ]; then sqlite_store; else pg_store; fi || { failed=1; report+=("$label: no store"); continue; }
	api_ports=()
	ok=1
	for _ in $(seq $ninst); do api_start "$store_url" 64 || ok=0; done
	cached_ports=("${api_ports[@]}")
	for _ in $(seq $ninst); do api_start "$store_url" 0 || ok=0; done
	uncached_ports=("${api_ports[@]:$ninst}")
	[ $ok = 1 ] || { failed=1; report+=("$label: the API did not start"); continue; }
	for l in $lists; do
		q=query_$l
		save_pages $cfg $l "${!q}" || { ok=0; break; }
	done
	[ $ok = 1 ] || { failed=1; report+=("$label: a page failed"); continue; }
	# nginx: once, serving every configuration's bodies
	if [ -z "${bd_nginx_port:-}" ]; then bd_nginx_start "$tmp/www" || exit 1; fi
	nports=()
	for _ in $(seq $ninst); do nports+=("$bd_nginx_port"); done
	for l in $lists; do
		for w in first all; do
			echo "api bench: $label: $l, $([ $w = first ] && echo "page 1" || echo "pages 1-${npages[$cfg-$l]}")"
			load "nginx-$cfg-$l-$w" "$tmp/paths/$cfg-$l-$w.nginx" "${nports[@]}"
			load "snowline-$cfg-$l-$w-cache" "$tmp/paths/$cfg-$l-$w.snowline" "${cached_ports[@]}"
			load "snowline-$cfg-$l-$w-nocache" "$tmp/paths/$cfg-$l-$w.snowline" "${uncached_ports[@]}"
		done
	done
	# stop this configuration's servers before the next one shares the cores
	for p in "${bd_pids[@]}"; do
		[ "$(ps -o comm= -p "$p" 2>/dev/null)" = snowline ] && [ "$p" != "${bd_node_pid:-}" ] && bd_stop "$p"
	done
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
		printf '    %-28s %-9s %8s %9s %8s %8s %9s %8s %8s %7s  %s\n' list snowline "KB/page" "api req/s" "p50 ms" \
			"p99 ms" "nginx r/s" "p50 ms" "p99 ms" ratio aim
		for l in $lists; do
			for w in first all; do
				k=$cfg-$l-$w
				what="$l, $([ $w = first ] && echo "page 1" || echo "pages 1-${npages[$cfg-$l]}")"
				for c in cache nocache; do
					s=snowline-$k-$c
					if [ -n "${rps[$s]:-}" ] && [ -n "${rps[nginx-$k]:-}" ]; then
						awk -v w="$what" -v c="$([ $c = cache ] && echo cached || echo uncached)" -v kb="${bytes[$k]}" \
							-v a="${rps[$s]}" -v a5="${p50[$s]}" -v a9="${p99[$s]}" -v b="${rps[nginx-$k]}" \
							-v b5="${p50[nginx-$k]}" -v b9="${p99[nginx-$k]}" -v e="${err[$s]:+snowline: ${err[$s]}}${err[nginx-$k]:+nginx: ${err[nginx-$k]}}" 'BEGIN {
							r = b > 0 ? a / b : 0
							printf "    %-28s %-9s %8.1f %9.0f %8.2f %8.2f %9.0f %8.2f %8.2f %6.2fx  %s%s\n", w, c, kb / 1024, a, a5, a9, b, b5, b9, r,
								(r >= 0.3 && a9 < 10 ? "met" : "NOT met"), (e != "" ? "  (" e ")" : "") }'
					else
						printf '    %-28s %-9s %s\n' "$what" $c "not measured: ${err[$s]:-}${err[nginx-$k]:-}"
						failed=1
					fi
				done
			done
		done
		;;
	*) echo "  $r" ;;
	esac
done
exit $failed
