# VM tests of SIS_NODE (ours; off in `stock` and `seeds`), on vs off
# in the same guest boot, on top of `stock`. A section of its own because
# what it must do depends on the topology: `make test` runs it in the
# suite's 2s2c2t guest (one LLC per node: it must never act) and alone in a
# 1s2d2c2t guest (two LLCs in the node: it must act, and only when on).
# Sourced by suite.sh and part.sh (`part.sh sisnode`).

# SIS_NODE: a wake-up that finds no idle CPU in its LLC takes an idle CPU of
# another LLC of the node (idle for the migration cost already). Where each
# node is one LLC (2s2c2t, the suite's) it must never act. Where a node
# holds several LLCs (1s2d2c2t: `make vm-test` runs `part.sh sisnode` there)
# it must act, and only when on. A probe builds its case: the first LLC's
# CPUs each run a pinned spinner; the probe runs on that LLC's second CPU,
# then allows every CPU and sleeps 2 ms. Its wake-up (prev and the timer's
# CPU both that CPU) finds its LLC busy, the node half busy, and the other
# LLC idle for longer than the migration cost, so every one of its 200
# wake-ups should take a CPU of the other LLC. This probe found that
# SIS_NODE had never acted in BPF (0 of 200; hackbench's 0 placements had
# been blamed on its bounds): clang folded the rodata node_cpus, read
# through a non-volatile pointer, to zeros (policy.h arbor_sis_node_pick).
# hackbench below must load and run clean; how often it acts is printed.
SIS_PROBE='
import os, sys, time, signal
def cpus(s):
    r = set()
    for part in s.split(","):
        a, _, b = part.partition("-")
        r.update(range(int(a), int(b or a) + 1))
    return sorted(r)
llc = cpus(sys.argv[1]); every = os.sched_getaffinity(0); kids = []
for c in llc:
    pid = os.fork()
    if pid == 0:
        os.sched_setaffinity(0, {c})
        while True:
            pass
    kids.append(pid)
try:
    time.sleep(0.2)
    for i in range(200):
        os.sched_setaffinity(0, {llc[1]})
        t = time.monotonic()
        while time.monotonic() - t < 0.0005:
            pass
        os.sched_setaffinity(0, every)
        time.sleep(0.002)
finally:
    for k in kids:
        os.kill(k, signal.SIGKILL)
        os.waitpid(k, 0)
'
llcs=$(cat /sys/devices/system/cpu/cpu[0-9]*/cache/index3/shared_cpu_list 2>/dev/null | sort -u | wc -l)
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
llc0=$(cat /sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list 2>/dev/null)
if [ "$llcs" -gt "$nodes" ]; then
	if ours_run -f SIS_NODE -- python3 -c "$SIS_PROBE" "$llc0"; then
		found=$(json_get "$J" sis_node_found)
		check "SIS_NODE ($llcs LLCs in $nodes node(s)): probe with LLC $llc0 busy ran, clean unload; $found wake-ups took an idle CPU of another LLC of the node (>= 100: the probe makes 200 such; other tasks' count too)" \
			test "$OK" = yes -a "${found:-0}" -ge 100
	else
		fail "SIS_NODE: loads"
	fi
	if ours_run -- python3 -c "$SIS_PROBE" "$llc0"; then
		check "NO_SIS_NODE (stock): the same probe ran; sis_node_found $(json_get "$J" sis_node_found) = 0, nofound_idle $(json_get "$J" nofound_idle) > 0" \
			test "$OK" = yes -a "$(json_get "$J" sis_node_found)" = 0 -a "$(json_get "$J" nofound_idle)" -gt 0
	else
		fail "NO_SIS_NODE (probe): loads"
	fi
	# the stress of the suite's first section, with SIS_NODE where it can act
	if ours_run -f SIS_NODE -- stress-ng --temp-path "$ARBOR_TMP" --aggressive -M -c "$(nproc)" -f "$(nproc)" \
		--affinity 1 --affinity-delay 1 --affinity-pin -t 20; then
		check "SIS_NODE ($llcs LLCs in $nodes node(s)): stress-ng 20s (--aggressive, affinity churn) completed, not ejected, clean unload ($(json_get "$J" sis_node_found) placements)" \
			test "$OK" = yes
	else
		fail "SIS_NODE (stress): loads"
	fi
fi
if ours_run -f SIS_NODE -- hackbench -g 1 -f 5 -l 2000; then
	found=$(json_get "$J" sis_node_found)
	if [ "$llcs" -gt "$nodes" ]; then
		check "SIS_NODE ($llcs LLCs in $nodes node(s)): hackbench ran, clean unload ($found wake-ups took an idle CPU of another LLC of the node; $(json_get "$J" nofound_idle) found none in their LLC)" \
			test "$OK" = yes -a -n "$found"
	else
		check "SIS_NODE ($llcs LLCs, $nodes nodes: one LLC per node): hackbench ran, clean unload; sis_node_found ${found:-?} = 0" \
			test "$OK" = yes -a "${found:-x}" = 0
	fi
else
	fail "SIS_NODE: loads"
fi
if ours_run -- hackbench -g 1 -f 5 -l 2000; then
	check "NO_SIS_NODE (stock): hackbench ran; sis_node_found $(json_get "$J" sis_node_found) = 0" \
		test "$OK" = yes -a "$(json_get "$J" sis_node_found)" = 0
else
	fail "NO_SIS_NODE: loads"
fi
