#!/usr/bin/env bash
# Fetches the kernel's sched_ext sources that the simulator builds the
# kernel's own selftests from: Debian's linux-source-7.2, at a
# pinned version and sha256, of which only these are kept (nothing of it is
# committed to this tree):
#   tools/testing/selftests/sched_ext/   the selftests (BPF and user-space halves)
#   tools/sched_ext/                     the example schedulers and their scx/ headers
#   Makefile                             (the kernel's version)
# into DEST (default /var/cache/scx-arbor/ksrc, or $ARBOR_KSRC), as
# DEST/linux-source-7.2_7.2.13-1/ with a stamp file holding the .deb's sha256,
# which sim/build.rs checks against its own pin.
# Idempotent: an extraction whose stamp matches the pin is left alone.
#
#   scripts/install-ksrc.sh [DEST]
set -euo pipefail

PKG=linux-source-7.2
VER=7.2.13-1
# sha256 of linux-source-7.2_7.2.13-1_all.deb (Debian sid, deb.debian.org);
# sim/build.rs pins the same value (KSRC_SHA256).
SHA=30a8c5fc63f9028a62e6d7b3f7f43bee67425dbce2a05fceba83f9b87c92083d
NAME=${PKG}_${VER}
DEST=${1:-${ARBOR_KSRC:-/var/cache/scx-arbor/ksrc}}
DIR=$DEST/$NAME
STAMP=$DIR/.sha256

log() { printf 'install-ksrc: %s\n' "$*" >&2; }

if [ "$(cat "$STAMP" 2>/dev/null)" = "$SHA" ] &&
   [ -f "$DIR/tools/testing/selftests/sched_ext/minimal.bpf.c" ]; then
  log "$NAME already in $DIR"
  exit 0
fi
mkdir -p "$DEST"
tmp=$(mktemp -d "$DEST/.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
deb=$tmp/${NAME}_all.deb
log "fetching $PKG $VER (164 MB)"
# apt first (the sid source install-deps.sh configures); sid drops a version
# once the next one lands, so then the pool (same file while it is there)
if ! (cd "$tmp" && apt-get download -qq "$PKG=$VER" >/dev/null 2>&1 && mv "$tmp/${NAME}_all.deb" "$deb" 2>/dev/null); then
  url="http://deb.debian.org/debian/pool/main/l/linux/${NAME}_all.deb"
  curl -sSfL --retry 3 -m 900 -o "$deb" "$url" || {
    echo "install-ksrc: $PKG $VER is neither in apt's lists nor at $url (sid has moved on: take it from snapshot.debian.org and pass its directory, see scripts/install-ksrc.sh)" >&2
    exit 1
  }
fi
got=$(sha256sum "$deb" | cut -d' ' -f1)
if [ "$got" != "$SHA" ]; then
  echo "install-ksrc: ${NAME}_all.deb has sha256 $got, expected $SHA" >&2
  exit 1
fi
log "extracting tools/testing/selftests/sched_ext and tools/sched_ext"
dpkg-deb --fsys-tarfile "$deb" | tar -xf - -C "$tmp" "./usr/src/$PKG.tar.xz"
tar -xJf "$tmp/usr/src/$PKG.tar.xz" -C "$tmp" \
  "$PKG/tools/testing/selftests/sched_ext" "$PKG/tools/sched_ext" "$PKG/Makefile"
rm -rf "$DIR"
mv "$tmp/$PKG" "$DIR"
echo "$SHA" >"$STAMP"
log "$NAME in $DIR"
