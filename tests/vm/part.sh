#!/usr/bin/env bash
# Runs some sections of the VM suite alone, e.g. to re-check one after a
# change without the whole suite's hour under TCG:
#   arbor vm --kernel rt -- tests/vm/part.sh seeds hotplug
# Each name is a script of tests/vm sourced by suite.sh (seeds, harden,
# hotplug, proctable, lb). Prints PASS/FAIL per check and ends with
# "N passed, N failed"; exits non-zero if any check failed.
set -u
. "$(dirname "$0")/lib.sh"
[ $# -gt 0 ] || { echo "part.sh: name at least one section (seeds, ours, harden, hotplug, proctable, lb)" >&2; exit 2; }
for s in "$@"; do
	f="$(dirname "$0")/$s.sh"
	case $s in suite|part|lib|*/*) f=;; esac
	[ -n "$f" ] && [ -f "$f" ] || { echo "part.sh: no section '$s' (seeds, ours, harden, hotplug, proctable, lb)" >&2; exit 2; }
done
echo "== guest: $(uname -r), $(nproc) CPUs; scx_arbor: $ARBOR_BIN; sections: $*"
for s in "$@"; do
	. "$(dirname "$0")/$s.sh"
done
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
