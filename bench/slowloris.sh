#!/usr/bin/env bash
# slowloris.sh — is snowline still answering under a slowloris of more connections than its cap?
#
# Starts build/snowline node with its defaults (--http-max-connections 4096, header deadline
# 10 s) on a free loopback port, opens BENCH_LORIS (5000) connections that each send a header
# line a second and never finish (bench/slowloris.mjs; reopened when closed), then times
# BENCH_PROBES (20) ordinary requests, each on a new connection, one after the other.
# Passes when every probe is answered within BENCH_LORIS_MS (100) ms.
#
# Knobs: BENCH_LORIS BENCH_PROBES BENCH_LORIS_MS SNOWLINE_BIN. The server is stopped on any exit.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

loris=${BENCH_LORIS:-5000}
probes=${BENCH_PROBES:-20}
limit_ms=${BENCH_LORIS_MS:-100}
bin=${SNOWLINE_BIN:-build/snowline}
for v in loris probes limit_ms; do
	case "${!v}" in '' | *[!0-9]*) echo "slowloris bench: $v must be a number" >&2; exit 2 ;; esac
done
command -v node >/dev/null || { echo "slowloris bench: node not found (run scripts/deps.sh)" >&2; exit 1; }
[ -x "$bin" ] || { echo "slowloris bench: $bin not built" >&2; exit 1; }
# The client holds every connection too.
ulimit -n "$(ulimit -Hn)" 2>/dev/null
[ "$(ulimit -n)" -gt $((loris + 256)) ] || { echo "slowloris bench: need $((loris + 256)) descriptors, have $(ulimit -n)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/snowline-loris.XXXXXX")
pid=
cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$bin" node --http-host 127.0.0.1 --http-port 0 --data-dir "$tmp/data" >"$tmp/log" 2>&1 &
pid=$!
port=
for _ in $(seq 100); do
	port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$tmp/log" | head -1)
	[ -n "$port" ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
[ -n "$port" ] || { echo "slowloris bench: the node did not start:"; sed 's/^/  /' "$tmp/log" | tail -5; exit 1; }

echo "slowloris bench: $loris slow connections (cap 4096), then $probes requests on new connections (curl)"
fifo=$tmp/loris.out
timeout 180 node bench/slowloris.mjs "$port" "$loris" $((probes / 5 + 8)) >"$fifo" 2>&1 &
lpid=$!
for _ in $(seq 600); do
	grep -q '^ready' "$fifo" && break
	kill -0 "$lpid" 2>/dev/null || break
	sleep 0.1
done
grep -q '^ready' "$fifo" || { echo "slowloris bench: the slow connections did not open:"; tail -5 "$fifo"; exit 1; }
sleep 2 # every loris has sent another line or two
times=()
failed=0
for _ in $(seq "$probes"); do
	t=$(curl -s -o /dev/null --max-time 10 -w '%{http_code} %{time_total}' "http://127.0.0.1:$port/ext/health/liveness")
	if [ "${t%% *}" = 200 ]; then times+=("${t#* }"); else failed=$((failed + 1)); fi
	sleep 0.2
done
wait "$lpid"
stats=$(grep '^{' "$fifo")
printf '%s\n' "${times[@]}" | sort -n | awk -v failed="$failed" -v limit="$limit_ms" -v stats="$stats" '
	{ ms[NR] = $1 * 1000 }
	END {
		n = NR
		match(stats, /"opened":[0-9]+/); opened = substr(stats, RSTART + 9, RLENGTH - 9)
		match(stats, /"closedByServer":[0-9]+/); closed = substr(stats, RSTART + 17, RLENGTH - 17)
		printf "  slow connections opened %s (closed by the server, then opened again: %s)\n", opened, closed
		if (n) printf "  a request on a new connection: p50 %.2f ms, max %.2f ms; unanswered %d of %d\n", ms[int((n + 1) / 2)], ms[n], failed, n + failed
		ok = failed == 0 && n > 0 && ms[n] < limit
		printf "  %s: every request answered within %d ms\n", ok ? "ok" : "FAIL", limit
		exit !ok
	}'
