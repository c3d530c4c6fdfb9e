#!/usr/bin/env bash
# VM checks of the daemon's hardening: the stats socket's modes
# and credentials. Sourced by suite.sh, or run alone:
#   arbor vm -- tests/vm/harden.sh
if [ -z "${HARDEN_SOURCED:-}" ] && ! declare -F check >/dev/null; then
	set -u
	. "$(dirname "$0")/lib.sh"
	HARDEN_ALONE=1
fi

SOCK=/var/run/scx/root/stats
mode_of() { stat -c %a "$1" 2>/dev/null; }
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# ---- the stats socket under umask 000: 0700/0600, and others refused ----
rm -rf /var/run/scx/root	# as after a reboot: created by us under umask 000
OLDMASK=$(umask)
umask 000
start_sched -f STEAL
ok=$?
umask "$OLDMASK"
if [ $ok -eq 0 ]; then
	nap 1
	check "umask 000: /var/run/scx/root is 700 (got $(mode_of /var/run/scx/root))" test "$(mode_of /var/run/scx/root)" = 700
	check "umask 000: the stats socket is 600 (got $(mode_of $SOCK))" test "$(mode_of $SOCK)" = 600
	before=$("$ARBOR_BIN" --show-features 2>&1)
	out=$(nobody "$ARBOR_BIN" --set-features NO_STEAL 2>&1); rc=$?
	after=$("$ARBOR_BIN" --show-features 2>&1)
	check "a non-root user cannot switch features (rc=$rc: $out)" \
		sh -c "[ $rc -ne 0 ] && [ '$before' = '$after' ] && echo '$after' | grep -qw STEAL"
	# opened by hand: SO_PEERCRED still refuses another user
	chmod 755 /var/run/scx/root
	chmod 666 $SOCK
	out=$(nobody "$ARBOR_BIN" --set-features NO_STEAL 2>&1); rc=$?
	after=$("$ARBOR_BIN" --show-features 2>&1)
	check "socket opened by hand: the peer's credentials refuse nobody ($out)" \
		sh -c "[ $rc -ne 0 ] && echo '$out' | grep -qi 'permission denied' && echo '$after' | grep -qw STEAL"
	out=$("$ARBOR_BIN" --set-features NO_STEAL 2>&1); rc=$?
	check "root still switches features ($out)" sh -c "[ $rc -eq 0 ] && echo '$out' | grep -qw NO_STEAL"
	# a request line without end is cut off, and the daemon keeps serving
	ans=$(timeout 20 python3 -c "
import socket
s = socket.socket(socket.AF_UNIX); s.connect('$SOCK'); s.settimeout(15)
try:
    s.sendall(b'x' * 200000)
except OSError:
    pass
print(s.recv(4096).decode(errors='replace'))
" 2>&1)
	out=$("$ARBOR_BIN" --show-features 2>&1); rc=$?
	check "a 200 kB request line is refused ($ans) and the daemon keeps serving" \
		sh -c "echo '$ans' | grep -q 'longer than' && [ $rc -eq 0 ] && kill -0 $SPID"
	stop_sched
	check "clean unload" test "$SRC" -eq 0
	check "the socket is removed at exit" test ! -e $SOCK
else
	fail "umask 000: scx_arbor loads"
fi

# --stats-group: its members may connect
if start_sched --stats-group nogroup; then
	nap 1
	check "--stats-group: dir 750, socket 660" test "$(mode_of /var/run/scx/root)$(mode_of $SOCK)" = 750660
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$ARBOR_BIN" --show-features 2>&1); rc=$?
	check "--stats-group nogroup: a member reads the features ($out)" test $rc -eq 0
	stop_sched
else
	fail "--stats-group nogroup: loads"
fi

# ---- an error of ours (a failed snapshot write) is reported as what it
# is, after the orderly unload; never as a kernel ejection ----
JD=$(mktemp -d)
if start_sched --stats-json "$JD/c.json"; then
	counters_now "$JD/c.json"
	check "a SIGUSR1 snapshot is written" test -s "$JD/c.json"
	rm -rf "$JD"
	kill -USR1 "$SPID"
	for i in $(seq 1 80); do kill -0 "$SPID" 2>/dev/null || break; nap 0.25; done
	kill -0 "$SPID" 2>/dev/null && kill -INT "$SPID"
	wait_limit "$SPID" 120; rc=$?; SPID=
	wait_disabled 40
	err=$(grep 'error:' "$SLOG")
	check "failed snapshot write: exit 1 and the error says what failed ($err)" \
		sh -c "[ $rc -eq 1 ] && echo '$err' | grep -q 'stats-json snapshot' && echo '$err' | grep -q 'does not exist'"
	check "failed snapshot write: not called an ejection" sh -c "! grep -qi 'eject' '$SLOG'"
	check "failed snapshot write: orderly unload (final counters, unregistered from user space, disabled)" \
		sh -c "grep -q '^.*final: busy' '$SLOG' && grep -q 'unregistered from user space' '$SLOG' && [ \"\$(cat $SCX/state)\" = disabled ]"
else
	fail "snapshot error test: loads"
fi

if [ -n "${HARDEN_ALONE:-}" ]; then
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
fi
