#!/usr/bin/env bash
# evm.sh — issue #13's bench: the EVM indexer's rate from anvil over loopback, and getDeployment
# and ICM messages against nginx serving the same bodies.
#
# (a) Indexing. bench/evm-seed.mjs starts two anvil chains (the project's own test contracts,
#     tests/e2e/evm-lib.mjs) and fills them: chain A with BENCH_EVM_BLOCKS (2000) blocks of
#     BENCH_EVM_TXS_PER_BLOCK (50) txs (native, ERC-20, ERC-721 and ERC-1155 transfers, contracts
#     created by a factory, ICM messages to B), chain B with their deliveries by the relayer, one
#     block per BENCH_EVM_RELAY_EVERY (10) blocks of A. Seeding takes about a minute per 50,000
#     txs; nothing is cached. Then, per store: `snowline index --no-primary --evm-chain A
#     --evm-chain B` into a new store until both chains report "caught up"; the time is the
#     indexer's own log's, from its first line to the last chain's caught-up line (the store must
#     then hold every seeded tx, or the row is not measured). Baseline: the
#     same JSON-RPC reads (eth_getBlockByNumber with txs, eth_getBlockReceipts,
#     debug_traceBlockByNumber with the callTracer) by curl with the indexer's concurrency (one
#     request at a time per chain on a keep-alive connection, chains at once), the answers
#     discarded: anvil's and the transport's share, no parsing and no store. The indexer also
#     asks eth_call of each new token (name, symbol, decimals); the baseline does not. The
#     baseline runs before and after the indexers (the two show how steady anvil is);
#     ratio: the second baseline's time / the indexer's (1.00x: the store and the
#     parsing cost nothing; anvil's tracing is most of the time at these sizes).
# (b) The API. A small devnet's primary network (BENCH_EVM_DEVNET_TXS, 30 txs; lib-data.sh's
#     cache) is indexed into the store too, beside the EVM chains, as a deployment's store holds
#     both (a store of EVM chains alone is served as well, since e52e5c8). As bench/staking.sh:
#     the bodies of
#       GET /v1/chains/99911/contracts/C/transactions:getDeployment  for BENCH_EVM_DEPLOYMENTS (20)
#           contracts (the four deployed directly, the rest created by the factory: CREATE and
#           CREATE2; each resolves to its outer tx), one row cycling through all of them;
#       GET /v1/icm/addresses/A/messages?pageSize=100  for the busiest sender and for the
#           receiver on B (every message), the first BENCH_EVM_PAGES (5) pages;
#     are saved and served by nginx; wrk --latency at BENCH_CONNECTIONS (64) for BENCH_SECONDS
#     (10) s on both; SQLite (one `snowline api`) and PostgreSQL (two, each with half the
#     connections, nginx likewise), with the response cache (the default) and without
#     (--cache-mb 0: the EVM routes are cacheable since 1ed61f1, the cache's generation counting
#     the EVM cursors, so the two differ); req/s, p50, p99 and snowline/nginx (aim: >= 0.3x,
#     p99 < 10 ms).
#
# Knobs: BENCH_EVM_BLOCKS BENCH_EVM_TXS_PER_BLOCK BENCH_EVM_RELAY_EVERY BENCH_EVM_STORES
# ("sqlite postgres") BENCH_EVM_DEPLOYMENTS BENCH_EVM_PAGES BENCH_EVM_DEVNET_TXS BENCH_EVM_API=0
# (indexing only) BENCH_INDEX_DEADLINE BENCH_SECONDS BENCH_CONNECTIONS BENCH_THREADS BENCH_CACHE
# SNOWLINE_BIN; BENCH_KEEP=1 keeps the scratch directory.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
name=evm
stores=${BENCH_EVM_STORES:-sqlite postgres}
blocks=${BENCH_EVM_BLOCKS:-2000}
per_block=${BENCH_EVM_TXS_PER_BLOCK:-50}
ndep=${BENCH_EVM_DEPLOYMENTS:-20}
pages=${BENCH_EVM_PAGES:-5}
do_api=${BENCH_EVM_API:-1}
secs=${BENCH_SECONDS:-10}
conns=${BENCH_CONNECTIONS:-64}
threads=${BENCH_THREADS:-2}
for v in blocks per_block ndep pages secs conns threads; do
	case "${!v}" in '' | 0 | *[!0-9]*) echo "evm bench: $v must be a positive number" >&2; exit 2 ;; esac
done
for tool in wrk nginx curl node; do
	command -v $tool >/dev/null 2>&1 || { echo "evm bench: $tool not found (run scripts/deps.sh)" >&2; exit 1; }
done
[ -x tests/e2e/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil ] ||
	{ echo "evm bench: anvil not installed (cd tests/e2e && npm ci)" >&2; exit 1; }
BENCH_TXS=${BENCH_EVM_DEVNET_TXS:-30}
BENCH_ACCOUNTS=4
BENCH_NETWORK=fuji
# shellcheck source=bench/lib-data.sh
. bench/lib-data.sh
[ -x "$bd_bin" ] || { echo "evm bench: $bd_bin not built (make build/snowline)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/snowline-evm-bench.XXXXXX")
chmod a+rx "$tmp" # PostgreSQL runs as its own user under it
cleanup() {
	bd_cleanup
	if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "evm bench: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the chains
world=$tmp/world.json
deadline=$((300 + blocks * per_block / 50))
echo "evm bench: seeding two anvil chains: $blocks blocks of $per_block txs (up to $deadline s)"
BENCH_EVM_BLOCKS=$blocks BENCH_EVM_TXS_PER_BLOCK=$per_block node bench/evm-seed.mjs seed "$world" >"$tmp/seed.log" 2>&1 &
seed_pid=$!
bd_pids+=("$seed_pid")
if ! bd_wait_for "$deadline" "$seed_pid" test -f "$world"; then
	echo "evm bench: seeding failed:" >&2
	tail -5 "$tmp/seed.log" >&2
	exit 1
fi
grep 'ready in' "$tmp/seed.log" | sed 's/^evm-seed: /evm bench: seeded, /'
# per chain: evmChainId url head blocks txs blockchainId; then the messenger, contracts, ICM addresses
jq_world() { node -e "const w=JSON.parse(require('fs').readFileSync('$world','utf8'));$1"; }
mapfile -t chains < <(jq_world 'for (const c of w.chains) console.log([c.evmChainId, c.url, c.head, c.blocks, c.txs, c.blockchainId, c.name.replace(/ /g, "-")].join(" "))')
messenger=$(jq_world 'console.log(w.messenger)')
specs=() total_blocks=0 total_txs=0 desc=()
for c in "${chains[@]}"; do
	read -r id url head nb nt bc cname <<<"$c"
	specs+=(--evm-chain "id=$id,rpc=$url,name=$cname,blockchain=$bc,icm=$messenger,network=fuji")
	total_blocks=$((total_blocks + nb)) total_txs=$((total_txs + nt))
	desc+=("$cname $nb blocks, $nt txs")
done
nchains=${#chains[@]}

# --- (a) indexing: the baseline, then each store
# The baseline: curl, one keep-alive connection per chain, the chains at once, asking what the
# indexer asks (eth_getBlockByNumber with txs for every block; eth_getBlockReceipts and
# debug_traceBlockByNumber with the callTracer for every block but genesis, the only one without
# txs), the answers discarded.
declare -A ix_ms
echo "evm bench: baseline: the indexer's JSON-RPC reads by curl, no store"
i=0
for c in "${chains[@]}"; do
	read -r id url head _ <<<"$c"
	node -e '
		const [url, head] = [process.argv[1], Number(process.argv[2])];
		const q = (m, p) => JSON.stringify(JSON.stringify({ jsonrpc: "2.0", id: 1, method: m, params: p }));
		const out = [];
		for (let n = 0; n <= head; n++) {
			const h = "0x" + n.toString(16);
			const calls = [q("eth_getBlockByNumber", [h, true])];
			if (n > 0) calls.push(q("eth_getBlockReceipts", [h]), q("debug_traceBlockByNumber", [h, { tracer: "callTracer" }]));
			for (const d of calls) out.push(`url = "${url}"`, `data = ${d}`, "output = \"/dev/null\"",
				"header = \"Content-Type: application/json\"", "fail", "next");
		}
		out.pop();
		console.log(out.join("\n"));' "$url" "$head" >"$tmp/read-$i.curl"
	i=$((i + 1))
done
# baseline KEY: the reads, timed into ix_ms[KEY]
baseline() {
	local t0 p ok=1 f rpids=()
	t0=$(date +%s%N)
	for f in "$tmp"/read-*.curl; do
		timeout 3600 curl -s -K "$f" >"$f.out" 2>&1 &
		rpids+=($!)
	done
	for p in "${rpids[@]}"; do wait "$p" || ok=0; done
	if [ $ok = 1 ]; then
		ix_ms[$1]=$((($(date +%s%N) - t0) / 1000000))
	else
		echo "evm bench: the baseline failed (curl)" >&2
	fi
}
baseline baseline_cold

# evm_index STORE LOG: the EVM indexer into STORE until every chain is caught up; sets ix_took (ms)
evm_index() {
	local store=$1 log=$2 dl=${BENCH_INDEX_DEADLINE:-$((600 + total_txs / 50))}
	ix_took=
	"$bd_bin" index --no-primary --store "$store" --progress log "${specs[@]}" >"$log" 2>&1 &
	local pid=$!
	bd_pids+=("$pid")
	caught() { [ "$(grep -c 'caught up$' "$log")" -ge "$nchains" ]; }
	if ! bd_wait_for "$dl" "$pid" caught; then
		echo "evm bench: snowline index did not catch up in $dl s:" >&2
		tail -8 "$log" >&2
		bd_stop "$pid"
		return 1
	fi
	bd_stop "$pid"
	ix_took=$(node -e '
		const ls = require("fs").readFileSync(process.argv[1], "utf8").split("\n");
		const t = (l) => Date.parse(l.slice(1, l.indexOf("]")));
		const first = ls.find((l) => l.startsWith("["));
		const up = ls.filter((l) => / caught up$/.test(l));
		console.log(t(up[up.length - 1]) - t(first));' "$log")
	grep -q 'ERROR' "$log" && { echo "evm bench: the indexer logged errors:" >&2; grep ERROR "$log" | head -3 >&2; }
	[ -n "$ix_took" ]
}

bd_devnet || exit 1
storeurl=()
for s in $stores; do
	case $s in
	sqlite)
		st=$tmp/sqlite/index.db
		mkdir -p "$tmp/sqlite"
		;;
	postgres)
		bd_pg_start "$tmp/pg" && bd_psql "$bd_pg" -c 'CREATE DATABASE snowline' || { echo "evm bench: no PostgreSQL" >&2; continue; }
		st=${bd_pg%/postgres}/snowline
		;;
	*) echo "evm bench: unknown store '$s' in BENCH_EVM_STORES" >&2; exit 2 ;;
	esac
	echo "evm bench: indexing into $s"
	evm_index "$st" "$tmp/index-$s.log" || continue
	# every seeded tx must be in the store
	q='SELECT count(*) FROM evm_txs'
	if [ $s = sqlite ]; then n=$(sqlite3 "$st" "$q"); else n=$(bd_psql "$st" -c "$q"); fi
	if [ "$n" != "$total_txs" ]; then
		echo "evm bench: $s holds $n txs, not the $total_txs seeded" >&2
		continue
	fi
	ix_ms[$s]=$ix_took
	if [ "$do_api" = 1 ]; then
		# the small devnet's primary network beside the EVM chains, as a deployment's store holds both
		bd_node_up && bd_index "$st" "$tmp/index-primary-$s.log" || { echo "evm bench: the devnet's index failed" >&2; continue; }
	fi
	storeurl+=("$s|$st")
	[ $s = postgres ] && [ "$do_api" != 1 ] && scripts/pg-test-server.sh stop "$tmp/pg"
done

echo "evm bench: the baseline again"
baseline baseline

rate() { awk -v n="$1" -v ms="$2" 'BEGIN { printf "%.0f", (ms > 0 ? n * 1000 / ms : 0) }'; }
ix_report() {
	echo "EVM indexing from anvil over loopback: $(IFS=';'; echo "${desc[*]}" | sed 's/;/; /g'); in all $total_blocks blocks, $total_txs txs;"
	echo "one request at a time per chain, chains at once; $(nproc) cores shared"
	printf '    %-46s %9s %9s %9s %7s\n' what "seconds" "blocks/s" "txs/s" ratio
	local k label b=${ix_ms[baseline]:-}
	for k in baseline_cold baseline $stores; do
		case $k in
		baseline_cold) label="baseline: the same reads by curl, first" ;;
		baseline) label="baseline: again, after the indexers (ratio's)" ;;
		sqlite) label="snowline index --no-primary, SQLite" ;;
		postgres) label="snowline index --no-primary, PostgreSQL 15" ;;
		esac
		if [ -z "${ix_ms[$k]:-}" ]; then
			printf '    %-46s %s\n' "$label" "not measured"
			continue
		fi
		printf '    %-46s %9.1f %9s %9s %7s\n' "$label" "$(awk -v m="${ix_ms[$k]}" 'BEGIN { print m / 1000 }')" \
			"$(rate $total_blocks "${ix_ms[$k]}")" "$(rate $total_txs "${ix_ms[$k]}")" \
			"$([ -n "$b" ] && awk -v a="$b" -v m="${ix_ms[$k]}" 'BEGIN { printf "%.2fx", a / m }')"
	done
}
failed=0
[ -n "${ix_ms[baseline]:-}" ] && [ -n "${ix_ms[baseline_cold]:-}" ] || failed=1
for s in $stores; do [ -n "${ix_ms[$s]:-}" ] || failed=1; done
if [ "$do_api" != 1 ]; then
	echo
	ix_report
	exit $failed
fi

# --- (b) the API against nginx
declare -A rps p50 p99 err npages bytes
bd_what=44
report=()
deps=$(jq_world "console.log([...w.deployments.direct, ...w.deployments.factory].slice(0, $ndep).join(' '))")
receiver=$(jq_world 'console.log(w.receiver)')
sender=$(jq_world 'console.log(w.icm[0].address)')
chain_a=$(echo "${chains[0]}" | cut -d' ' -f1)
# deployments KEY: every contract's getDeployment body, one path file cycling through them
save_deployments() {
	local key=$1 port=${bd_api_ports[0]} i=0 a pf=$tmp/paths/${1//\//-} dir=$tmp/www/$1 url
	mkdir -p "$dir" "$tmp/paths"
	: >"$pf-all.snowline"
	: >"$pf-all.nginx"
	for a in $deps; do
		i=$((i + 1))
		url=/v1/chains/$chain_a/contracts/$a/transactions:getDeployment
		if ! curl -sf --max-time 60 -o "$dir/$i.json" "http://127.0.0.1:$port$url"; then
			echo "evm bench: GET $url failed: $(curl -s --max-time 60 "http://127.0.0.1:$port$url" | head -c 300)" >&2
			return 1
		fi
		echo "$url" >>"$pf-all.snowline"
		echo "/$key/$i.json" >>"$pf-all.nginx"
	done
	npages[$key]=$i
	bytes[$key-all]=$(($(cat "$dir"/*.json | wc -c) / i))
}
rows=("getDeployment, $(echo $deps | wc -w) contracts" "ICM messages, busiest sender" "ICM messages, the receiver on B")
for sv in "${storeurl[@]}"; do
	cfg=${sv%%|*} st=${sv#*|}
	case $cfg in
	sqlite) label="SQLite, one snowline api" ninst=1 ;;
	postgres) label="PostgreSQL, two snowline api" ninst=2 ;;
	esac
	bd_api_ports=()
	ok=1
	for _ in $(seq $ninst); do bd_api_start "$st" 64 || ok=0; done
	cached_ports=("${bd_api_ports[@]}")
	for _ in $(seq $ninst); do bd_api_start "$st" 0 || ok=0; done
	uncached_ports=("${bd_api_ports[@]:$ninst}")
	[ $ok = 1 ] || { failed=1; report+=("$label: the API did not start"); bd_api_stop; continue; }
	save_deployments "$cfg/0" &&
		bd_save_pages "$cfg/1" "/v1/icm/addresses/$sender/messages?pageSize=100" "$pages" &&
		bd_save_pages "$cfg/2" "/v1/icm/addresses/$receiver/messages?pageSize=100" "$pages" ||
		{ failed=1; report+=("$label: a page failed"); bd_api_stop; continue; }
	if [ -z "${bd_nginx_port:-}" ]; then bd_nginx_start "$tmp/www" || exit 1; fi
	nports=()
	for _ in $(seq $ninst); do nports+=("$bd_nginx_port"); done
	for i in 0 1 2; do
		echo "evm bench: $label: ${rows[$i]}, ${npages[$cfg/$i]} bodies"
		bd_load "nginx-$cfg-$i" "$tmp/paths/$cfg-$i-all.nginx" "${nports[@]}"
		bd_load "snowline-$cfg-$i-cache" "$tmp/paths/$cfg-$i-all.snowline" "${cached_ports[@]}"
		bd_load "snowline-$cfg-$i-nocache" "$tmp/paths/$cfg-$i-all.snowline" "${uncached_ports[@]}"
	done
	bd_api_stop
	report+=("$cfg")
done

echo
ix_report
echo
echo "getDeployment and ICM messages against nginx serving the same bodies (the store above, with a"
echo "devnet's primary network); wrk -c$conns -d${secs}s --latency, keep-alive, loopback; aim: >= 0.3x nginx, p99 < 10 ms"
for r in "${report[@]}"; do
	case $r in
	sqlite | postgres)
		cfg=$r
		[ $cfg = sqlite ] && echo "  SQLite, one snowline api:" || echo "  PostgreSQL, two snowline api (wrk split across both; nginx likewise):"
		bd_table_head
		for i in 0 1 2; do
			for c in cache nocache; do
				bd_table_row "${rows[$i]} (${npages[$cfg/$i]})" "$([ $c = cache ] && echo cached || echo uncached)" \
					"snowline-$cfg-$i-$c" "nginx-$cfg-$i" "${bytes[$cfg/$i-all]}" || failed=1
			done
		done
		;;
	*) echo "  $r" ;;
	esac
done
exit $failed
