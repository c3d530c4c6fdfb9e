#!/usr/bin/env bash
# Group scheduling in a guest, on the kernel's own interfaces: two cgroup v2
# groups of cpu.weight 100 and 300, each with two busy loops, all pinned to
# CPU 1, share it 25% : 75% (CPU time from each group's cpu.stat
# usage_usec), under the kernel's EEVDF and under scx_arbor, to within 5
# points; scx_arbor loads, stays loaded, and the kernel's log has no
# "does not implement cgroup" for it. (7.2 prints that for no scheduler:
# its SCX_OPS_HAS_CGROUP_WEIGHT is gone; the check guards older kernels.)
# cpu.max: a group of four busy loops limited to 25000/100000 against a
# group of one, all on CPU 1, gets 250 per mille (not the 500 its weight
# alone gives), under both schedulers, at most 40 points over and 120
# under. cpu.idle: a cpu.idle group of two loops against a group of one
# gets under 2%.
# Run: arbor vm --topology 2s2c2t -- bash tests/vm/cgroup.sh
# Prints PASS/FAIL lines; exits non-zero if any check failed.
set -u
. "$(dirname "$0")/lib.sh"

CG_SECS=${CG_SECS:-6}
CG=/sys/fs/cgroup
WANT=250	# group /a's share, per mille: 100 / (100 + 300)

echo "== guest: $(uname -r), $(nproc) CPUs; scx_arbor: $ARBOR_BIN"
if [ ! -f $CG/cgroup.controllers ]; then
	mount -t cgroup2 none $CG 2>/dev/null || true
fi
if ! grep -qw cpu $CG/cgroup.controllers 2>/dev/null; then
	fail "cgroup v2 with the cpu controller at $CG"
	echo "$PASS passed, $FAIL failed"
	exit 1
fi
echo +cpu >$CG/cgroup.subtree_control 2>/dev/null
R=$CG/arbor-cg.$$
mkdir -p $R/a $R/b $R/m $R/u $R/i
echo +cpu >$R/cgroup.subtree_control
echo 100 >$R/a/cpu.weight
echo 300 >$R/b/cpu.weight
echo "25000 100000" >$R/m/cpu.max

usage() { awk '$1 == "usage_usec" { print $2 }' "$1/cpu.stat"; }

# share_of A B GROUPS...: group A's share of CPU 1 against group B, in
# per mille, over CG_SECS, with a busy loop in each of GROUPS (A or B)
share_of() {
	local A=$1 B=$2 pids="" g a0 b0 a1 b1
	shift 2
	for g in "$@"; do
		sh -c "echo \$\$ > $R/$g/cgroup.procs; exec taskset -c 1 sh -c 'while :; do :; done'" &
		pids="$pids $!"
	done
	nap 2	# start-up
	a0=$(usage $R/$A); b0=$(usage $R/$B)
	nap "$CG_SECS"
	a1=$(usage $R/$A); b1=$(usage $R/$B)
	kill $pids 2>/dev/null; wait $pids 2>/dev/null
	echo $(( 1000 * (a1 - a0) / (a1 - a0 + b1 - b0 + 1) ))
}
share() { share_of a b a a b b; }
share_max() { share_of m u m m m m u; }
# cpu.idle is written while the scheduler runs: ext.c's cgroup_init does
# not tell a scheduler loaded later about a group already idle
share_idle() { echo 1 >$R/i/cpu.idle; share_of i u i i u; }
within() { [ $(( $1 - WANT )) -le 50 ] && [ $(( WANT - $1 )) -le 50 ]; }
# cpu.max: a cap, so at most 40 points over 250 per mille, and at least
# 130 (still far from the 500 of no limit, equal weights). Over: none
# measured since dispatch stopped keeping a throttled task (which left the
# CPU idle beside the other group's task until the refill: 210-359 before,
# 203-238 after, in the guest on a loaded host). Under: the period timers
# fire late under TCG on a loaded host, EEVDF's too (162-248 measured); the
# simulator, with exact ticks, gives 0.2505 of one CPU at 1000 Hz.
within_max() { [ $(( $1 - WANT )) -le 40 ] && [ $(( WANT - $1 )) -le 120 ]; }
under_20() { [ "$1" -lt 20 ]; }

s=$(share)
echo "EEVDF: /a (weight 100) gets ${s} per mille of CPU 1 against /b (300); fair.c: $WANT"
if within "$s"; then pass "EEVDF: cpu.weight 100:300 -> ${s}/1000"; else fail "EEVDF: cpu.weight 100:300 -> ${s}/1000, not $WANT +- 50"; fi
dmesg -C 2>/dev/null
if arbor_share_check "/a's share of CPU 1, cpu.weight 100 against /b's 300 (+- 50)" $WANT within share; then
	if dmesg | grep -q "does not implement cgroup"; then
		fail "the kernel says scx_arbor does not implement cgroup cpu.weight"
	else
		pass "no 'does not implement cgroup' in the kernel's log"
	fi
fi

s=$(share_max)
echo "EEVDF: /m (cpu.max 25000 100000, 4 loops) gets ${s} per mille of CPU 1 against /u (1 loop); fair.c: $WANT"
if within_max "$s"; then pass "EEVDF: cpu.max 25000/100000 -> ${s}/1000"; else fail "EEVDF: cpu.max 25000/100000 -> ${s}/1000, not $WANT +40/-120"; fi
arbor_share_check "/m's share of CPU 1, cpu.max 25000/100000 against /u (+40/-120)" $WANT within_max share_max

echo 0 >$R/i/cpu.idle
s=$(share_idle)
echo "EEVDF: /i (cpu.idle, 2 loops) gets ${s} per mille of CPU 1 against /u (1 loop); fair.c: under 20"
if under_20 "$s"; then pass "EEVDF: cpu.idle -> ${s}/1000"; else fail "EEVDF: cpu.idle -> ${s}/1000, not under 20"; fi
echo 0 >$R/i/cpu.idle
arbor_share_check "/i's share of CPU 1, cpu.idle against /u (under 20)" "under 20" under_20 share_idle
rmdir $R/a $R/b $R/m $R/u $R/i $R 2>/dev/null

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
