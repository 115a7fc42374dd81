#!/usr/bin/env bash
# sigagg.sh — signature aggregation's cost (bench/sigagg_bench.c has what each line measures):
# N validators in process (the aggregation path against one fast-aggregate-verify of the same
# set, in the same process) and M validators over loopback p2p (src/p2p's server, each with its
# own staking certificate and BLS key). Built against the release library.
#
# Knobs: BENCH_SIGAGG_N (1000) BENCH_SIGAGG_M (100) BENCH_ROUNDS (3)
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
build/bench/sigagg_bench "$n" "$m" "$rounds"
