#!/usr/bin/env bash
# Installs everything scx_arbor needs on a Debian 12 host, idempotently:
#   - build tools for the BPF scheduler (clang-19, libelf, zlib, zstd, pkg-config)
#   - the VM stack (qemu-system-x86, virtme-ng, udev, busybox-static)
#   - workloads run inside the guest (hackbench, stress-ng, perf, sysbench)
#   - a Debian kernel built with CONFIG_SCHED_CLASS_EXT, unpacked (not installed
#     as the host kernel) so virtme-ng can boot it;
#   - only when asked, more guest kernels: KERNELS="rt next cloud" (all = rt
#     next): sid's PREEMPT_RT and cloud flavours, experimental's release
#     candidate.
#     `arbor vm --kernel rt|cloud|next` boots them.
#   - the kernel's sched_ext selftests' sources (scripts/install-ksrc.sh),
#     for the simulator's tests.
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

# --- apt sources: trixie (virtme-ng), sid (a sched_ext kernel) and experimental
# (the next kernel's release candidate, fetched only when asked), pinned low
# so that nothing of the host's bookworm base is upgraded behind our back.
SRC=/etc/apt/sources.list.d/arbor.sources
PREF=/etc/apt/preferences.d/arbor.pref
want_src='Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie sid experimental
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg'
want_pref='Package: *
Pin: release n=trixie
Pin-Priority: 100

Package: *
Pin: release n=sid
Pin-Priority: 50

Package: *
Pin: release a=experimental
Pin-Priority: 1'
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
      python3-matplotlib curl ca-certificates
      slurm-wlm munge)
# (the benchmark workloads: hackbench from rt-tests, perf bench, sysbench,
#  pgbench + a PostgreSQL server, rt-app, stress-ng; bpftool reads BPF run
#  time per scheduler op; matplotlib draws arbor bench's charts; curl
#  fetches the peers' crate sources that sim/build.rs compiles; slurm-wlm
#  and munge: scripts/slurm-local.sh's one-node cluster for sharded sweeps)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
dpkg-query -W -f='${Status}' virtme-ng 2>/dev/null | grep -q 'install ok installed' || missing+=("virtme-ng/trixie")
if [ ${#missing[@]} -gt 0 ]; then
  log "installing: ${missing[*]}"
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- Guest kernels. unpack_kernel VER: the image, config and modules of
# linux-binary-VER, unpacked under / (not installed: no maintainer scripts),
# unless already there; refuses a kernel without sched_ext.
unpack_kernel() {
  local kver=$1 tmp c
  if [ ! -f "/usr/lib/modules/$kver/vmlinuz" ] || [ ! -f "/boot/config-$kver" ]; then
    log "fetching kernel $kver"
    tmp=$(mktemp -d); chmod 755 "$tmp"
    ( cd "$tmp" && apt-get download -qq "linux-binary-$kver" "linux-base-$kver" "linux-modules-$kver" )
    for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" /; done
    rm -rf "$tmp"
    # libbpf resolves CONFIG_* externs from /boot/config-<ver>.
    if [ ! -f "/boot/config-$kver" ]; then
      for c in "/usr/lib/modules/$kver/config" "/usr/lib/linux/$kver/config" \
               $(find /usr/lib/linux "/usr/lib/modules/$kver" -name 'config*' 2>/dev/null | head -n1); do
        [ -f "$c" ] && { cp "$c" "/boot/config-$kver"; break; }
      done
    fi
    depmod "$kver" 2>/dev/null || true
  fi
  [ -f "/usr/lib/modules/$kver/vmlinuz" ] || {
    echo "install-deps: linux-binary-$kver has no /usr/lib/modules/$kver/vmlinuz" >&2; exit 1; }
  grep -q '^CONFIG_SCHED_CLASS_EXT=y' "/boot/config-$kver" || {
    echo "install-deps: kernel $kver lacks CONFIG_SCHED_CLASS_EXT" >&2; exit 1; }
}

# newest_kernel REGEX: the newest VER of the linux-binary-VER packages whose
# VER matches REGEX (anchored), empty if none.
newest_kernel() {
  apt-cache search --names-only "^linux-binary-$1\$" | awk '{print $1}' \
    | sed -e 's/^linux-binary-//' | sort -V | tail -n1
}

# The default guest kernel: the newest generic one from sid (its versions
# carry +debN; experimental's do not).
KVER_FILE="$STAMP_DIR/kernel-version"
kver=""
[ -f "$KVER_FILE" ] && kver=$(cat "$KVER_FILE")
if [ -z "$kver" ] || [ ! -f "/usr/lib/modules/$kver/vmlinuz" ] || [ ! -f "/boot/config-$kver" ]; then
  kver=$(newest_kernel '[0-9.]+\+deb[0-9]+-amd64')
  [ -n "$kver" ] || { echo "install-deps: no linux-binary-*-amd64 package found in Debian sid" >&2; exit 1; }
  unpack_kernel "$kver"
  echo "$kver" >"$KVER_FILE"
fi
unpack_kernel "$kver"
log "guest kernel: $kver"

# More guest kernels, only when asked (each a few hundred MB and another VM
# suite run): KERNELS="rt next cloud", or all. Each is recorded as
# $STAMP_DIR/kernels/NAME, which `arbor vm --kernel NAME` reads.
#   rt    sid's PREEMPT_RT flavour of the default kernel's release
#   next  experimental's release candidate, generic flavour, if there is one
#   cloud sid's cloud flavour; not in `all`: it has no 9p, so virtme-ng
#         cannot mount the host's root in it unless virtiofsd is installed
#         (`arbor vm --kernel cloud` says so)
KERNELS=${KERNELS:-}
[ "$KERNELS" = all ] && KERNELS="rt next"
mkdir -p "$STAMP_DIR/kernels"
for name in $KERNELS; do
  case "$name" in
    rt|cloud) want=$(newest_kernel "[0-9.]+\\+deb[0-9]+-$name-amd64") ;;
    next) want=$(newest_kernel '[0-9.]+(-rc[0-9]+)?-amd64') ;;
    *) echo "install-deps: KERNELS: unknown kernel '$name' (known: rt, cloud, next, all)" >&2; exit 1 ;;
  esac
  if [ -z "$want" ]; then
    [ "$name" = next ] && { log "no release candidate in experimental: skipping 'next'"; continue; }
    echo "install-deps: no $name kernel package found in Debian sid" >&2; exit 1
  fi
  unpack_kernel "$want"
  echo "$want" >"$STAMP_DIR/kernels/$name"
  log "guest kernel $name: $want"
done

# --- The kernel's sched_ext selftests and example schedulers (Debian's
# linux-source-7.2, pinned by sha256), which sim/build.rs compiles into the
# simulator (sim/tests/selftests.rs).
bash "$(dirname "$0")/install-ksrc.sh"

# --- tracefs, for `perf sched record` (README journey 2) and the test that
# records a trace here (arbor/tests/reproduce.rs): mounted once, if missing.
if ! mountpoint -q /sys/kernel/tracing; then
  mount -t tracefs nodev /sys/kernel/tracing || log "could not mount tracefs: perf sched record will fail"
fi
