#!/usr/bin/env bash
# devnet.sh — how fast `snowline devnet` writes a history, where the time goes,
# and how much disk a million txs take.
#
#   1. build/snowline devnet --out LOG --devnet-txs N (release build), timed:
#      txs/s (P + X + C txs, from the manifest) and containers/s;
#   2. the same run under `perf record` (when perf is there and allowed): the
#      share of samples in secp256k1 signing (libsecp256k1), BLS (blst: proofs
#      of possession, warp signatures), keccak (C-chain tries and tx hashes);
#   3. snowline node --index-enabled --import LOG into a fresh data dir: the
#      LMDB store's size; log and store bytes scaled to a million txs.
#
# Knobs: BENCH_DEVNET_TXS (200000) BENCH_DEVNET_PERF_TXS (50000; 0 skips perf)
# SNOWLINE_BIN (build/snowline) BENCH_KEEP=1 keeps the scratch directory.
# Bounded: each step runs under `timeout` (generation 60 s, perf 40 s, import 60 s).
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
		  else if ($0 ~ /keccak/) keccak += p }
		END { printf "secp256k1 %.0f%%, BLS %.0f%%, keccak %.0f%%, other %.0f%%", secp, bls, keccak, total - secp - bls - keccak }' "$tmp/perf.txt")
fi

# 3. the store after importing the log
mkdir -p "$tmp/data"
"$bin" node --index-enabled --import "$tmp/history.clog" --data-dir "$tmp/data" --http-port 0 >"$tmp/node.log" 2>&1 &
pid=$!
port=
deadline=$((SECONDS + 60))
ready=0
while [ $SECONDS -lt $deadline ]; do
	[ -z "$port" ] && port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$tmp/node.log" | head -1)
	if [ -n "$port" ] && [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/ext/health/readiness")" = 200 ]; then
		ready=1
		break
	fi
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.2
done
t2=$(now)
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
pid=
[ $ready = 1 ] || { echo "devnet bench: the import did not finish in 60 s:" >&2; tail -5 "$tmp/node.log" >&2; exit 1; }
import_secs=$(echo "$t2 - $t1" | bc -l)
log_bytes=$(stat -c %s "$tmp/history.clog")
store_bytes=$(du -sb --exclude=logs --exclude=profiles "$tmp/data" | cut -f1)

node - "$tmp/manifest.json" "$gen_secs" "$log_bytes" "$store_bytes" "$import_secs" "$perf_line" "$txs" "$ptxs" <<'JS'
const fs = require('node:fs');
const [mf, genSecs, logBytes, storeBytes, importSecs, perfLine, asked, ptxs] = process.argv.slice(2);
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
];
const w = Math.max(...rows.map((r) => r[0].length));
for (const [k, v] of rows) console.log(`${k.padEnd(w)}  ${v}`);
JS
