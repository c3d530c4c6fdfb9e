#!/usr/bin/env bash
# VM check of CPU hotplug: sched_ext exits a scheduler without
# ops.cpu_online/offline when a CPU comes or goes, asking for a restart;
# scx_arbor must reload on the new topology with its knobs and its features
# (also ones switched at run time). Sourced by suite.sh, or run alone:
#   arbor vm -- tests/vm/hotplug.sh
if ! declare -F check >/dev/null; then
	set -u
	. "$(dirname "$0")/lib.sh"
	HOTPLUG_ALONE=1
fi

HP_CPU=$(( $(nproc --all) - 1 ))
HP_ONLINE=/sys/devices/system/cpu/cpu$HP_CPU/online

# reloads_after N: wait (up to 4 min: a load under TCG takes 5-75 s) for
# more than N "reloaded" lines and sched_ext enabled with arbor again
reloads_after() {
	local i
	for i in $(seq 1 960); do
		if [ "$(grep -c 'scx_arbor reloaded' "$SLOG")" -gt "$1" ] && [ "$(sched_state)" = enabled ] &&
			[[ "$(sched_ops)" == arbor* ]]; then
			return 0
		fi
		kill -0 "$SPID" 2>/dev/null || return 1
		nap 0.25
	done
	return 1
}
last_topo() { grep '^topology:' "$SLOG" | tail -n 1; }

if [ ! -w "$HP_ONLINE" ]; then
	fail "hotplug: cpu$HP_CPU cannot be taken offline in this guest ($HP_ONLINE)"
elif start_sched -v --slice-us 3000 -f STEAL; then
	"$ARBOR_BIN" --set-features NO_WA_BIAS >/dev/null 2>&1
	topo0=$(last_topo)
	# hackbench rounds until the CPU is back (each round short under TCG)
	HPF=$(mktemp "$ARBOR_TMP/hotplug.XXXXXX")
	( rc=0; while [ -e "$HPF" ]; do hackbench -g 2 -l 50 >/dev/null 2>&1 || rc=1; done; exit $rc ) &
	HB=$!
	nap 2
	echo 0 >"$HP_ONLINE"
	reloads_after 0
	check "cpu$HP_CPU offline under hackbench: scx_arbor reloaded and enabled" test $? -eq 0
	topo1=$(last_topo)
	check "the reported topology lost a CPU ($topo0 -> $topo1)" \
		test "${topo1#*cpus=}" != "${topo0#*cpus=}" -a "$(echo "$topo1" | sed 's/.*cpus=\([0-9]*\).*/\1/')" -eq $(( $(echo "$topo0" | sed 's/.*cpus=\([0-9]*\).*/\1/') - 1 ))
	echo 1 >"$HP_ONLINE"
	reloads_after 1
	check "cpu$HP_CPU back online: scx_arbor reloaded and enabled" test $? -eq 0
	topo2=$(last_topo)
	check "the reported topology is restored ($topo2)" test "$topo2" = "$topo0"
	for i in 1 2 3; do
		feats=$("$ARBOR_BIN" --show-features 2>&1) && break
		echo "    (--show-features: rc=$?: $feats; retrying)"
		nap 1
	done
	check "features survive the restarts: STEAL from -f, NO_WA_BIAS switched live ($feats)" \
		sh -c "echo '$feats' | grep -qw STEAL && echo '$feats' | grep -qw NO_WA_BIAS"
	check "the restarts say why (the kernel's hotplug reason)" grep -q 'restarting as the kernel asked' "$SLOG"
	rm -f "$HPF"
	wait_limit "$HB" 300
	check "hackbench rounds across the hotplug all completed" test $? -eq 0
	check "still running after hotplug" sched_alive
	stop_sched
	check "clean unload after hotplug (exit 0)" test "$SRC" -eq 0
else
	fail "hotplug: scx_arbor loads"
fi
[ -w "$HP_ONLINE" ] && echo 1 >"$HP_ONLINE" 2>/dev/null

if [ -n "${HOTPLUG_ALONE:-}" ]; then
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
fi
