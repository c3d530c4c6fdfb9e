# Sourced by a finding's run.sh (`. "$(dirname "$0")/../lib.sh"`): stop at
# the first failure, run from the repository's root with its own build of
# arbor as $A, and write into $OUT, by default /tmp/NAME (NAME: the
# finding's folder).
set -euo pipefail
name=$(basename "$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)")
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
A=./target/release/arbor
OUT=${OUT:-/tmp/$name}
mkdir -p "$OUT"
