#!/usr/bin/env bash
# sigagg.sh — signature aggregation's cost (bench/sigagg_bench.c has what each line measures):
# N validators in process (the aggregation path against one fast-aggregate-verify of the same
# set, in the same process) and M validators over loopback p2p (src/p2p's server, each with its
# own staking certificate and BLS key). Built against the release library. Then the ratio of
# the aggregation path (to 67% and to 100%, all honest) to the fast-aggregate-verify.
#
# Then the whole path through the API: a devnet with --devnet-validators BENCH_SIGAGG_VALIDATORS
# (136, which makes 100 genesis validators: the generator keeps at most half of its nodes for the
# genesis) and --devnet-genesis-signers (each genesis validator an AddPermissionlessValidatorTx
# with its node's BLS key, as avalanchego's local genesis has them), its history of BENCH_SIGAGG_DEVNET_TXS (20000) txs indexed into SQLite, whose
# validators answer ACP-118 requests over loopback p2p (--devnet-p2p-port, each with its own
# staking certificate and BLS key; the devnet runs live with an hour between steps, since its
# listeners stop with its producer), and `snowline api --peers-from` the devnet node; then
# POST /v1/signatureAggregator/fuji/aggregateSignatures (a C-chain message, signed for the
# primary network's set at the store's last height) under wrk --latency at one connection
# (latency: p50, p99) and at BENCH_SIGAGG_CONNECTIONS (4; req/s), BENCH_SECONDS (10) s each.
# The quorums asked are 67 % (the default) and the weight the node's listed validators hold,
# rounded down to a whole percent, when that is more (nearly every validator must sign); the
# manifest says how many are asked. Every answer must be a 200 (wrk's non-2xx are shown).
#
# Knobs: BENCH_SIGAGG_N (1000) BENCH_SIGAGG_M (100) BENCH_ROUNDS (3) BENCH_SIGAGG_VALIDATORS
# BENCH_SIGAGG_DEVNET_TXS BENCH_SIGAGG_CONNECTIONS BENCH_SECONDS BENCH_SIGAGG_API=0 (in process
# only) SNOWLINE_BIN; BENCH_KEEP=1 keeps the scratch directory.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
n=${BENCH_SIGAGG_N:-1000}
m=${BENCH_SIGAGG_M:-100}
rounds=${BENCH_ROUNDS:-3}
for v in n m rounds; do
	case "${!v}" in '' | *[!0-9]*) echo "sigagg bench: $v must be a number" >&2; exit 2 ;; esac
done
make -s build/bench/sigagg_bench || exit 1
build/bench/sigagg_bench "$n" "$m" "$rounds" | tee "${TMPDIR:-/tmp}/sigagg-bench.$$.txt" || exit 1
awk -F'|' '
	/aggregate to 67%, all honest/ && !/p2p/ { a67 = $4 + 0 }
	/aggregate to 100%, all honest/ && !/p2p/ { a100 = $4 + 0 }
	/fast-aggregate-verify/ { fav = $4 + 0 }
	END { if (fav > 0) printf "aggregation path / one fast-aggregate-verify, %s validators: to 67%% %.0fx, to 100%% %.0fx\n", n, a67 / fav, a100 / fav }
' n="$n" "${TMPDIR:-/tmp}/sigagg-bench.$$.txt"
rm -f "${TMPDIR:-/tmp}/sigagg-bench.$$.txt"
[ "${BENCH_SIGAGG_API:-1}" = 1 ] || exit 0

# --- through the API, the devnet's validators over loopback p2p
name=sigagg
nval=${BENCH_SIGAGG_VALIDATORS:-136}
dtxs=${BENCH_SIGAGG_DEVNET_TXS:-20000}
few=${BENCH_SIGAGG_CONNECTIONS:-4}
secs=${BENCH_SECONDS:-10}
for v in nval dtxs few secs; do
	case "${!v}" in '' | 0 | *[!0-9]*) echo "sigagg bench: $v must be a positive number" >&2; exit 2 ;; esac
done
for tool in wrk curl node; do
	command -v $tool >/dev/null 2>&1 || { echo "sigagg bench: $tool not found (run scripts/deps.sh)" >&2; exit 1; }
done
bin=${SNOWLINE_BIN:-build/snowline}
[ -x "$bin" ] || { echo "sigagg bench: $bin not built (make build/snowline)" >&2; exit 1; }
# shellcheck source=bench/lib.sh
. bench/lib.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/snowline-sigagg-bench.XXXXXX")
cleanup() {
	bd_cleanup
	if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "sigagg bench: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# p2p_base: a base port whose next 2 × (validators + 64 nodes) + 2 ports nothing uses now
p2p_base() {
	node -e '
		const span = 2 * (Number(process.argv[1]) + 64) + 2;
		const used = new Set(require("child_process").execFileSync("ss", ["-Htan"], { encoding: "utf8" })
			.split("\n").map((l) => Number((l.split(/\s+/)[3] || "").split(":").pop())));
		for (;;) {
			const b = 20000 + 2 * Math.floor(Math.random() * ((60000 - span - 20000) / 2));
			let free = true;
			for (let p = b; p < b + span && free; p++) free = !used.has(p);
			if (free) { console.log(b); break; }
		}' "$nval"
}
# The devnet (kept running: its validators answer), its port taken from its log
dn=
for attempt in 1 2 3; do
	base=$(p2p_base)
	rm -rf "$tmp/node"
	"$bin" devnet --data-dir "$tmp/node" --http-port 0 --network fuji --devnet-txs "$dtxs" --devnet-accounts 8 \
		--devnet-validators "$nval" --devnet-genesis-signers --devnet-seed sigagg-bench --devnet-interval-ms 3600000 --devnet-p2p-port "$base" \
		>"$tmp/devnet-$attempt.log" 2>&1 &
	dpid=$!
	bd_pids+=("$dpid")
	bd_wait_for $((300 + dtxs / 1000)) "$dpid" grep -q 'devnet: ready in\|cannot start the validators' "$tmp/devnet-$attempt.log"
	if grep -q 'validators answer on p2p' "$tmp/devnet-$attempt.log" && grep -q 'devnet: ready in' "$tmp/devnet-$attempt.log"; then
		dn=$(sed -n 's/.*listening on \(http:\/\/[0-9.:]*\).*/\1/p' "$tmp/devnet-$attempt.log" | head -1)
		[ -n "$dn" ] && bd_wait_for 60 "$dpid" curl -sf --max-time 2 -o /dev/null "$dn/ext/health/readiness" && break
	fi
	echo "sigagg bench: the devnet did not come up with p2p from port $base:" >&2
	grep -E 'ERROR|WARN' "$tmp/devnet-$attempt.log" | tail -3 >&2
	bd_stop "$dpid"
	dn=
done
[ -n "$dn" ] || exit 1
grep 'history made' "$tmp/devnet-$attempt.log" | sed 's/.*devnet: /sigagg bench: devnet of '"$nval"' validators, /'
# the primary network's set at the last height: members, those with a key, those with a key that
# the node lists (the ones asked), their share of the weight, and the quorum that share allows
read -r height members keyed reach share qall < <(node -e '
	const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
	const P = "11111111111111111111111111111111LpoYY";
	const last = m.P.validatorSets.filter((s) => s.subnetId === P).reduce((a, b) => (BigInt(b.height) > BigInt(a.height) ? b : a));
	const listed = new Set(m.peers.map((p) => p.nodeID ?? p.nodeId));
	let t = 0n, r = 0n, k = 0, n = 0;
	for (const v of last.validators) {
		t += BigInt(v.weight);
		if (!v.publicKey) continue;
		k++;
		if (listed.has(v.nodeId)) { n++; r += BigInt(v.weight); }
	}
	console.log(last.height, last.validators.length, k, n, (Number((r * 10000n) / t) / 100).toFixed(2), String((r * 100n) / t));
' "$tmp/node/devnet-manifest.json")
[ -n "${qall:-}" ] || { echo "sigagg bench: cannot read the devnet's manifest" >&2; exit 1; }
echo "sigagg bench: P height $height: $members validators, $keyed with a BLS key, $reach of them listed by the node ($share % of the weight)"
[ "$reach" -gt 0 ] || { echo "sigagg bench: no validator can sign (BENCH_SIGAGG_DEVNET_TXS)" >&2; exit 1; }
quorums="67"
[ "$qall" -gt 67 ] && quorums="67 $qall"
"$bin" index --node "$dn" --store "$tmp/index.db" --genesis "$tmp/node/devnet-genesis.json" --progress log \
	>"$tmp/index.log" 2>&1 &
ipid=$!
bd_pids+=("$ipid")
if ! bd_wait_for $((300 + dtxs / 100)) "$ipid" grep -q 'caught up with' "$tmp/index.log"; then
	echo "sigagg bench: snowline index did not catch up:" >&2
	tail -5 "$tmp/index.log" >&2
	exit 1
fi
bd_stop "$ipid"
port=$(bd_free_port)
"$bin" api --store "$tmp/index.db" --http-port "$port" --rate-anonymous 0 --log-level warn --peers-from "$dn" \
	>"$tmp/api.log" 2>&1 &
apid=$!
bd_pids+=("$apid")
bd_wait_for 60 "$apid" curl -sf --max-time 2 -o /dev/null "http://127.0.0.1:$port/health" ||
	{ echo "sigagg bench: snowline api did not come up:" >&2; tail -5 "$tmp/api.log" >&2; exit 1; }
# an unsigned warp message: codec 0, network 5 (fuji), the devnet's C-chain (its validators sign any
# payload from the X- or C-chain; from the P-chain only its L1 messages, docs/p2p.md), a payload
msg=$(node -e '
	const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
	const A = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
	let n = 0n;
	for (const ch of m.chains.C.id) n = n * 58n + BigInt(A.indexOf(ch));
	const chain = Buffer.from(n.toString(16).padStart(72, "0"), "hex").subarray(0, 32); /* id | 4-byte checksum */
	const p = Buffer.from("snowline sigagg bench");
	const b = Buffer.alloc(2 + 4 + 32 + 4 + p.length);
	b.writeUInt32BE(5, 2); chain.copy(b, 6); b.writeUInt32BE(p.length, 38); p.copy(b, 42);
	console.log(b.toString("hex"));' "$tmp/node/devnet-manifest.json")
url=http://127.0.0.1:$port/v1/signatureAggregator/fuji/aggregateSignatures
declare -A first_ms
for q in $quorums; do
	body="{\"message\":\"$msg\",\"quorumPercentage\":$q}"
	echo "$body" >"$tmp/body-$q.json"
	cat >"$tmp/post-$q.lua" <<LUA
wrk.method = "POST"
wrk.body = [[$body]]
wrk.headers["Content-Type"] = "application/json"
LUA
	# the first request makes the pool's connections (TLS and handshakes with each validator)
	t0=$(date +%s%N)
	code=$(curl -s --max-time 60 -o "$tmp/first-$q.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
		--data-binary @"$tmp/body-$q.json" "$url")
	first_ms[$q]=$((($(date +%s%N) - t0) / 1000000))
	if [ "$code" != 200 ] || ! grep -q '"signedMessage"' "$tmp/first-$q.json"; then
		echo "sigagg bench: quorum $q: HTTP $code: $(head -c 300 "$tmp/first-$q.json")" >&2
		exit 1
	fi
done
declare -A rps p50 p99 err
for q in $quorums; do
	for c in 1 "$few"; do
		k=$q-$c
		echo "sigagg bench: quorum $q, $c connection(s), ${secs} s"
		timeout --kill-after=5 $((secs + 60)) wrk -t1 -c"$c" -d"${secs}s" --latency --timeout 30s -s "$tmp/post-$q.lua" "$url" \
			>"$tmp/wrk-$k.txt" 2>&1
		rps[$k]=$(awk '/^Requests\/sec:/ { print $2 }' "$tmp/wrk-$k.txt")
		p50[$k]=$(bd_to_ms "$(awk '$1 == "50%" { print $2; exit }' "$tmp/wrk-$k.txt")")
		p99[$k]=$(bd_to_ms "$(awk '$1 == "99%" { print $2; exit }' "$tmp/wrk-$k.txt")")
		err[$k]=$(grep -E '^ *(Non-2xx|Socket errors)' "$tmp/wrk-$k.txt" | sed 's/^ *//' | paste -sd ';' -)
	done
done
echo
echo "POST aggregateSignatures through snowline api: a devnet (--devnet-validators $nval) over loopback p2p (TLS 1.3,"
echo "ACP-118), the primary network's set at P height $height (SQLite): $members validators, $reach asked (with a BLS key,"
echo "listed by the node: $share % of the weight); wrk --latency ${secs} s; $(nproc) cores shared"
printf '    %-10s %-12s %9s %9s %9s %10s  %s\n' quorum connections "req/s" "p50 ms" "p99 ms" "first ms" notes
failed=0
for q in $quorums; do
	for c in 1 "$few"; do
		k=$q-$c
		[ -n "${rps[$k]}" ] || { printf '    %-10s %-12s %s\n' "$q %" "$c" "not measured: $(tail -2 "$tmp/wrk-$k.txt" | paste -sd ' ' -)"; failed=1; continue; }
		printf '    %-10s %-12s %9.1f %9.2f %9.2f %10s  %s\n' "$q %" "$c" "${rps[$k]}" "${p50[$k]}" "${p99[$k]}" \
			"$([ "$c" = 1 ] && echo "${first_ms[$q]}")" "${err[$k]}"
		[ -z "${err[$k]}" ] || failed=1
	done
done
echo "    (first ms: the first request at that quorum; the very first, at 67 %, also makes the pool's TLS connections)"
exit $failed
