#!/usr/bin/env bash
# devnet.sh — how fast `snowline devnet` writes a history, where the time goes,
# how much disk a million txs take, and how fast a devnet node restarts.
#
#   1. build/snowline devnet --out LOG --devnet-txs N (release build), timed:
#      txs/s (P + X + C txs, from the manifest) and containers/s;
#   2. the same run under `perf record` (when perf is there and allowed): the
#      share of samples in secp256k1 signing (libsecp256k1), BLS (blst: proofs
#      of possession, warp signatures), keccak (C-chain tries and tx hashes),
#      libcrypto (P-256 proposer signatures, sha256);
#   3. snowline node --index-enabled --import LOG into a fresh data dir: the
#      LMDB store's size; log and store bytes scaled to a million txs;
#   4. snowline devnet --data-dir D (the same N, no live steps) until ready,
#      kill -9, and again: the second start resumes from the snapshot; its time
#      to readiness, the snapshot's own load time from the log, its size.
#
# Knobs: BENCH_DEVNET_TXS (200000) BENCH_DEVNET_PERF_TXS (50000; 0 skips perf)
# SNOWLINE_BIN (build/snowline) BENCH_KEEP=1 keeps the scratch directory.
# Bounded: each step runs under `timeout` or a deadline (generation 60 s, perf 40 s, import 60 s,
# each devnet node start 90 s).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

txs=${BENCH_DEVNET_TXS:-200000}
ptxs=${BENCH_DEVNET_PERF_TXS:-50000}
bin=${SNOWLINE_BIN:-build/snowline}
for v in txs ptxs; do
	case "${!v}" in '' | *[!0-9]*) echo "devnet bench: $v must be a number" >&2; exit 2 ;; esac
done
[ -x "$bin" ] || { echo "devnet bench: $bin not built (make build/snowline)" >&2; exit 1; }
command -v node >/dev/null 2>&1 || { echo "devnet bench: node not found" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/snowline-devnet-bench.XXXXXX")
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "devnet bench: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

now() { date +%s.%N; }

# 1. generation
t0=$(now)
timeout 60 "$bin" devnet --out "$tmp/history.clog" --manifest "$tmp/manifest.json" --devnet-txs "$txs" 2>"$tmp/gen.err" ||
	{ echo "devnet bench: generation failed or took over 60 s:" >&2; cat "$tmp/gen.err" >&2; exit 1; }
t1=$(now)
gen_secs=$(echo "$t1 - $t0" | bc -l)

# 2. where the time goes (a smaller run; perf's own overhead aside)
perf_line="perf not available"
if [ "$ptxs" -gt 0 ] && command -v perf >/dev/null 2>&1 &&
	timeout 40 perf record -q -o "$tmp/perf.data" "$bin" devnet --out "$tmp/perf.clog" --devnet-txs "$ptxs" >/dev/null 2>&1; then
	perf report -i "$tmp/perf.data" --no-children --sort dso,sym --stdio 2>/dev/null >"$tmp/perf.txt"
	perf_line=$(awk '
		/^#/ || !/%/ { next }
		{ p = $1; sub("%", "", p); total += p
		  if ($2 ~ /libsecp256k1/) secp += p
		  else if ($0 ~ /mont_38|blst|POINTon|_fp12|_fp2|miller|final_exp|sqr_mont|mul_mont|hash_to|map_to/) bls += p
		  else if ($0 ~ /keccak/) keccak += p
		  else if ($2 ~ /libcrypto/) ossl += p }
		END { printf "secp256k1 %.0f%%, BLS %.0f%%, keccak %.0f%%, libcrypto (P-256, sha256) %.0f%%, other %.0f%%", secp, bls, keccak, ossl, total - secp - bls - keccak - ossl }' "$tmp/perf.txt")
fi

# Wait until the node started in the background (log $1) is ready, at most $2 s; 0 when it is.
wait_ready() {
	local port= deadline=$((SECONDS + $2))
	while [ $SECONDS -lt $deadline ]; do
		[ -z "$port" ] && port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$1" | head -1)
		if [ -n "$port" ] && [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/ext/health/readiness")" = 200 ]; then
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
stop_node() { # $1: signal
	kill "-$1" "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=
}

# 3. the store after importing the log
mkdir -p "$tmp/data"
t1=$(now)
"$bin" node --index-enabled --import "$tmp/history.clog" --data-dir "$tmp/data" --http-port 0 >"$tmp/node.log" 2>&1 &
pid=$!
wait_ready "$tmp/node.log" 60 || { echo "devnet bench: the import did not finish in 60 s:" >&2; tail -5 "$tmp/node.log" >&2; exit 1; }
t2=$(now)
stop_node TERM
import_secs=$(echo "$t2 - $t1" | bc -l)

# 4. a devnet node's first start and its restart after kill -9
dn() { "$bin" devnet --data-dir "$tmp/devnet" --devnet-txs "$txs" --devnet-interval-ms 0 --http-port 0 >"$1" 2>&1 & pid=$!; }
t3=$(now)
dn "$tmp/devnet1.log"
wait_ready "$tmp/devnet1.log" 90 || { echo "devnet bench: the devnet node was not ready in 90 s:" >&2; tail -5 "$tmp/devnet1.log" >&2; exit 1; }
t4=$(now)
stop_node KILL
dn "$tmp/devnet2.log"
wait_ready "$tmp/devnet2.log" 90 || { echo "devnet bench: the restarted devnet node was not ready in 90 s:" >&2; tail -5 "$tmp/devnet2.log" >&2; exit 1; }
t5=$(now)
stop_node TERM
first_secs=$(echo "$t4 - $t3" | bc -l)
restart_secs=$(echo "$t5 - $t4" | bc -l)
resumed=$(sed -n 's/.*devnet: resumed from .* in \([0-9.]*\) s.*/\1/p' "$tmp/devnet2.log" | head -1)
snap_bytes=$(stat -c %s "$tmp/devnet/devnet-snapshot.bin" 2>/dev/null || echo 0)
log_bytes=$(stat -c %s "$tmp/history.clog")
store_bytes=$(du -sb --exclude=logs --exclude=profiles "$tmp/data" | cut -f1)

node - "$tmp/manifest.json" "$gen_secs" "$log_bytes" "$store_bytes" "$import_secs" "$perf_line" "$txs" "$ptxs" \
	"$first_secs" "$restart_secs" "${resumed:-?}" "$snap_bytes" <<'JS'
const fs = require('node:fs');
const [mf, genSecs, logBytes, storeBytes, importSecs, perfLine, asked, ptxs, firstSecs, restartSecs, resumed, snapBytes] = process.argv.slice(2);
const m = JSON.parse(fs.readFileSync(mf, 'utf8'));
const txs = m.chains.P.txs + m.chains.X.txs + m.chains.C.txs;
const containers = Object.values(m.containers).reduce((a, b) => a + b, 0);
const secs = Number(genSecs);
const f0 = (x) => Math.round(x).toLocaleString('en-US');
const mb = (b) => (b / 1e6).toFixed(1) + ' MB';
const perM = (b) => mb(b * 1e6 / txs);
const rows = [
  ['history', `${f0(txs)} txs (P ${f0(m.chains.P.txs)}, X ${f0(m.chains.X.txs)}, C ${f0(m.chains.C.txs)}; asked ${f0(Number(asked))}), ${f0(containers)} containers`],
  ['generation', `${secs.toFixed(2)} s: ${f0(txs / secs)} txs/s, ${f0(containers / secs)} containers/s (single thread)`],
  ['time by part', `${perfLine}${perfLine.startsWith('secp') ? ` (perf, ${f0(Number(ptxs))}-tx run)` : ''}`],
  ['container log', `${mb(Number(logBytes))}; per million txs ${perM(Number(logBytes))}`],
  ['LMDB store', `${mb(Number(storeBytes))} after --import (${Number(importSecs).toFixed(1)} s); per million txs ${perM(Number(storeBytes))}`],
  ['devnet node', `first start ${Number(firstSecs).toFixed(1)} s to ready; after kill -9 ready in ${Number(restartSecs).toFixed(2)} s (snapshot of ${mb(Number(snapBytes))} loaded in ${resumed} s)`],
];
const w = Math.max(...rows.map((r) => r[0].length));
for (const [k, v] of rows) console.log(`${k.padEnd(w)}  ${v}`);
JS
