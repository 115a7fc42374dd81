#!/usr/bin/env bash
# Runs every test suite and prints one closing line: "tests: N passed, M failed".
#   lint  — scripts/lint.sh: clang-format, include layering, third-party header placement
#   unit  — each build/asan/tests/test_* (cmocka), one suite per binary
#   fuzz  — each build/asan/replay/fuzz_* replayed over fuzz/corpus/fuzz_*/
#   e2e   — node's test runner over tests/e2e/*.test.mjs against build/asan/snowline
# SUITES="unit fuzz e2e" selects; E2E_FILTER=name narrows the e2e files.
set -uo pipefail
cd "$(dirname "$0")/.."
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
SUITES=${SUITES:-lint unit fuzz e2e}

# One throwaway PostgreSQL server for the whole run (store tests run on both backends).
PG_DIR=$(mktemp -d /tmp/snowline-pg-XXXXXX)
trap 'scripts/pg-test-server.sh stop "$PG_DIR"; rm -rf "$PG_DIR"' EXIT
if [[ " $SUITES " == *" unit "* || " $SUITES " == *" e2e "* ]]; then
	pg_env=$(scripts/pg-test-server.sh start "$PG_DIR") && eval "$pg_env" ||
		echo "tests: cannot start PostgreSQL; the PostgreSQL halves of the store tests will fail"
fi
# Unit binaries and e2e files run E2E_JOBS at a time (default: the number of cores); each
# writes its own log, and the summary below reads them in a fixed order.
E2E_JOBS=${E2E_JOBS:-$(nproc 2>/dev/null || echo 1)}
pool() { # function items...: runs "function item" for each, E2E_JOBS at once
	local fn=$1 it; shift
	for it in "$@"; do
		# the jobs still running, counted (wait -n may also return for one that ended before)
		while [ "$(jobs -rp | wc -l)" -ge "$E2E_JOBS" ]; do wait -n; done
		"$fn" "$it" &
	done
	wait
}
pass=0 fail=0 failed=()   # suites
cases_pass=0 cases_fail=0 # individual tests inside the suites
note() { printf '%s\n' "$*"; }
record() { # name rc
	if [ "$2" = 0 ]; then pass=$((pass + 1)); note "ok   $1"; else fail=$((fail + 1)); failed+=("$1"); note "FAIL $1"; fi
}

if [[ " $SUITES " == *" lint "* ]]; then
	note "== lint (format, layers, libraries)"
	out=$(./scripts/lint.sh 2>&1); rc=$?
	[ $rc = 0 ] || printf '%s\n' "$out"
	if [ $rc = 0 ]; then cases_pass=$((cases_pass + 1)); else cases_fail=$((cases_fail + 1)); fi
	record "lint" $rc
fi

if [[ " $SUITES " == *" unit "* ]]; then
	note "== unit tests (cmocka, ASan+UBSan)"
	unit_one() { # binary: build/asan/tests/<name>.{log,rc}
		local log=build/asan/tests/$(basename "$1").log
		timeout --kill-after=15 "${UNIT_TIMEOUT:-600}" "$1" >"$log" 2>&1
		echo $? >"${log%.log}.rc"
	}
	units=()
	for t in build/asan/tests/test_*; do [[ -x "$t" && "$t" != *.* ]] && units+=("$t"); done
	pool unit_one "${units[@]}"
	for t in "${units[@]}"; do
		log=build/asan/tests/$(basename "$t").log rc=$(cat "build/asan/tests/$(basename "$t").rc")
		[ "$rc" = 0 ] || cat "$log"
		grep -E '^\[  (PASSED|FAILED)  \]' "$log" | sed "s|^|  $(basename "$t"): |"
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
		[ "$rc" = 0 ] || [ -n "$f" ] || f=1
		cases_pass=$((cases_pass + ${p:-0})); cases_fail=$((cases_fail + ${f:-0}))
		record "unit/$(basename "$t")" "$rc"
	done
fi

if [[ " $SUITES " == *" fuzz "* ]]; then
	note "== fuzz corpus replay (ASan+UBSan)"
	for r in build/asan/replay/fuzz_*; do
		[ -x "$r" ] || continue
		name=$(basename "$r")
		dir=fuzz/corpus/$name
		out=$("$r" "$dir" 2>&1); rc=$?
		note "  $name: $(printf '%s' "$out" | tail -1)"
		[ $rc = 0 ] || printf '%s\n' "$out" | tail -40
		if [ $rc = 0 ]; then cases_pass=$((cases_pass + 1)); else cases_fail=$((cases_fail + 1)); fi
		record "fuzz/$name" $rc
	done
fi

if [[ " $SUITES " == *" e2e "* ]]; then
	note "== end-to-end tests (node --test, real npm clients, ASan binary)"
	if [ ! -d tests/e2e/node_modules ] || [ tests/e2e/package-lock.json -nt tests/e2e/node_modules/.package-lock.json ]; then
		(cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error) || { record "e2e/npm-ci" 1; }
	fi
	export SNOWLINE_BIN=${SNOWLINE_BIN:-$PWD/build/asan/snowline}
	export SNOWLINE_BIN_RELEASE=${SNOWLINE_BIN_RELEASE:-$PWD/build/snowline}
	export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
	E2E_FILE_TIMEOUT=${E2E_FILE_TIMEOUT:-900} # seconds; the longest file takes 150-320 here
	e2e_one() { # file: build/e2e-<name>.{log,rc}, and a line as it ends
		local f=$1 log=build/e2e-$(basename "$1" .test.mjs).log t0=$SECONDS
		# A file that hangs is stopped (with what it started: timeout signals its process
		# group) and fails with its log, instead of holding the whole run until CI's limit.
		timeout --kill-after=15 "$E2E_FILE_TIMEOUT" node --test --test-reporter=spec "$f" >"$log" 2>&1
		local rc=$?
		[ $rc = 124 ] && echo "e2e: $(basename "$f") stopped after ${E2E_FILE_TIMEOUT} s" >>"$log"
		echo $rc >"${log%.log}.rc"
		note "  ... e2e/$(basename "$f"): $([ $rc = 0 ] && echo passed || echo FAILED) in $((SECONDS - t0)) s$([ $rc = 124 ] && echo ' (stopped: too long)')"
	}
	files=()
	for f in tests/e2e/*.test.mjs; do
		[ -f "$f" ] || continue
		[ -n "${E2E_FILTER:-}" ] && [[ "$f" != *"$E2E_FILTER"* ]] && continue
		files+=("$f")
	done
	# The longest files first, so that the lanes end together: as long as they took in the last
	# run (build/e2e-*.log), or, in a fresh tree, as they took when this list was written (s).
	mkdir -p build
	declare -A took=([index-crash]=320 [dataapi-truth]=100 [dataapi-sdk-pg]=40 [sigagg-p2p-pg]=34
		[sigagg-p2p]=33 [dataapi-sdk]=30 [devnet]=28 [exports-pg]=25 [evm-index]=23)
	sorted=$(for f in "${files[@]}"; do
		name=$(basename "$f" .test.mjs)
		ms=$(sed -n 's/^ℹ duration_ms \([0-9]*\).*/\1/p' "build/e2e-$name.log" 2>/dev/null | tail -1)
		echo "$((${ms:-0} / 1000 > 0 ? ${ms:-0} / 1000 : ${took[$name]:-0})) $f"
		rm -f "build/e2e-$name.rc"
	done | sort -k1,1nr -k2 | cut -d' ' -f2-)
	files=(); [ -z "$sorted" ] || mapfile -t files <<<"$sorted"
	note "  ($E2E_JOBS files at a time; each one's summary follows, in order, when all have ended)"
	pool e2e_one "${files[@]}"
	for f in $(printf '%s\n' "${files[@]}" | sort); do
		log=build/e2e-$(basename "$f" .test.mjs).log rc=$(cat "build/e2e-$(basename "$f" .test.mjs).rc")
		grep -E '^ *(✔|✖|ℹ (tests|pass|fail))' "$log" | sed 's/^/  /' | grep -v '^ *✔' | head -60
		[ "$rc" = 0 ] || grep -B2 -A25 -E '✖' "$log" | head -150
		np=$(sed -n 's/^ℹ pass \([0-9]*\)$/\1/p' "$log" | tail -1)
		nf=$(sed -n 's/^ℹ fail \([0-9]*\)$/\1/p' "$log" | tail -1)
		[ "$rc" = 0 ] || [ "${nf:-0}" != 0 ] || nf=1
		cases_pass=$((cases_pass + ${np:-0})); cases_fail=$((cases_fail + ${nf:-0}))
		record "e2e/$(basename "$f")" "$rc"
	done
fi

note ""
[ ${#failed[@]} = 0 ] || note "failed: ${failed[*]}"
note "suites: $pass passed, $fail failed"
note "tests: $cases_pass passed, $cases_fail failed"
[ $fail = 0 ]
