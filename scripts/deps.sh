#!/bin/sh
# Installs the Debian packages snowline builds, tests and benchmarks with.
# Idempotent: a machine that has them all is left alone (no apt-get at all).
set -eu
PKGS="build-essential pkg-config clang libclang-rt-14-dev llvm
libjansson-dev libsqlite3-dev liblmdb-dev libsecp256k1-dev
libssl-dev libcurl4-openssl-dev libpq-dev libcmocka-dev libgoogle-perftools-dev clang-format
protobuf-c-compiler libprotobuf-c-dev libzstd-dev
google-perftools lmdb-utils sqlite3 curl ca-certificates wrk nginx-light postgresql-15 nodejs npm"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
# nodejs/npm may come from elsewhere than Debian (the machine's own Node.js): accept either.
case "$missing" in *nodejs*|*npm*) command -v node >/dev/null && command -v npm >/dev/null &&
	missing=$(echo "$missing" | sed 's/ nodejs//; s/ npm//') ;; esac
[ -z "$(echo $missing)" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run as root, or install them)" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
