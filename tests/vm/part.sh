#!/usr/bin/env bash
# Runs sections of the VM suite (suite.sh runs them all), e.g. one alone to
# re-check it after a change without the whole suite's half hour under TCG:
#   arbor vm --kernel rt -- tests/vm/part.sh seeds hotplug
# Each name is a script of tests/vm, one of SECTIONS below; each section's
# time is printed after it; `all` runs every one. Prints PASS/FAIL per
# check and ends with "N passed, N failed"; exits non-zero if any failed.
set -u
. "$(dirname "$0")/lib.sh"
SECTIONS="core seeds ours sisnode harden hotplug proctable lb"
NAMES=$(echo $SECTIONS | sed 's/ /, /g')
[ $# -gt 0 ] || { echo "part.sh: name at least one section ($NAMES), or all" >&2; exit 2; }
[ "$*" = all ] && set -- $SECTIONS
for s in "$@"; do
	[[ " $SECTIONS " == *" $s "* ]] || { echo "part.sh: no section '$s' ($NAMES)" >&2; exit 2; }
done
echo "== guest: $(uname -r), $(nproc) CPUs; scx_arbor: $ARBOR_BIN; sections: $*"
T0=$SECONDS
for s in "$@"; do
	t=$SECONDS
	. "$(dirname "$0")/$s.sh"
	echo "== section $s: $((SECONDS - t)) s"
done
echo "== sections $*: $((SECONDS - T0)) s"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
