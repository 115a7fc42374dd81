#!/usr/bin/env bash
# decode.sh — decode throughput: snowline beside @avalabs/avalanchejs, same bytes, same run.
#
# bench/decode-baseline.mjs --make-set writes a mixed set of BENCH_DECODE_COUNT
# containers (P-chain txs and blocks, X-chain txs and blocks, coreth blocks,
# warp messages, proposervm-wrapped P/X/C blocks: the shared vectors and the
# txs avalanchejs builds for every P- and X-chain type, replicated). Then
#   snowline    build/snowline decode --bench SET --rounds N  (every kind)
#   avalanchejs decode-baseline.mjs --run SET --rounds N      (P and X txs:
#               the kinds it has a codec for; of the P txs with a BLS proof
#               of possession, which it verifies while parsing, a sample)
# each best of BENCH_ROUNDS, and prints containers/s, MB/s and the ratio.
#
# Knobs: BENCH_DECODE_COUNT (50000) BENCH_ROUNDS (3) BENCH_POP_SAMPLE (300)
# SNOWLINE_BIN (build/snowline) BENCH_KEEP=1 keeps the scratch directory.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

count=${BENCH_DECODE_COUNT:-50000}
rounds=${BENCH_ROUNDS:-3}
pop=${BENCH_POP_SAMPLE:-300}
bin=${SNOWLINE_BIN:-build/snowline}
for v in count rounds pop; do
	case "${!v}" in '' | *[!0-9]*) echo "decode bench: $v must be a number" >&2; exit 2 ;; esac
done
command -v node >/dev/null 2>&1 || { echo "decode bench: node not found" >&2; exit 1; }
[ -x "$bin" ] || { echo "decode bench: $bin not built (make build/snowline)" >&2; exit 1; }
if [ ! -d tests/e2e/node_modules/@avalabs/avalanchejs ]; then
	(cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error) || exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/snowline-decode-bench.XXXXXX")
cleanup() { if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "decode bench: kept $tmp"; else rm -rf "$tmp"; fi; }
trap cleanup EXIT

node bench/decode-baseline.mjs --make-set "$tmp/set.bin" --count "$count" || exit 1
"$bin" decode --bench "$tmp/set.bin" --rounds "$rounds" >"$tmp/snowline.json" || exit 1
node bench/decode-baseline.mjs --run "$tmp/set.bin" --rounds "$rounds" --pop-sample "$pop" >"$tmp/ajs.json" || exit 1

node - "$tmp/snowline.json" "$tmp/ajs.json" <<'JS'
const fs = require('node:fs');
const sl = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')).kinds;
const js = JSON.parse(fs.readFileSync(process.argv[3], 'utf8')).kinds;
const rate = (k) => (k ? { cps: k.containers / k.seconds, mbs: k.bytes / 1e6 / k.seconds } : null);
const sum = (ks, src) => ks.filter((k) => src[k]).reduce((a, k) => ({ containers: a.containers + src[k].containers,
  bytes: a.bytes + src[k].bytes, seconds: a.seconds + src[k].seconds }), { containers: 0, bytes: 0, seconds: 0 });
const f0 = (x) => x.toLocaleString('en-US', { maximumFractionDigits: 0 });
const f1 = (x) => x.toFixed(1);
const rows = [];
const row = (name, s, j) => {
  const a = rate(s), b = rate(j);
  rows.push([name, f0(s.containers), f1(s.bytes / 1e6), f0(a.cps), f1(a.mbs), b ? f0(b.cps) : '-', b ? f1(b.mbs) : '-',
    b ? `${f0(a.cps / b.cps)}x` : '-']);
};
for (const k of Object.keys(sl)) row(k, sl[k], js[k]);
row('all (mixed set)', sum(Object.keys(sl), sl), null);
// the like-for-like line: the kinds both decode, avalanchejs's time scaled to all of them
const both = ['pchain.tx', 'xchain.tx'];
const s = sum(both, sl);
const jsSecs = both.reduce((a, k) => a + (js[k] ? (js[k].seconds / js[k].containers) * sl[k].containers : 0), 0);
row('P+X txs, no BLS PoP', s, { containers: s.containers, bytes: s.bytes, seconds: jsSecs });
const all = ['pchain.tx', 'pchain.tx+pop', 'xchain.tx'];
const s2 = sum(all, sl);
const jsSecs2 = all.reduce((a, k) => a + (js[k] ? (js[k].seconds / js[k].containers) * sl[k].containers : 0), 0);
row('P+X txs, all', s2, { containers: s2.containers, bytes: s2.bytes, seconds: jsSecs2 });
const head = ['kind', 'containers', 'MB', 'snowline c/s', 'MB/s', 'avalanchejs c/s', 'MB/s', 'ratio'];
const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (r) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ');
console.log(line(head));
console.log(w.map((n) => '-'.repeat(n)).join('  '));
rows.forEach((r) => console.log(line(r)));
const ratio = (s.containers / s.seconds) / (s.containers / jsSecs);
console.log(`\nsnowline decodes P/X txs ${ratio.toFixed(0)}x as fast as avalanchejs (aim: 20x): ${ratio >= 20 ? 'met' : 'NOT met'}`);
process.exitCode = ratio >= 20 ? 0 : 1;
JS
