#!/usr/bin/env bash
# staking.sh — the Data API's validators list and pending rewards against nginx serving the same
# bodies (issue #12's bench; bench/api.sh's method, whose helpers are in bench/lib-data.sh).
#
# On a devnet with more than 10,000 validations: by default 1,100,000 txs, 8 accounts, with
# mainnet's ids (made once and cached, as bench/lib-data.sh says, then indexed into each backend).
# The devnet's validations are mostly permissioned subnet validators (its primary validators are
# bounded by its 69 nodes: ~200 in any history); about 9.5 per 1,000 txs. Its 8 accounts own the
# rewards of every staker, so each owns 1,100-1,500 stakers (validators and delegators, all statuses).
# Mainnet's ids, because sortBy=delegationFee is mainnet's only (docs/api.md).
#   GET /v1/networks/mainnet/validators?pageSize=100&…   every sort (sortBy blockIndex, the
#       default, and delegationCapacity, timeRemaining, uptimePerformance, delegationFee with the
#       primary network's subnetId) and every filter (validationStatus, nodeIds, subnetId of the
#       busiest subnet, fee, delegation capacity, time remaining and uptime ranges);
#   GET /v1/networks/mainnet/rewards:listPending?addresses=A&pageSize=100   A: the address that
#       owns the most stakers (it reads all of them, ended ones included, to list the open ones).
# Each URL's first BENCH_STAKING_PAGES (5) pages are walked once (nextPageToken), their bodies
# saved and served by nginx; wrk cycles through the pages' URLs (tokens and all) on snowline and
# through the files on nginx, in the same order. As bench/api.sh: wrk --latency at
# BENCH_CONNECTIONS (64) for BENCH_SECONDS (10) s; SQLite (one `snowline api`) and PostgreSQL
# (two, each with half the connections, nginx likewise); with the response cache (the default)
# and without (--cache-mb 0); req/s, p50, p99 and snowline/nginx, against the aim of at least
# 0.3x nginx's req/s with a p99 under 10 ms.
#
# Knobs: BENCH_STAKING_TXS (1100000) BENCH_STAKING_ACCOUNTS (8) BENCH_SEED BENCH_CACHE
# BENCH_FRESH (lib-data.sh) BENCH_STAKING_STORES ("sqlite postgres") BENCH_STAKING_PAGES (5)
# BENCH_STAKING_ONLY (a regular expression: only the rows whose label matches) BENCH_SECONDS (10)
# BENCH_CONNECTIONS (64) BENCH_THREADS (2) BENCH_REINDEX=1 SNOWLINE_BIN; BENCH_KEEP=1 keeps the
# scratch directory.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
name=staking
stores=${BENCH_STAKING_STORES:-sqlite postgres}
pages=${BENCH_STAKING_PAGES:-5}
secs=${BENCH_SECONDS:-10}
conns=${BENCH_CONNECTIONS:-64}
threads=${BENCH_THREADS:-2}
only=${BENCH_STAKING_ONLY:-}
for v in pages secs conns threads; do
	case "${!v}" in '' | 0 | *[!0-9]*) echo "staking bench: $v must be a positive number" >&2; exit 2 ;; esac
done
for tool in wrk nginx curl node; do
	command -v $tool >/dev/null 2>&1 || { echo "staking bench: $tool not found (run scripts/deps.sh)" >&2; exit 1; }
done
BENCH_TXS=${BENCH_STAKING_TXS:-1100000}
BENCH_ACCOUNTS=${BENCH_STAKING_ACCOUNTS:-8}
BENCH_NETWORK=mainnet
# shellcheck source=bench/lib-data.sh
. bench/lib-data.sh
[ -x "$bd_bin" ] || { echo "staking bench: $bd_bin not built (make build/snowline)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/snowline-staking-bench.XXXXXX")
cleanup() {
	bd_cleanup
	if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "staking bench: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bd_devnet || exit 1
# From the manifest: the validations (by status), the busiest subnet, the address owning the
# rewards of the most stakers (and how many of those are still open), a node id's part.
read -r nvals nstatus subnet addr nstakers nopen nodepart < <(node -e '
	const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
	const vals = m.P.validators, st = {}, sub = {}, own = {}, open = {};
	for (const v of vals) {
		st[v.validationStatus] = (st[v.validationStatus] || 0) + 1;
		if (!v.subnetId.startsWith("111111111111")) sub[v.subnetId] = (sub[v.subnetId] || 0) + 1;
	}
	for (const s of [...vals, ...m.P.delegators])
		for (const a of (s.rewardOwner && s.rewardOwner.addresses) || []) {
			own[a] = (own[a] || 0) + 1;
			if (s.validationStatus === "active" || s.validationStatus === "pending") open[a] = (open[a] || 0) + 1;
		}
	const top = (o) => Object.entries(o).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
	const [a, n] = top(own);
	console.log(vals.length, Object.entries(st).map(([k, v]) => k + ":" + v).join(","), top(sub)[0],
		a.replace(/^P-/, ""), n, open[a] || 0, vals[vals.length - 1].nodeId.slice(7, 10));
' "$bd_cache/node/devnet-manifest.json") || exit 1
[ -n "$nodepart" ] || { echo "staking bench: cannot read the devnet's manifest" >&2; exit 1; }
echo "staking bench: $nvals validations ($nstatus); address $addr owns $nstakers stakers ($nopen open)"
[ "$nvals" -ge 10000 ] || echo "staking bench: note: fewer than 10,000 validations (BENCH_STAKING_TXS)"
[ "$nstakers" -ge 1000 ] || echo "staking bench: note: the address owns fewer than 1,000 stakers"

v=/v1/networks/$bd_network/validators?pageSize=100
primary=11111111111111111111111111111111LpoYY
# label|URL: every sort, then every filter
urls=(
	"validators, sortBy blockIndex (default)|$v"
	"validators, sortBy delegationCapacity|$v&sortBy=delegationCapacity"
	"validators, sortBy timeRemaining asc|$v&sortBy=timeRemaining&sortOrder=asc"
	"validators, sortBy uptimePerformance|$v&sortBy=uptimePerformance"
	"validators, sortBy delegationFee|$v&sortBy=delegationFee&subnetId=$primary"
	"validators, validationStatus active|$v&validationStatus=active"
	"validators, validationStatus completed|$v&validationStatus=completed&sortOrder=asc"
	"validators, nodeIds (2 parts)|$v&nodeIds=$nodepart,zz"
	"validators, subnetId (busiest subnet)|$v&subnetId=$subnet"
	"validators, fee 3-8 %|$v&minFeePercentage=3&maxFeePercentage=8"
	"validators, delegationCapacity >= 10k AVAX|$v&minDelegationCapacity=10000000000000"
	"validators, timeRemaining >= 7 days|$v&minTimeRemaining=604800"
	"validators, uptime 80-100 %|$v&minUptimePerformance=80&maxUptimePerformance=100"
	"rewards:listPending, $nstakers stakers|/v1/networks/$bd_network/rewards:listPending?addresses=$addr&pageSize=100"
)
if [ -n "$only" ]; then
	kept=()
	for u in "${urls[@]}"; do [[ ${u%%|*} =~ $only ]] && kept+=("$u"); done
	urls=("${kept[@]}")
	[ ${#urls[@]} -gt 0 ] || { echo "staking bench: BENCH_STAKING_ONLY matches no row" >&2; exit 2; }
fi

declare -A rps p50 p99 err npages bytes
bd_what=48
failed=0
report=()

for s in $stores; do
	case $s in
	sqlite) cfg=sqlite label="SQLite, one snowline api" ninst=1 ;;
	postgres) cfg=postgres label="PostgreSQL, two snowline api" ninst=2 ;;
	*) echo "staking bench: unknown store '$s' in BENCH_STAKING_STORES" >&2; exit 2 ;;
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
	i=0
	for u in "${urls[@]}"; do
		bd_save_pages "$cfg/$i" "${u#*|}" "$pages" || { ok=0; break; }
		i=$((i + 1))
	done
	[ $ok = 1 ] || { failed=1; report+=("$label: a page failed"); bd_api_stop; continue; }
	if [ -z "${bd_nginx_port:-}" ]; then bd_nginx_start "$tmp/www" || exit 1; fi
	nports=()
	for _ in $(seq $ninst); do nports+=("$bd_nginx_port"); done
	i=0
	for u in "${urls[@]}"; do
		echo "staking bench: $label: ${u%%|*}, pages 1-${npages[$cfg/$i]}"
		bd_load "nginx-$cfg-$i" "$tmp/paths/$cfg-$i-all.nginx" "${nports[@]}"
		bd_load "snowline-$cfg-$i-cache" "$tmp/paths/$cfg-$i-all.snowline" "${cached_ports[@]}"
		bd_load "snowline-$cfg-$i-nocache" "$tmp/paths/$cfg-$i-all.snowline" "${uncached_ports[@]}"
		i=$((i + 1))
	done
	# stop this configuration's servers before the next one shares the cores
	bd_api_stop
	[ $cfg = postgres ] && scripts/pg-test-server.sh stop "$bd_cache/pg"
	report+=("$cfg")
done

echo
echo "Staking lists against nginx serving the same bodies: a devnet of $bd_txs txs, $bd_accounts accounts,"
echo "seed $bd_seed, $bd_network ids: $nvals validations ($nstatus); address $addr owns $nstakers stakers ($nopen open)"
echo "pageSize 100, the first $pages pages of each (fewer when the list ends); wrk -c$conns -d${secs}s --latency,"
echo "keep-alive, loopback, $(nproc) cores shared; aim: >= 0.3x nginx, p99 < 10 ms"
for r in "${report[@]}"; do
	case $r in
	sqlite | postgres)
		cfg=$r
		[ $cfg = sqlite ] && echo "  SQLite, one snowline api:" || echo "  PostgreSQL, two snowline api (wrk split across both; nginx likewise):"
		bd_table_head
		i=0
		for u in "${urls[@]}"; do
			what="${u%%|*} (${npages[$cfg/$i]}p)"
			for c in cache nocache; do
				bd_table_row "$what" "$([ $c = cache ] && echo cached || echo uncached)" "snowline-$cfg-$i-$c" \
					"nginx-$cfg-$i" "${bytes[$cfg/$i-all]}" || failed=1
			done
			i=$((i + 1))
		done
		;;
	*) echo "  $r" ;;
	esac
done
exit $failed
