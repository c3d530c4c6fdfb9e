#!/usr/bin/env bash
# Installs everything scx_arbor needs on a Debian 12 host, idempotently:
#   - build tools for the BPF scheduler (clang-19, libelf, zlib, zstd, pkg-config)
#   - the VM stack (qemu-system-x86, virtme-ng, udev, busybox-static)
#   - workloads run inside the guest (hackbench, stress-ng, perf, sysbench)
#   - a Debian kernel built with CONFIG_SCHED_CLASS_EXT, unpacked (not installed
#     as the host kernel) so virtme-ng can boot it.
# Safe to run again: each step checks whether its result is already there.
set -euo pipefail

log() { printf 'install-deps: %s\n' "$*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: must run as root (apt-get and dpkg-deb need it)" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
STAMP_DIR=/var/lib/scx-arbor
mkdir -p "$STAMP_DIR"

# --- apt sources: trixie (virtme-ng) and sid (a sched_ext kernel), pinned low
# so that nothing of the host's bookworm base is upgraded behind our back.
SRC=/etc/apt/sources.list.d/arbor.sources
PREF=/etc/apt/preferences.d/arbor.pref
want_src='Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg'
want_pref='Package: *
Pin: release n=trixie
Pin-Priority: 100

Package: *
Pin: release n=sid
Pin-Priority: 50'
changed=0
if [ "$(cat "$SRC" 2>/dev/null)" != "$want_src" ]; then printf '%s\n' "$want_src" >"$SRC"; changed=1; fi
if [ "$(cat "$PREF" 2>/dev/null)" != "$want_pref" ]; then printf '%s\n' "$want_pref" >"$PREF"; changed=1; fi
# Refresh the lists when our sources changed or they are older than a day.
if [ "$changed" = 1 ] || [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*sid*Packages*' -mmin -1440 2>/dev/null | head -n1)" ]; then
  log "apt-get update"
  apt-get update -qq
fi

# --- Debian packages (bookworm unless pinned otherwise)
PKGS=(clang-19 llvm-19 libelf-dev zlib1g-dev libzstd-dev pkg-config
      qemu-system-x86 udev busybox-static kmod
      rt-tests stress-ng linux-perf sysbench
      postgresql postgresql-contrib rt-app bpftool util-linux
      python3-matplotlib curl ca-certificates)
# (the benchmark workloads: hackbench from rt-tests, perf bench, sysbench,
#  pgbench + a PostgreSQL server, rt-app, stress-ng; bpftool reads BPF run
#  time per scheduler op; matplotlib draws arbor bench's charts; curl
#  fetches the peers' crate sources that sim/build.rs compiles)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
dpkg-query -W -f='${Status}' virtme-ng 2>/dev/null | grep -q 'install ok installed' || missing+=("virtme-ng/trixie")
if [ ${#missing[@]} -gt 0 ]; then
  log "installing: ${missing[*]}"
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- The guest kernel: newest linux-binary-*-amd64 from sid, with sched_ext.
KVER_FILE="$STAMP_DIR/kernel-version"
kver=""
[ -f "$KVER_FILE" ] && kver=$(cat "$KVER_FILE")
if [ -z "$kver" ] || [ ! -f "/usr/lib/modules/$kver/vmlinuz" ] || [ ! -f "/boot/config-$kver" ]; then
  kver=$(apt-cache search --names-only '^linux-binary-[0-9.]+\+deb[0-9]+-amd64$' \
           | awk '{print $1}' | sed -e 's/^linux-binary-//' | sort -V | tail -n1)
  [ -n "$kver" ] || { echo "install-deps: no linux-binary-*-amd64 package found in Debian sid" >&2; exit 1; }
  log "fetching kernel $kver"
  tmp=$(mktemp -d); chmod 755 "$tmp"
  ( cd "$tmp" && apt-get download -qq "linux-binary-$kver" "linux-base-$kver" "linux-modules-$kver" )
  for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" /; done
  rm -rf "$tmp"
  # libbpf resolves CONFIG_* externs from /boot/config-<ver>.
  cfg=$(find "/usr/lib/linux" "/usr/lib/modules/$kver" -name "config*" 2>/dev/null | head -n1 || true)
  if [ ! -f "/boot/config-$kver" ]; then
    for c in "/usr/lib/modules/$kver/config" "/usr/lib/linux/$kver/config" $cfg; do
      [ -f "$c" ] && { cp "$c" "/boot/config-$kver"; break; }
    done
  fi
  depmod "$kver" 2>/dev/null || true
  echo "$kver" >"$KVER_FILE"
fi
grep -q '^CONFIG_SCHED_CLASS_EXT=y' "/boot/config-$kver" || {
  echo "install-deps: kernel $kver lacks CONFIG_SCHED_CLASS_EXT" >&2; exit 1; }
log "guest kernel: $kver"
