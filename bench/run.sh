#!/usr/bin/env bash
# run.sh — `make bench`: every benchmark, one after the other, loopback only.
# Each bench prints its own table; this prints which ones failed at the end.
# BENCHES="http ..." selects (default: all).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

BENCHES=${BENCHES:-http admin slowloris decode devnet index api staking evm sigagg}
failed=()
for b in $BENCHES; do
	echo "== bench: $b"
	"./bench/$b.sh" || failed+=("$b")
	echo
done
[ ${#failed[@]} = 0 ] || { echo "bench: failed: ${failed[*]}"; exit 1; }
