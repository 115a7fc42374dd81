#!/usr/bin/env bash
# http.sh — snowline's node API against nginx serving the same bytes.
#
# Starts, on loopback ports chosen free at run time:
#   snowline  build/snowline node --index-enabled --import LOG, where LOG is
#             BENCH_COUNT X-chain tx containers of BENCH_SIZE random bytes
#             (bench/make-containers.mjs); load = index.getContainerByIndex
#             POSTs on /ext/index/X/tx, cycling over every index
#   nginx     2 workers, keep-alive, access log off, serving as a static file
#             the bytes of one such response (taken from snowline itself when
#             it answers, else the generator's rendering of it); load = GET
# and drives each with `wrk -t2 -c64 -d10s --latency` (bench/index-rpc.lua),
# one after the other, then prints req/s, p50, p99 and snowline/nginx.
#
# Knobs: BENCH_SECONDS (10) BENCH_THREADS (2) BENCH_CONNECTIONS (64)
# BENCH_COUNT (10000) BENCH_SIZE (600) SNOWLINE_BIN (build/snowline)
# BENCH_KEEP=1 keeps the scratch directory. Every wait has a deadline, wrk
# runs under `timeout`, and the servers are stopped on any exit.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

secs=${BENCH_SECONDS:-10}
threads=${BENCH_THREADS:-2}
conns=${BENCH_CONNECTIONS:-64}
count=${BENCH_COUNT:-10000}
size=${BENCH_SIZE:-600}
bin=${SNOWLINE_BIN:-build/snowline}
path=/ext/index/X/tx
for v in secs threads conns count size; do
	case "${!v}" in '' | *[!0-9]*) echo "http bench: $v must be a number" >&2; exit 2 ;; esac
done

for tool in wrk nginx curl node; do
	command -v $tool >/dev/null 2>&1 || { echo "http bench: $tool not found (run scripts/deps.sh)" >&2; exit 1; }
done

declare -A rps p50 p99 note
tmp=$(mktemp -d "${TMPDIR:-/tmp}/snowline-bench.XXXXXX")
name=http
# shellcheck source=bench/lib.sh
. bench/lib.sh
cleanup() {
	bd_cleanup
	if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "http bench: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rpc_body() { printf '{"jsonrpc":"2.0","id":1,"method":"index.getContainerByIndex","params":{"index":"%s","encoding":"hex"}}' "$1"; }
rpc_ok() { # port index: the node has container <index>
	curl -sf --max-time 2 -H 'Content-Type: application/json' --data "$(rpc_body "$2")" \
		"http://127.0.0.1:$1$path" | grep -q '"result"'
}


# run_wrk NAME PORT METHOD: fills rps[NAME] p50[NAME] p99[NAME] note[NAME]
run_wrk() {
	local name=$1 port=$2 method=$3 out=$tmp/wrk-$1.txt
	echo "http bench: wrk -t$threads -c$conns -d${secs}s --latency against $name ($method $path)"
	BENCH_METHOD=$method BENCH_COUNT=$count timeout --kill-after=5 $((secs + 30)) \
		wrk -t"$threads" -c"$conns" -d"${secs}s" --latency --timeout 5s -s bench/index-rpc.lua \
		"http://127.0.0.1:$port$path" >"$out" 2>&1
	local rc=$?
	rps[$name]=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
	p50[$name]=$(bd_to_ms "$(awk '$1 == "50%" { print $2; exit }' "$out")")
	p99[$name]=$(bd_to_ms "$(awk '$1 == "99%" { print $2; exit }' "$out")")
	local errs
	errs=$(grep -E '^ *(Non-2xx|Socket errors)' "$out" | sed 's/^ *//' | paste -sd ';' -)
	note[$name]=${errs:-}
	[ $rc = 0 ] || note[$name]="wrk exit $rc ${note[$name]}"
	[ -n "${rps[$name]}" ] || { note[$name]="no result ${note[$name]}"; sed 's/^/  /' "$out" | tail -5; }
}

# --- data ------------------------------------------------------------------
log=$tmp/containers.log
node bench/make-containers.mjs --out "$log" --count "$count" --size "$size" --index X/tx \
	--response 0 --response-out "$tmp/response-0.json" || exit 1
echo "http bench: $count containers of $size bytes ($(wc -c <"$log") bytes of log)"

# --- snowline ----------------------------------------------------------------
have_snowline=0
if [ -x "$bin" ]; then
	sport=$(bd_free_port)
	mkdir -p "$tmp/data"
	TZ=UTC "$bin" node --http-host 127.0.0.1 --http-port "$sport" --data-dir "$tmp/data" \
		--index-enabled --import "$log" >"$tmp/snowline.log" 2>&1 &
	spid=$!
	bd_pids+=("$spid")
	# ready = the last container is served (so the import has finished)
	if bd_wait_for 120 "$spid" rpc_ok "$sport" $((count - 1)); then
		have_snowline=1
		curl -sf --max-time 2 -H 'Content-Type: application/json' --data "$(rpc_body 0)" \
			"http://127.0.0.1:$sport$path" -o "$tmp/response-0.json.node" &&
			mv "$tmp/response-0.json.node" "$tmp/response-0.json"
	else
		note[snowline]="(did not start: see log above)"
		echo "http bench: snowline node did not come up on port $sport; its log:"
		tail -15 "$tmp/snowline.log" | sed 's/^/  /'
	fi
else
	note[snowline]="($bin not built)"
	echo "http bench: $bin not built; measuring nginx only"
fi

# --- nginx -------------------------------------------------------------------
www=$tmp/www
mkdir -p "$www$(dirname $path)"
cp "$tmp/response-0.json" "$www$path"
body_bytes=$(wc -c <"$www$path")
have_nginx=0
if bd_nginx_start "$www"; then
	have_nginx=1
	nport=$bd_nginx_port
else
	note[nginx]="(did not start: see log above)"
fi

# --- load --------------------------------------------------------------------
[ $have_nginx = 1 ] && run_wrk nginx "$nport" GET
[ $have_snowline = 1 ] && run_wrk snowline "$sport" POST

echo
echo "HTTP: index.getContainerByIndex, $body_bytes-byte responses, wrk -t$threads -c$conns -d${secs}s, keep-alive, loopback"
printf '  %-10s %12s %10s %10s  %s\n' server "req/s" "p50 ms" "p99 ms" note
for s in nginx snowline; do
	if [ -n "${rps[$s]:-}" ]; then
		printf '  %-10s %12.0f %10s %10s  %s\n' "$s" "${rps[$s]}" "${p50[$s]}" "${p99[$s]}" "${note[$s]}"
	else
		printf '  %-10s %12s %10s %10s  %s\n' "$s" - - - "not measured ${note[$s]:-}"
	fi
done
if [ -n "${rps[nginx]:-}" ] && [ -n "${rps[snowline]:-}" ]; then
	awk -v a="${rps[snowline]}" -v b="${rps[nginx]}" -v c="${p99[snowline]}" -v d="${p99[nginx]}" 'BEGIN {
		printf "  ratio snowline/nginx: %.2fx req/s, %.2fx p99 latency\n", (b > 0 ? a / b : 0), (d > 0 ? c / d : 0) }'
else
	echo "  ratio snowline/nginx: n/a"
fi
# Both sides were still printed when one failed; the exit status says it failed.
[ -n "${rps[nginx]:-}" ] && [ -n "${rps[snowline]:-}" ]
