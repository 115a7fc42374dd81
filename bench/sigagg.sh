#!/usr/bin/env bash
# sigagg.sh — signature aggregation's cost (bench/sigagg_bench.c has what each line measures):
# N validators in process (the aggregation path against one fast-aggregate-verify of the same
# set, in the same process) and M validators over loopback p2p (src/p2p's server, each with its
# own staking certificate and BLS key). Built against the release library.
#
# Then the devnet's own validators (part 2 below), 100 genesis validators with BLS keys.
#
# Knobs: BENCH_SIGAGG_N (1000) BENCH_SIGAGG_M (100) BENCH_ROUNDS (3) BENCH_SIGAGG_DEVNET (1)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
n=${BENCH_SIGAGG_N:-1000}
m=${BENCH_SIGAGG_M:-100}
rounds=${BENCH_ROUNDS:-3}
for v in n m rounds; do
	case "${!v}" in '' | *[!0-9]*) echo "sigagg bench: $v must be a number" >&2; exit 2 ;; esac
done
make -s build/rel/libsnowline.a build/blst/libblst.a || exit 1
libs=$(pkg-config --libs jansson sqlite3 lmdb libsecp256k1 libcrypto libssl libcurl libpq libprotobuf-c libzstd)
mkdir -p build/bench
cc -std=c11 -D_GNU_SOURCE -O2 -Isrc -Ibuild/blst/include -Ibuild/gen -o build/bench/sigagg_bench \
	bench/sigagg_bench.c build/rel/libsnowline.a build/blst/libblst.a $libs -lpthread -ldl -lm || exit 1
build/bench/sigagg_bench "$n" "$m" "$rounds" || exit 1

# Part 2 (BENCH_SIGAGG_DEVNET=0 skips it): the devnet's own validators over loopback p2p, through
# `snowline api --peers-from`. --devnet-validators 136 gives 100 genesis validators (the generator
# puts at most half of its 136 + 64 nodes in the genesis set) and --devnet-genesis-signers gives
# them BLS keys (docs/devnet.md), so the primary network's 67% is reachable: without it the
# genesis validators hold ~86% of the stake and no key. Times one POST at 67% (connections and
# handshakes made), then BENCH_ROUNDS more (pooled), and a GET by txHash of a ConvertSubnetToL1Tx.
[ "${BENCH_SIGAGG_DEVNET:-1}" = 1 ] || exit 0
name=sigagg
tmp=$(mktemp -d "${TMPDIR:-/tmp}/snowline-bench-sigagg-XXXXXX")
. bench/lib.sh
trap 'bd_cleanup; rm -rf "$tmp"' EXIT
bin=${SNOWLINE_BIN:-build/snowline}
make -s "$bin" || exit 1
# node i listens on base + 2i: a base whose 200 even ports nobody listens on now
for _ in $(seq 20); do
	base=$((20000 + 2 * (RANDOM % 10000)))
	ss -Htln "sport >= :$base and sport <= :$((base + 400))" | grep -q . || break
done
"$bin" devnet --data-dir "$tmp/node" --http-port 0 --network fuji --devnet-txs 3000 \
	--devnet-validators 136 --devnet-genesis-signers --devnet-p2p-port "$base" \
	--devnet-interval-ms 3600000 --log-level warn --log-display-level info >"$tmp/devnet.log" 2>&1 &
pid=$!
bd_pids+=("$pid")
bd_wait_for 300 "$pid" grep -q 'devnet: ready in' "$tmp/devnet.log" ||
	{ echo "sigagg bench: the devnet was not ready:" >&2; tail -5 "$tmp/devnet.log" >&2; exit 1; }
url=$(grep -o 'listening on http://[^ ]*' "$tmp/devnet.log" | head -1 | sed 's/listening on //')
"$bin" index --node "$url" --store "$tmp/index.db" --genesis "$tmp/node/devnet-genesis.json" \
	--progress log >"$tmp/index.log" 2>&1 &
ipid=$!
bd_pids+=("$ipid")
bd_wait_for 300 "$ipid" grep -q 'caught up with' "$tmp/index.log" ||
	{ echo "sigagg bench: the index did not catch up:" >&2; tail -5 "$tmp/index.log" >&2; exit 1; }
bd_stop "$ipid"
"$bin" api --store "$tmp/index.db" --http-port 0 --rate-anonymous 0 --peers-from "$url" \
	--sigagg-timeout-ms 5000 >"$tmp/api.log" 2>&1 &
apid=$!
bd_pids+=("$apid")
bd_wait_for 60 "$apid" grep -q 'listening on' "$tmp/api.log" ||
	{ echo "sigagg bench: the API did not start:" >&2; tail -5 "$tmp/api.log" >&2; exit 1; }
api=$(grep -o 'listening on http://[^ ]*' "$tmp/api.log" | head -1 | sed 's/listening on //')
path=/v1/signatureAggregator/fuji/aggregateSignatures
keyed=$(node -e 'const m=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));
	const s=m.P.genesis.validators.filter((v)=>v.blsPublicKey).length; console.log(s)' "$tmp/node/devnet-manifest.json")
post() { # one POST at 67% of a fresh message; prints "status seconds"
	local msg
	msg=0000$(printf '%08x' 5)$(printf '0%.0s' $(seq 64))$(printf '%08x' 38)000000000000$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
	curl -s -o "$tmp/out" -w '%{http_code} %{time_total}\n' -H 'Content-Type: application/json' \
		-d "{\"message\":\"$msg\",\"quorumPercentage\":67}" "$api$path"
}
echo "Over the devnet's own validators ($keyed genesis validators with signers, loopback p2p, 67%):"
read -r code t < <(post)
[ "$code" = 200 ] || { echo "sigagg bench: POST at 67% gave $code: $(head -c 300 "$tmp/out")" >&2; exit 1; }
echo "  POST, first (connections and handshakes made): $(awk -v t="$t" 'BEGIN{printf "%.0f", t*1000}') ms"
best=
for _ in $(seq "$rounds"); do
	read -r code t < <(post)
	[ "$code" = 200 ] || { echo "sigagg bench: POST at 67% gave $code" >&2; exit 1; }
	best=$(awk -v a="${best:-1e9}" -v b="$t" 'BEGIN{print (b < a ? b : a)}')
done
echo "  POST, pooled connections, best of $rounds: $(awk -v t="$best" 'BEGIN{printf "%.0f", t*1000}') ms"
tx=$(sqlite3 -readonly "$tmp/index.db" "SELECT lower(hex(id)) FROM txs WHERE chain = 0 AND type = 35 LIMIT 1")
if [ -n "$tx" ]; then
	id=$(node -e 'const c=require("crypto"),b=Buffer.from(process.argv[1],"hex");
		const x=Buffer.concat([b,c.createHash("sha256").update(b).digest().subarray(28)]);
		const A="123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";let n=BigInt("0x"+x.toString("hex")),s="";
		while(n>0n){s=A[Number(n%58n)]+s;n/=58n}for(const v of x){if(v)break;s="1"+s}console.log(s)' "$tx")
	read -r code t < <(curl -s -o "$tmp/out" -w '%{http_code} %{time_total}\n' "$api$path/$id")
	[ "$code" = 200 ] || { echo "sigagg bench: GET by txHash gave $code: $(head -c 300 "$tmp/out")" >&2; exit 1; }
	echo "  GET by txHash (a ConvertSubnetToL1Tx's conversion message): $(awk -v t="$t" 'BEGIN{printf "%.0f", t*1000}') ms"
fi
