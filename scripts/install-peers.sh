#!/usr/bin/env bash
# Install the peer sched_ext schedulers that `arbor bench` compares against,
# at pinned versions, into a project-local directory (.peers/, not committed).
# Idempotent: a peer already installed at its pinned version is skipped.
#
#   scripts/install-peers.sh [PEER ...]     (default: all of them)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="${ARBOR_PEERS_DIR:-$PWD/.peers}"
export PATH="$HOME/.cargo/bin:$PATH"
export BPF_CLANG="${BPF_CLANG:-clang-19}"

# Pinned versions: the newest stable release of each crate on crates.io
# when the harness was written (docs/peers describes each).
declare -A PIN=(
  [bpfland]=1.1.4
  [cosmos]=1.1.7
  [lavd]=1.1.4
  [p2dq]=1.1.4
  [rusty]=1.1.4
)

peers=("$@")
[ ${#peers[@]} -eq 0 ] && peers=(bpfland cosmos lavd p2dq rusty)
mkdir -p "$ROOT"
for p in "${peers[@]}"; do
  v="${PIN[$p]:-}"
  if [ -z "$v" ]; then
    echo "install-peers: unknown peer '$p' (known: ${!PIN[*]})" >&2
    exit 2
  fi
  stamp="$ROOT/.scx_$p.version"
  if [ -x "$ROOT/bin/scx_$p" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$v" ]; then
    echo "install-peers: scx_$p $v already installed"
    continue
  fi
  echo "install-peers: building scx_$p $v (takes minutes)"
  log="$ROOT/scx_$p.build.log"
  if ! cargo install --locked --root "$ROOT" --version "$v" "scx_$p" >"$log" 2>&1; then
    echo "install-peers: scx_$p $v failed to build; last lines of $log:" >&2
    tail -5 "$log" >&2
    exit 1
  fi
  echo "$v" >"$stamp"
done
