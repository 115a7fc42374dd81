#!/bin/sh
# Builds blst (the BLS12-381 library) as a static archive from a pinned source.
#
#   ./scripts/blst.sh OUTDIR      ->  OUTDIR/libblst.a, OUTDIR/include/{blst.h,blst_aux.h}
#
# The source is the npm tarball of @chainsafe/blst@0.2.11, which carries blst's C
# and assembly sources under package/blst/. It is fetched with the machine's own
# npm (so the registry and any proxy are npm's configuration, not ours), and it is
# checked against the integrity hash pinned below before a single byte is compiled.
# Nothing in the tarball is executed: we extract only the sources and headers and
# compile them ourselves.
#
# Build flavour: like blst's own build.sh, the ADX/MULX code when this machine's
# CPU reports `adx` in /proc/cpuinfo (pairings ~20-30% faster), otherwise, or
# when the features cannot be read, or with BLST_PORTABLE=1, the portable one
# (__BLST_PORTABLE__: no ADX and no SHA extensions assumed), which runs on any
# x86-64. Build with BLST_PORTABLE=1 when the binary will run on other machines.
# The archive is plain position-independent code without sanitizer
# instrumentation, so the release, ASan and clang libFuzzer builds all link
# the same libblst.a.
#
# Idempotent: when OUTDIR/libblst.a exists and OUTDIR/.stamp records the same
# hash and flavour, nothing happens. The tarball is cached in build/cache/.
set -eu

PKG_SPEC='@chainsafe/blst@0.2.11'
PKG_FILE='chainsafe-blst-0.2.11.tgz'
PKG_SRI='sha512-URyOLq5GtxBoxibOnd2pgLydCy0UZzbiIIBcsRAvGxAsRzjZL04TsQfwRkz5aphU3a1ebeRoMmI/HHyMCiFSQg=='

die() { echo "blst: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: $0 OUTDIR"
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${BLST_CACHE:-$TOP/build/cache}
CC=${CC:-cc}

flavour=portable
if [ "${BLST_PORTABLE:-0}" != 1 ] && [ "$(uname -m)" = x86_64 ] &&
	grep -q -w adx /proc/cpuinfo 2>/dev/null; then
	flavour=adx
fi
stamp="$PKG_SRI $flavour"
if [ -f "$OUT/libblst.a" ] && [ -f "$OUT/include/blst.h" ] && [ -f "$OUT/.stamp" ] &&
	[ "$(cat "$OUT/.stamp")" = "$stamp" ]; then
	touch "$OUT/libblst.a" # up to date: tell make so, or it asks again on every run
	exit 0
fi

sri_of() { # file -> "sha512-<base64>"
	if command -v openssl >/dev/null 2>&1; then
		printf 'sha512-%s' "$(openssl dgst -sha512 -binary "$1" | base64 | tr -d '\n')"
	else
		printf 'sha512-%s' "$(node -e 'const c = require("crypto"), fs = require("fs");
process.stdout.write(c.createHash("sha512").update(fs.readFileSync(process.argv[1])).digest("base64"))' "$1")"
	fi
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/blst.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

mkdir -p "$CACHE"
tgz=$CACHE/$PKG_FILE
if [ -f "$tgz" ] && [ "$(sri_of "$tgz")" != "$PKG_SRI" ]; then
	echo "blst: cached $tgz does not match the pinned hash; fetching again" >&2
	rm -f "$tgz"
fi
if [ ! -f "$tgz" ]; then
	command -v npm >/dev/null 2>&1 || die "npm is needed to fetch $PKG_SPEC (run scripts/deps.sh)"
	echo "blst: fetching $PKG_SPEC with npm"
	(cd "$tmp" && npm pack "$PKG_SPEC" --ignore-scripts --prefer-offline \
		--no-audit --no-fund --loglevel=error >/dev/null) || die "npm pack $PKG_SPEC failed"
	[ -f "$tmp/$PKG_FILE" ] || die "npm pack did not produce $PKG_FILE"
	got=$(sri_of "$tmp/$PKG_FILE")
	[ "$got" = "$PKG_SRI" ] || die "integrity mismatch for $PKG_SPEC: got $got, pinned $PKG_SRI; refusing to build"
	mv "$tmp/$PKG_FILE" "$tgz.part" && mv "$tgz.part" "$tgz"
fi
# Checked again on every build: the cache is a file anyone could have replaced.
got=$(sri_of "$tgz") || true
[ "$got" = "$PKG_SRI" ] || die "integrity mismatch for $tgz: got $got; refusing to build"

# Only the C sources, the assembly and the two public headers; no bindings, no
# prebuilt binaries, no scripts.
tar -xzf "$tgz" -C "$tmp" --no-same-owner \
	package/blst/LICENSE package/blst/src package/blst/build \
	package/blst/bindings/blst.h package/blst/bindings/blst_aux.h ||
	die "tarball lacks the expected package/blst/ sources"
src=$tmp/package/blst

cflags="-O2 -fno-builtin -fPIC -Wall -Wextra"
if $CC -dM -E -x c /dev/null 2>/dev/null | grep -q __x86_64__; then
	cflags="$cflags -mno-avx" # blst's own advice: avoid AVX/SSE transition costs
	if [ $flavour = adx ]; then
		cflags="$cflags -D__ADX__"
	else
		cflags="$cflags -D__BLST_PORTABLE__"
	fi
else
	cflags="$cflags -D__BLST_PORTABLE__"
fi

echo "blst: building libblst.a ($flavour) with $CC"
# shellcheck disable=SC2086 # $cflags is a list of flags
(cd "$tmp" &&
	$CC $cflags -c "$src/src/server.c" -o server.o &&
	$CC $cflags -c "$src/build/assembly.S" -o assembly.o &&
	ar rcs libblst.a server.o assembly.o) || die "compile failed"

mkdir -p "$OUT/include"
cp "$src/bindings/blst.h" "$src/bindings/blst_aux.h" "$OUT/include/"
cp "$src/LICENSE" "$OUT/LICENSE"
mv "$tmp/libblst.a" "$OUT/libblst.a"
printf '%s\n' "$stamp" >"$OUT/.stamp"
echo "blst: $OUT/libblst.a ready"
