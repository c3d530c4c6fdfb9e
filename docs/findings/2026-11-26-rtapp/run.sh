#!/usr/bin/env bash
# rt-app's own examples in the simulator (FILE: each examples/*.json of rt-app's source tree).
# commit: 84cdc75e3881594b26fd806099b444066a3bae96 (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

RTAPP_SRC=${RTAPP_SRC:?rt-app source tree}
for f in $(cd "$RTAPP_SRC/doc" && find examples -name '*.json' | sort); do
  (cd "$(mktemp -d)" && timeout -s INT 2 rt-app "$RTAPP_SRC/doc/$f") || true    # as root: rt-app's own run
  $A sim -t x86-12 -s arbor:stock -w rt-app:"$RTAPP_SRC/doc/$f" --time-limit 10 || true
done
