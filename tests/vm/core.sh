#!/usr/bin/env bash
# The VM suite's first sections: the names scx_arbor declares, load +
# stress + unload, every feature switched off, an ejection, bad input.
# Sourced by suite.sh and part.sh (after lib.sh), like every section.

NCPU=$(nproc)
STRESS_SECS=${STRESS_SECS:-30}

# ---- the guest's topology from sysfs, in scx_arbor's summary form ----
sysfs_topology() {
	local cpus cores llcs nodes smt
	cpus=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
	cores=$(for c in /sys/devices/system/cpu/cpu[0-9]*/topology; do
		echo "$(cat $c/physical_package_id)-$(cat $c/core_id)"; done | sort -u | wc -l)
	llcs=$(cat /sys/devices/system/cpu/cpu[0-9]*/cache/index3/shared_cpu_list 2>/dev/null | sort -u | wc -l)
	nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
	smt=$(for c in /sys/devices/system/cpu/cpu[0-9]*/topology/thread_siblings_list; do
		awk -F'[,-]' '{ if (NF == 1) print 1; else if ($0 ~ /-/) print $2 - $1 + 1; else print NF }' $c; done | sort -n | tail -1)
	echo "topology: cpus=$cpus cores=$cores llcs=$llcs nodes=$nodes smt=$smt"
}

check "kernel has sched_ext and it is idle" test "$(sched_state)" = disabled

# ---- 0. the names scx_arbor declares (JSON, as scripts read them) ----
FEATURES=$(list_names features)
COUNTERS=$(list_names counters)
nf=$(echo $FEATURES | wc -w); nc=$(echo $COUNTERS | wc -w)
check "--list-features --json names $nf features, WA_IDLE first" \
	test "$nf" -gt 10 -a "$(echo $FEATURES | cut -d' ' -f1)" = WA_IDLE
check "--list-counters --json names $nc counters, wakeups first" \
	test "$nc" -gt 15 -a "$(echo $COUNTERS | cut -d' ' -f1)" = wakeups

# ---- 1. load, report topology, survive stress-ng + hackbench, unload on SIGINT ----
J=$ARBOR_TMP/suite.json
rm -f $J
if start_sched -v --stats 5 --stats-json $J; then
	pass "loads: sched_ext state enabled, root/ops names arbor"
	want=$(sysfs_topology)
	got=$(grep '^topology:' "$SLOG")
	check "reported topology equals the guest's ($want)" test "$got" = "$want"
	stress-ng --temp-path "$ARBOR_TMP" --aggressive -M -c "$NCPU" -f "$NCPU" --affinity 1 --affinity-delay 1 \
		--affinity-pin -t "$STRESS_SECS" >"$ARBOR_TMP/stress.log" 2>&1
	rc=$?
	[ $rc -ne 0 ] && tail -n 5 "$ARBOR_TMP/stress.log"
	check "stress-ng ${STRESS_SECS}s (--aggressive, affinity churn) completed" test $rc -eq 0
	hackbench -g 4 -l 100 >/dev/null 2>&1
	check "hackbench after stress-ng completed" test $? -eq 0
	check "not ejected: still enabled and running" sh -c "[ \"\$(cat $SCX/state)\" = enabled ] && kill -0 $SPID"
	check "--stats prints an interval table" grep -q 'wakeups .*gap%' "$SLOG"
	# --monitor attaches to the running instance
	timeout 8 "$ARBOR_BIN" --monitor 1 >"$ARBOR_TMP/monitor.log" 2>&1
	check "--monitor attaches and prints counters" sh -c "grep -q 'gap%' '$ARBOR_TMP/monitor.log' && [ \$(grep -c '^ *[0-9]' '$ARBOR_TMP/monitor.log') -ge 2 ]"
	stop_sched
	check "SIGINT unloads cleanly (exit 0, state disabled)" test "$SRC" -eq 0 -a "$(sched_state)" = disabled
	check "unload reason is user space, not an ejection" grep -q 'unregistered from user space' "$SLOG"
	check "--stats-json written at exit" test -s $J
	missing=""
	for k in $COUNTERS; do
		grep -q "\"$k\":" $J 2>/dev/null || missing="$missing $k"
	done
	check "--stats-json holds every counter of --list-counters --json${missing:+ (missing:$missing)}" test -z "$missing"
	w=$(json_get $J wakeups); b=$(json_get $J busy_ns); i=$(json_get $J idle_ns); p=$(json_get $J newidle_pulls)
	check "counters moved: wakeups=$w busy_ns=$b idle_ns=$i newidle_pulls=$p all > 0" \
		test "${w:-0}" -gt 0 -a "${b:-0}" -gt 0 -a "${i:-0}" -gt 0 -a "${p:-0}" -gt 0
else
	fail "loads: sched_ext state enabled, root/ops names arbor"
fi

# ---- 1b. a CPU-bound task alone on its CPU keeps it at its slice ends ----
# As the kernel's EEVDF, which never switches a lone task out: dispatch
# gives it a new request and slice (keep_prev, counted in slice_kept).
# Before, SCX_OPS_ENQ_LAST sent it through enqueue and its CPU through
# idle at every slice end: a busy loop pinned alone for 2 s was switched
# out involuntarily at each of its ~500 slice ends. The check: many slice
# ends kept, and fewer than a quarter as many involuntary switches (the
# guest's kworkers still preempt it now and then).
LONE_OUT=$ARBOR_TMP/lone.nivcsw
LONE_PROBE='
import os, sys, time
os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
t = time.monotonic()
while time.monotonic() - t < 2.0:
    pass
for l in open("/proc/self/status"):
    if l.startswith("nonvoluntary_ctxt_switches"):
        open(sys.argv[1], "w").write(l.split()[1])
'
rm -f "$LONE_OUT"
if ours_run -- python3 -c "$LONE_PROBE" "$LONE_OUT"; then
	kept=$(json_get "$J" slice_kept); niv=$(cat "$LONE_OUT" 2>/dev/null)
	check "lone task: 2 s busy loop alone on a CPU ran, clean unload; $kept slice ends kept (> 100), its involuntary switches ${niv:-missing} < a quarter of them" \
		test "$OK" = yes -a "${kept:-0}" -gt 100 -a -n "$niv" -a "$(( ${niv:-0} * 4 ))" -lt "${kept:-0}"
else
	fail "lone task: loads"
fi

# ---- 2. every feature switched off still runs the same load ----
# One load, each feature switched off live in turn (--set-features, like
# writing NO_NAME to the kernel's sched/features) and back on after its
# round: hackbench + perf pipe, and the counters of that round only
# (SIGUSR1 snapshots before and after). Loading once instead of once per
# feature saves three of the suite's minutes under TCG; that a switch given
# at load (-f NO_NAME) acts is checked by the sections that use one
# (lb, proctable, seeds, ours).
J=$ARBOR_TMP/no-features.json
B=$ARBOR_TMP/no-features-before.json
# delta KEY: how much counter KEY moved during the round (after - before)
delta() { echo $(( $(json_get $J "$1") - $(json_get $B "$1") )); }
if start_sched --stats-json $J; then
	PROFILE_FEATURES=$("$ARBOR_BIN" --show-features 2>&1)
	prev=""
	for f in $FEATURES; do
		# the previous round's feature back to what the profile had
		"$ARBOR_BIN" --set-features "${prev:+$prev,}NO_$f" >"$ARBOR_TMP/set.out" 2>&1
		sw=$?
		grep -qw "NO_$f" "$ARBOR_TMP/set.out" || sw=1
		counters_now $J && cp $J $B
		hackbench -g 2 -l 30 >/dev/null 2>&1
		hb=$?
		perf bench sched pipe -l 1000 >/dev/null 2>&1
		pb=$?
		counters_now $J
		check "NO_$f (switched live): hackbench + perf pipe run, not ejected" \
			test "$sw" -eq 0 -a "$hb" -eq 0 -a "$pb" -eq 0 -a "$(sched_alive && echo yes)" = yes
		case $f in
		WAKE_WIDE) check "NO_WAKE_WIDE: no wakeup judged wide in its round" test "$(delta wake_wide)" = 0 ;;
		# (+ NCPU: a kick counted just before the round's first snapshot may
		# be answered just after it, at most one per CPU)
		NEWIDLE)
			np=$(delta newidle_pulls) nfl=$(delta newidle_fails) nk=$(delta periodic_kicks)
			check "NO_NEWIDLE: idle CPUs balance only when kicked in its round (pulls $np + fails $nfl <= kicks $nk + $NCPU)" \
				test $((np + nfl)) -le $((nk + NCPU)) ;;
		esac
		# on again next round only if the profile had it on
		if grep -qw "NO_$f" <<<"$PROFILE_FEATURES"; then prev=""; else prev=$f; fi
	done
	stop_sched
	check "every feature switched off in turn: clean unload (exit 0)" test "$SRC" -eq 0
else
	fail "every feature switched off in turn: loads"
fi
# with both wake_affine stages off (and no seed stage), wake_affine never pulls
J=$ARBOR_TMP/no-wa.json
if start_sched --profile stock -f NO_WA_IDLE,NO_WA_WEIGHT --stats-json $J; then
	hackbench -g 2 -l 50 >/dev/null 2>&1
	stop_sched
	check "NO_WA_IDLE,NO_WA_WEIGHT: affine_attempts > 0 but affine_moves = 0" \
		test "$(json_get $J affine_attempts)" -gt 0 -a "$(json_get $J affine_moves)" = 0
else
	fail "NO_WA_IDLE,NO_WA_WEIGHT: loads"
fi
# SIS_IDLE_GROUP (select_idle_sibling of 3.9-4.8, off in every profile): its
# walk passes the verifier and places wake-ups (the unit tests in policy.rs
# check where; sim/src/run.rs that it acts on the whole scheduler)
J=$ARBOR_TMP/sis-group.json
if start_sched --profile stock -f SIS_IDLE_GROUP --stats-json $J; then
	hackbench -g 2 -l 50 >/dev/null 2>&1
	hb=$?
	alive=$([ "$(sched_state)" = enabled ] && kill -0 $SPID && echo yes)
	stop_sched
	placed=$(( $(json_get $J found_idle_core) + $(json_get $J found_idle_cpu) + $(json_get $J nofound_idle) ))
	check "SIS_IDLE_GROUP: hackbench runs, not ejected, clean unload, $placed wake-ups through the walk" \
		test "$hb" -eq 0 -a "$alive" = yes -a "$SRC" -eq 0 -a "$placed" -gt 0
else
	fail "SIS_IDLE_GROUP: loads"
fi

# ---- 3. an ejection is reported with the kernel's reason and a non-zero exit ----
if start_sched; then
	echo S >/proc/sysrq-trigger	# sysrq-S: the kernel disables the BPF scheduler
	wait_limit "$SPID" 120
	rc=$?
	check "ejection (sysrq-S): non-zero exit and sched_ext's reason printed" \
		sh -c "[ $rc -ne 0 ] && grep -qi 'sysrq' '$SLOG'"
	wait_disabled 40
else
	fail "ejection test: loads"
fi

# ---- 4. bad input: one clear line, non-zero exit ----
check "unknown feature: one line naming it" one_line_error "NO_SUCH" "$ARBOR_BIN" -f NO_SUCH
check "imbalance-pct out of range rejected" sh -c "! '$ARBOR_BIN' --imbalance-pct 50 >/dev/null 2>&1"
check "bad --cpu-capacity: one line naming it" one_line_error "CPU 0 is given twice" "$ARBOR_BIN" --cpu-capacity 0:512,0:600
check "--stats-json naming a directory: one line" one_line_error "is a directory" "$ARBOR_BIN" --stats-json /tmp
check "non-root: one line saying root is needed" one_line_error "root" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ARBOR_BIN"
if start_sched; then
	check "second instance while one runs: one line, non-zero" one_line_error "another sched_ext scheduler" "$ARBOR_BIN"
	check "second instance: the first one still runs" sched_alive
	stop_sched
else
	fail "second instance test: the first scx_arbor loads"
fi
check "live switch with no scx_arbor running: one line, non-zero" \
	one_line_error "no scx_arbor is running" "$ARBOR_BIN" --set-features NO_STEAL

