#!/usr/bin/env bash
# Runs every libFuzzer target for a while and prints one table row per target.
#
#   ./scripts/fuzz.sh [SECONDS]        (make fuzz FUZZ_SECONDS=N; default 60)
#   FUZZ_FILTER=name narrows the targets.
#
# Each build/fuzz/fuzz_<name> starts from its committed corpus
# fuzz/corpus/fuzz_<name>/ but writes what it finds into a scratch directory,
# build/fuzz-run/fuzz_<name>/new/, so a run never edits the repository; crash
# inputs land in build/fuzz-run/fuzz_<name>/crash-* (copy one into the corpus
# once its bug is fixed, and it is replayed by `make test` from then on).
# Exit status is non-zero when any target crashed, leaked or timed out.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

secs=${1:-60}
case "$secs" in '' | *[!0-9]*) echo "fuzz: SECONDS must be a number, got '$secs'" >&2; exit 2 ;; esac
[ "$secs" -gt 0 ] || secs=60
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

targets=()
for f in build/fuzz/fuzz_*; do
	[ -x "$f" ] || continue
	[ -n "${FUZZ_FILTER:-}" ] && [[ "$(basename "$f")" != *"$FUZZ_FILTER"* ]] && continue
	targets+=("$f")
done
if [ ${#targets[@]} = 0 ]; then
	echo "fuzz: no targets in build/fuzz/ (add fuzz/fuzz_*.c and run make fuzz)"
	exit 0
fi

rows=() bad=0
for bin in "${targets[@]}"; do
	name=$(basename "$bin")
	work=build/fuzz-run/$name
	corpus=fuzz/corpus/$name
	rm -rf "$work/new"
	mkdir -p "$work/new"
	dirs=("$work/new")
	[ -d "$corpus" ] && dirs+=("$corpus")
	log=$work/log
	echo "fuzz: $name for ${secs}s (log: $log)"
	start=$(date +%s)
	# The outer timeout is a backstop for a target that hangs outside libFuzzer's own clock.
	timeout --kill-after=10 $((secs + 120)) "$bin" -max_total_time="$secs" -timeout=25 \
		-rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$work/" "${dirs[@]}" >"$log" 2>&1
	rc=$?
	ran=$(($(date +%s) - start))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	[ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
	found=$(find "$work/new" -type f | wc -l)
	if [ $rc = 0 ]; then
		result="ok (+$found new)"
	else
		bad=$((bad + 1))
		art=$(grep -oE "(crash|leak|timeout|oom|slow-unit)-[0-9a-f]+" "$log" | tail -1)
		if [ $rc = 124 ] || [ $rc = 137 ]; then
			result="HUNG (killed after $((secs + 120))s)"
		elif [ -n "$art" ]; then
			result="FAILED: $work/$art"
		else
			result="FAILED (exit $rc)"
		fi
		grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log" | sed 's/^/  /'
	fi
	rows+=("$(printf '%-28s %8s %14s  %s' "$name" "$ran" "${execs:-?}" "$result")")
done

echo
printf '%-28s %8s %14s  %s\n' "target" "seconds" "execs" "result"
printf '%s\n' "${rows[@]}"
echo
echo "fuzz: ${#targets[@]} targets, $bad failed"
[ $bad = 0 ]
