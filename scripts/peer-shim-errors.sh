#!/usr/bin/env bash
# What a peer's BPF C still needs from the simulator's shim: compiles each
# of its sources natively against sim/shim as sim/build.rs does (same
# compiler flags and defines) and prints the distinct errors, counted.
# Used to measure the "not yet" reasons of `arbor sim -s PEER`.
#
#   scripts/peer-shim-errors.sh CRATE_DIR OPS SCX_CARGO_DIR [SRC ...]
#
# CRATE_DIR: the unpacked pinned crate (e.g. scx_rusty-1.1.4); OPS: its
# struct_ops symbol (rusty); SCX_CARGO_DIR: the unpacked scx_cargo 1.1.4
# (its bpf_h/); SRC: the sources its build.rs adds besides main.bpf.c,
# relative to CRATE_DIR/src/bpf. Exits 0 if everything compiles, 1 if not.
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 CRATE_DIR OPS SCX_CARGO_DIR [SRC ...]" >&2; exit 2; }
crate=$1 ops=$2 cargo=$3; shift 3
root=$(cd "$(dirname "$0")/.." && pwd)
shim=$root/sim/shim
bpf=$crate/src/bpf
[ -f "$bpf/main.bpf.c" ] || { echo "$0: $bpf/main.bpf.c: no such file" >&2; exit 2; }
[ -d "$cargo/bpf_h" ] || { echo "$0: $cargo/bpf_h: no such directory" >&2; exit 2; }
cc=clang-19; command -v $cc >/dev/null || cc=cc
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
fail=0
for src in "$shim/sched_peer.c" "${@/#/$bpf/}"; do
  echo "== $(basename "$src")"
  log=$out/log
  if $cc -ferror-limit=0 -O2 -fPIC -Wall -Werror=implicit-function-declaration \
      -Werror=int-conversion -Wno-unused-function -Wno-unused-variable -Wno-macro-redefined \
      -I "$shim/include" -I "$bpf" -I "$bpf/lib" -I "$cargo/bpf_h" \
      -DSIM_PEER_OPS="$ops" -D__BPF__ -D__BPF_FEATURE_ADDR_SPACE_CAST \
      -c "$src" -o "$out/o" 2>"$log"; then
    echo "compiles"
  else
    fail=1
    grep -E ': error:' "$log" | sed "s|^$bpf/||" | sort | uniq -c | sort -rn
  fi
done
exit $fail
