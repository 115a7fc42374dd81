#!/usr/bin/env bash
# The checks a machine makes on every `make test` (STYLE.md: "what a machine can check, a machine
# checks"). Exit 1 and a line per finding when one fails.
#   format    every tracked C file matches .clang-format (clang-format --dry-run)
#   layers    a folder of src/ includes only folders to its left in
#             util → crypto → codec → store, http, p2p → node, devnet, index, api → cmd
#   libraries each third-party header is included from one place only
set -uo pipefail
cd "$(dirname "$0")/.."
bad=0
say() { printf 'lint: %s\n' "$*"; bad=1; }

# ---- format
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find src tests fuzz plugins -name '*.[ch]')
if command -v clang-format >/dev/null; then
	out=$(printf '%s\n' $files | xargs clang-format --dry-run 2>&1 | grep 'warning:' | cut -d: -f1-2 | sort -u)
	[ -z "$out" ] || { say "not formatted (make format):"; printf '  %s\n' $out; }
else
	say "clang-format is missing (scripts/deps.sh installs it)"
fi

# ---- layers: the tier of each folder; an include may only go to a lower tier or its own folder
declare -A tier=([util]=0 [crypto]=1 [codec]=2 [store]=3 [http]=3 [p2p]=3 [node]=4 [devnet]=4 [index]=4 [api]=4 [cmd]=5)
for f in $(printf '%s\n' $files | grep '^src/[a-z]*/'); do
	dir=${f#src/}; dir=${dir%%/*}
	[ -n "${tier[$dir]:-}" ] || { say "$f: folder src/$dir has no tier (scripts/lint.sh)"; continue; }
	while IFS= read -r inc; do
		to=${inc%%/*}
		[ "$to" = "$dir" ] && continue
		[ -n "${tier[$to]:-}" ] || continue
		[ "${tier[$to]}" -lt "${tier[$dir]}" ] || say "$f includes $inc: src/$dir may only include folders to its left"
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z]*\/[^"]*\)".*/\1/p' "$f")
done

# ---- libraries: header pattern → the one file pattern allowed to include it
check_lib() { # name header-regex allowed-path-regex
	local hits
	hits=$(printf '%s\n' $files | grep '^src/' | xargs grep -lE "^[[:space:]]*#[[:space:]]*include[[:space:]]*<($2)" 2>/dev/null | grep -vE "$3")
	[ -z "$hits" ] || say "$1 is included outside $3: $(echo $hits)"
}
check_lib sqlite 'sqlite3\.h' '^src/store/sql_sqlite\.c$'
check_lib libpq 'libpq-fe\.h|postgresql/' '^src/store/sql_pg\.c$'
check_lib lmdb 'lmdb\.h' '^src/store/'
check_lib jansson 'jansson\.h' '^src/util/'
check_lib libcurl 'curl/' '^src/http/'
check_lib openssl 'openssl/' '^src/crypto/'
check_lib secp256k1 'secp256k1' '^src/crypto/'
check_lib blst 'blst' '^src/crypto/'
check_lib gperftools 'gperftools/' '^src/node/'
check_lib protobuf-c 'protobuf-c/' '^src/p2p/'
check_lib zstd 'zstd\.h' '^src/p2p/'
exit $bad
