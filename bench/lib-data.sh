# lib-data.sh — sourced by bench/index.sh, bench/api.sh and bench/staking.sh: the big devnets
# they share, a node serving one, throwaway PostgreSQL servers, `snowline index` until it has
# caught up, and the Data API measured against nginx serving the same bodies (the generic
# helpers are bench/lib.sh's).
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
# more accounts only add genesis UTXOs) BENCH_ACCOUNTS (64) BENCH_SEED (snowline), BENCH_NETWORK
# (fuji; or mainnet, whose ids the devnet then carries: the same history).
# The caller sets `name` (for messages) and `tmp` (its scratch directory), and calls bd_cleanup
# from its EXIT trap: every process started here and every PostgreSQL server is stopped.

bd_txs=${BENCH_TXS:-3000000}
bd_accounts=${BENCH_ACCOUNTS:-64}
bd_seed=${BENCH_SEED:-snowline}
bd_network=${BENCH_NETWORK:-fuji}
bd_bin=${SNOWLINE_BIN:-build/snowline}
bd_pg_bin=/usr/lib/postgresql/15/bin
for v in bd_txs bd_accounts; do
	case "${!v}" in '' | *[!0-9]*) echo "$name bench: ${v#bd_} must be a number" >&2; exit 2 ;; esac
done
case "$bd_network" in
fuji) bd_network_id=5 ;;
mainnet) bd_network_id=1 ;;
*) echo "$name bench: BENCH_NETWORK: fuji or mainnet" >&2; exit 2 ;;
esac
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
	"$bd_bin" node --data-dir "$bd_cache/node" --index-enabled --network-id "$bd_network_id" --http-port 0 \
		--log-dir "$tmp/node-logs" >"$log" 2>&1 &
	bd_node_pid=$!
	bd_pids+=("$bd_node_pid")
	local port=
	# its first start on a devnet just made indexes every container first (80 s for 3M txs' 1.4M)
	bd_wait_for 600 "$bd_node_pid" grep -q 'listening on http' "$log" &&
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

# --- The Data API against nginx (bench/api.sh, bench/staking.sh) ---
# The caller sets secs, conns and threads (wrk's duration, connections and threads) and declares
# the associative arrays rps p50 p99 err npages bytes.

bd_node_up() { [ -n "${bd_node:-}" ] || bd_node_start; }

bd_stamp_note() { # DIR
	[ "$(cat "$1/stamp" 2>/dev/null)" = "$(bd_stamp)" ] ||
		echo "$name bench: note: the cached store in $1 was indexed by another build (BENCH_REINDEX=1 remakes it)"
}

# bd_sqlite_store, bd_pg_store: the cache's store of that backend, or one indexed now (BENCH_REINDEX=1:
# always); sets bd_store (its --store value). bd_pg_store leaves its server running.
bd_sqlite_store() {
	local db=$bd_cache/sqlite/index.db
	if [ "${BENCH_REINDEX:-0}" = 1 ] || [ ! -f "$bd_cache/sqlite/stamp" ]; then
		echo "$name bench: indexing the devnet into SQLite first"
		rm -rf "$bd_cache/sqlite" && mkdir -p "$bd_cache/sqlite"
		bd_node_up && bd_index "$db" "$tmp/index-sqlite.log" || return 1
		bd_stamp >"$bd_cache/sqlite/stamp"
	else
		bd_stamp_note "$bd_cache/sqlite"
	fi
	bd_store=$db
}
bd_pg_store() {
	if [ "${BENCH_REINDEX:-0}" = 1 ] || [ ! -f "$bd_cache/pg/stamp" ]; then
		echo "$name bench: indexing the devnet into PostgreSQL first"
		rm -rf "$bd_cache/pg"
		bd_pg_start "$bd_cache/pg" && bd_psql "$bd_pg" -c 'CREATE DATABASE snowline' || return 1
		bd_node_up && bd_index "${bd_pg%/postgres}/snowline" "$tmp/index-pg.log" || return 1
		bd_stamp >"$bd_cache/pg/stamp"
	else
		bd_stamp_note "$bd_cache/pg"
		bd_pg_start "$bd_cache/pg" keep || return 1
	fi
	bd_store=${bd_pg%/postgres}/snowline
}

# bd_api_start STORE CACHE_MB: one `snowline api` (no rate limit, no access log); appends its port
# to bd_api_ports.
bd_api_start() {
	local port log
	port=$(bd_free_port)
	log=$tmp/api-$port.log
	"$bd_bin" api --store "$1" --cache-mb "$2" --http-port "$port" --rate-anonymous 0 --log-level warn \
		>"$log" 2>&1 &
	local pid=$!
	bd_pids+=("$pid")
	if ! bd_wait_for 60 "$pid" curl -sf --max-time 2 -o /dev/null "http://127.0.0.1:$port/health"; then
		echo "$name bench: snowline api did not come up:" >&2
		tail -5 "$log" >&2
		return 1
	fi
	bd_api_ports+=("$port")
}

# bd_api_stop: every `snowline api` this bench started (the node keeps running).
bd_api_stop() {
	local p
	for p in "${bd_pids[@]}"; do
		[ "$(ps -o comm= -p "$p" 2>/dev/null)" = snowline ] && [ "$p" != "${bd_node_pid:-}" ] && bd_stop "$p"
	done
	bd_api_ports=()
}

# bd_save_pages KEY URL PAGES: walk the first PAGES pages of the list at URL (a path with its query)
# on the first of bd_api_ports, following nextPageToken. The bodies go to $tmp/www/KEY/<n>.json
# (KEY may hold slashes); the path files $tmp/paths/<KEY, slashes as dashes>-all.snowline (the
# API's URLs, tokens and all) and -all.nginx (the files with the same bodies), and -first.* (page 1
# only). Sets npages[KEY], bytes[KEY-first] (page 1's size) and bytes[KEY-all] (the mean size).
bd_save_pages() {
	local key=$1 base=$2 max=$3 port=${bd_api_ports[0]} i=1 token= url dir=$tmp/www/$1 pf
	pf=$tmp/paths/${key//\//-}
	mkdir -p "$dir" "$tmp/paths"
	: >"$pf-all.snowline"
	: >"$pf-all.nginx"
	while [ $i -le "$max" ]; do
		url="$base${token:+&pageToken=$token}"
		if ! curl -sf --max-time 60 -o "$dir/$i.json" "http://127.0.0.1:$port$url"; then
			echo "$name bench: GET $url failed: $(curl -s --max-time 60 "http://127.0.0.1:$port$url" | head -c 300)" >&2
			return 1
		fi
		echo "$url" >>"$pf-all.snowline"
		echo "/$key/$i.json" >>"$pf-all.nginx"
		token=$(node -e 'const b=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));
			console.log(b.nextPageToken||"")' "$dir/$i.json")
		[ -n "$token" ] || break
		i=$((i + 1))
	done
	head -1 "$pf-all.snowline" >"$pf-first.snowline"
	head -1 "$pf-all.nginx" >"$pf-first.nginx"
	npages[$key]=$(wc -l <"$pf-all.snowline")
	bytes[$key-first]=$(wc -c <"$dir/1.json")
	local total
	total=$(cat "$dir"/*.json | wc -c)
	bytes[$key-all]=$((total / npages[$key]))
}

# bd_load KEY PATHFILE PORT...: wrk (bench/api-paths.lua over PATHFILE's paths) on each port at
# once, the connections and threads split among them; fills rps[KEY] (summed), p50[KEY] and
# p99[KEY] (the worst of them) and err[KEY]. Each path is asked once of each port first, so no
# server starts cold (nginx's files are in the page cache too).
bd_load() {
	local key=$1 pf=$2
	shift 2
	local k=$# i=0 port wpids=() t=$((threads / $#)) c=$((conns / $#)) u
	[ $t -ge 1 ] || t=1
	for port in "$@"; do
		while read -r u; do curl -s --max-time 60 -o /dev/null "http://127.0.0.1:$port$u"; done <"$pf"
	done
	for port in "$@"; do
		BENCH_PATHS=$pf timeout --kill-after=5 $((secs + 30)) wrk -t$t -c$c -d"${secs}s" --latency --timeout 5s \
			-s bench/api-paths.lua "http://127.0.0.1:$port" >"$tmp/wrk-$key-$i.txt" 2>&1 &
		wpids+=($!)
		i=$((i + 1))
	done
	local rc=0 p
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

# bd_table_head: the column heads of bd_table_row's lines (bd_what: the first column's width, 30).
bd_table_head() {
	printf "    %-${bd_what:-30}s"' %-9s %8s %9s %8s %8s %9s %8s %8s %7s  %s\n' what snowline "KB/page" "api req/s" "p50 ms" \
		"p99 ms" "nginx r/s" "p50 ms" "p99 ms" ratio aim
}

# bd_table_row WHAT VARIANT SNOWLINE_KEY NGINX_KEY BYTES: one line of the table (the aim: at least
# 0.3x nginx's req/s with a p99 under 10 ms); returns 1 when either was not measured.
bd_table_row() {
	local what=$1 v=$2 s=$3 n=$4 kb=$5
	if [ -z "${rps[$s]:-}" ] || [ -z "${rps[$n]:-}" ]; then
		printf "    %-${bd_what:-30}s"' %-9s %s\n' "$what" "$v" "not measured: ${err[$s]:-}${err[$n]:-}"
		return 1
	fi
	awk -v ww="${bd_what:-30}" -v w="$what" -v c="$v" -v kb="$kb" -v a="${rps[$s]}" -v a5="${p50[$s]}" -v a9="${p99[$s]}" \
		-v b="${rps[$n]}" -v b5="${p50[$n]}" -v b9="${p99[$n]}" \
		-v e="${err[$s]:+snowline: ${err[$s]}}${err[$n]:+nginx: ${err[$n]}}" 'BEGIN {
		r = b > 0 ? a / b : 0
		printf "    %-" ww "s %-9s %8.1f %9.0f %8.2f %8.2f %9.0f %8.2f %8.2f %6.2fx  %s%s\n", w, c, kb / 1024, a, a5, a9, b, b5, b9, r,
			(r >= 0.3 && a9 < 10 ? "met" : "NOT met"), (e != "" ? "  (" e ")" : "") }'
}
