#!/usr/bin/env bash
# admin.sh — what --api-admin-enabled costs the index API (issue: it must cost nothing until a
# profile is asked for). The same container log is served by a node without and with /ext/admin,
# in alternating rounds (off, on, off, on, ...), each under wrk: index.getContainerByIndex and
# index.getContainerRange of 1024 containers. Prints the mean req/s of each and on/off.
#
# Knobs: BENCH_SECONDS (5) BENCH_ROUNDS (2) BENCH_COUNT (10000) BENCH_SIZE (600)
# BENCH_CONNECTIONS (64) SNOWLINE_BIN (build/snowline)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

secs=${BENCH_SECONDS:-5}
rounds=${BENCH_ROUNDS:-2}
count=${BENCH_COUNT:-10000}
size=${BENCH_SIZE:-600}
conns=${BENCH_CONNECTIONS:-64}
bin=${SNOWLINE_BIN:-build/snowline}
path=/ext/index/X/tx
for tool in wrk curl node; do
	command -v $tool >/dev/null 2>&1 || { echo "admin bench: $tool not found (run scripts/deps.sh)" >&2; exit 1; }
done
[ -x "$bin" ] || { echo "admin bench: $bin not built" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/snowline-admin.XXXXXX")
name=admin
# shellcheck source=bench/lib.sh
. bench/lib.sh
cleanup() {
	bd_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

served() { # port: the last container is served
	curl -sf --max-time 2 -H 'Content-Type: application/json' \
		--data "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"index.getContainerByIndex\",\"params\":{\"index\":\"$((count - 1))\",\"encoding\":\"hex\"}}" \
		"http://127.0.0.1:$1$path" | grep -q '"result"'
}

log=$tmp/containers.log
node bench/make-containers.mjs --out "$log" --count "$count" --size "$size" --index X/tx >/dev/null || exit 1

declare -A sum n
# one round: start a node (admin on or off), wrk both calls, stop it
round() { # mode (off|on)
	local mode=$1 port flags=() data=$tmp/data-$1
	port=$(bd_free_port)
	[ "$mode" = on ] && flags=(--api-admin-enabled --profile-dir "$tmp/prof")
	rm -rf "$data" && mkdir -p "$data"
	"$bin" node --http-port "$port" --data-dir "$data" --index-enabled --import "$log" "${flags[@]}" \
		>"$tmp/node-$mode.log" 2>&1 &
	local pid=$!
	bd_pids+=("$pid")
	bd_wait_for 120 "$pid" served "$port" || { echo "admin bench: node ($mode) did not come up"; tail -5 "$tmp/node-$mode.log"; exit 1; }
	for rpc in index range; do
		local r
		r=$(BENCH_METHOD=POST BENCH_RPC=$rpc BENCH_COUNT=$count timeout --kill-after=5 $((secs + 30)) \
			wrk -t2 -c"$conns" -d"${secs}s" --timeout 10s -s bench/index-rpc.lua "http://127.0.0.1:$port$path" |
			awk '/^Requests\/sec:/ { print $2 }')
		sum[$mode-$rpc]=$(awk -v a="${sum[$mode-$rpc]:-0}" -v b="${r:-0}" 'BEGIN { print a + b }')
		n[$mode-$rpc]=$(( ${n[$mode-$rpc]:-0} + 1 ))
		printf '  round %-3s admin %-3s %-6s %10.0f req/s\n' "$2" "$mode" "$rpc" "${r:-0}"
	done
	bd_stop "$pid"
}

echo "admin bench: $count containers of $size bytes; wrk -t2 -c$conns -d${secs}s; $rounds rounds alternating"
for i in $(seq 1 "$rounds"); do
	round off "$i"
	round on "$i"
done
echo
echo "index API with --api-admin-enabled against without (mean of $rounds rounds)"
printf '  %-26s %12s %12s %8s\n' call "admin off" "admin on" "on/off"
for rpc in index range; do
	awk -v a="${sum[off-$rpc]}" -v b="${sum[on-$rpc]}" -v k="$rounds" -v name="$([ $rpc = index ] && echo getContainerByIndex || echo 'getContainerRange (1024)')" 'BEGIN {
		printf "  %-26s %12.0f %12.0f %7.3fx\n", name, a / k, b / k, (a > 0 ? b / a : 0) }'
done
