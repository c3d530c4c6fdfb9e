# VM tests of the seed mechanisms, each on vs off in the same guest boot,
# on top of the `seeds` profile (fixed, so that a change to `default` does
# not change what these tests see).
# Sourced by suite.sh (uses its pass/fail/check helpers and lib.sh).

# run_counted FLAGS -- COMMAND...: run COMMAND under scx_arbor with FLAGS and
# leave the cumulative counters in $J. Returns non-zero if loading failed.
run_counted() {
	local flags=()
	while [ "$1" != "--" ]; do flags+=("$1"); shift; done
	shift
	J=$(mktemp "$ARBOR_TMP/seed.XXXXXX.json")
	start_sched -p seeds "${flags[@]}" --stats-json "$J" || return 1
	"$@" >/dev/null 2>&1
	stop_sched
	[ "$SRC" -eq 0 ]
}

# ---- seed 003: STEAL, switched off and on again in the running instance ----
# One load; between runs, `scx_arbor --set-features` flips the live mask,
# which also tests the run-time switch where it acts.
steal_delta() { # sets D: steals during one hackbench
	local a= b=
	counters_now "$J" && a=$(json_get "$J" steal)
	hackbench -g 4 -l 100 >/dev/null 2>&1
	counters_now "$J" && b=$(json_get "$J" steal)
	D=$(( ${b:-0} - ${a:-0} ))
	[ -n "$a" ] && [ -n "$b" ]
}
J=$(mktemp "$ARBOR_TMP/seed.XXXXXX.json")
if start_sched -p seeds -f STEAL --stats-json "$J"; then
	steal_delta && on=$D || on=
	shown=$("$ARBOR_BIN" --set-features NO_STEAL 2>&1)
	check "live switch: --set-features NO_STEAL answers with the new mask" \
		grep -qw NO_STEAL <<<"$shown"
	steal_delta && off=$D || off=
	"$ARBOR_BIN" --set-features STEAL >/dev/null 2>&1
	steal_delta && again=$D || again=
	check "live switch: --show-features reports STEAL back on" \
		sh -c "'$ARBOR_BIN' --show-features | grep -qw STEAL"
	check "live switch: a bad name is refused, the mask untouched" \
		sh -c "! '$ARBOR_BIN' --set-features NO_BOGUS 2>/dev/null && '$ARBOR_BIN' --show-features | grep -qw STEAL"
	stop_sched
	check "STEAL: hackbench steals with STEAL (steal=$on), none after NO_STEAL ($off), again after STEAL ($again)" \
		test "${on:-0}" -gt 0 -a "${off:-1}" = 0 -a "${again:-0}" -gt 0
	check "STEAL: scx_arbor exited cleanly after the switches" test "$SRC" -eq 0
else
	fail "STEAL: loads"
fi

# ---- seed 000: WA_IDLER_LLC; seed 001: WA_THROTTLE ----
# hackbench's 1:N messaging wakes across both LLCs of the guest.
# The throttle window is widened from the seed's 1 ms to 1 s: whether a
# wakee is woken again within 1 ms of a failed wake_affine depends on how
# fast TCG runs the guest (on the -rt kernel under host load 10, no wakee
# was, and the check failed with the mechanism intact). With 1 s, any
# second wake-up of a wakee after a failure must be throttled, so the
# check tests the mechanism, not the host's pace.
if run_counted -f WA_IDLER_LLC,WA_THROTTLE --wake-affine-interval-ms 1000 -- hackbench -g 2 -l 100; then
	it=$(json_get $J idler_llc_this); ip=$(json_get $J idler_llc_prev); tie=$(json_get $J idler_llc_tie)
	th=$(json_get $J affine_throttled)
	# the "off" half counts only if its run loaded, ran and wrote every
	# counter: empty values must not read as zero
	it0= ip0= tie0= th0=
	run_counted -f NO_WA_IDLER_LLC,NO_WA_THROTTLE --wake-affine-interval-ms 1000 -- hackbench -g 2 -l 100
	off_rc=$?
	it0=$(json_get $J idler_llc_this); ip0=$(json_get $J idler_llc_prev); tie0=$(json_get $J idler_llc_tie)
	th0=$(json_get $J affine_throttled)
	check "WA_IDLER_LLC/WA_THROTTLE off: loads, runs, unloads cleanly, counters written (rc=$off_rc)" \
		test "$off_rc" -eq 0 -a -n "$it0" -a -n "$ip0" -a -n "$tie0" -a -n "$th0"
	check "WA_IDLER_LLC: cross-LLC verdicts on (this=$it prev=$ip tie=$tie), none off (${it0:-?}/${ip0:-?}/${tie0:-?})" \
		test -n "$it0" -a -n "$ip0" -a -n "$tie0" -a $((it + ip + tie)) -gt 0 -a "$((it0 + ip0 + tie0))" = 0
	check "WA_THROTTLE: throttled wake-ups on ($th), none off (${th0:-?})" \
		test "${th:-0}" -gt 0 -a "${th0:-x}" = 0
else
	fail "WA_IDLER_LLC/WA_THROTTLE: loads and runs hackbench"
fi

# ---- seed 004: ASYM_* with CPUs 4-7 declared little ----
# A CPU-bound thread started on little CPU 6, then allowed everywhere: with
# ASYM_MISFIT it must move to a big CPU (0-3), by the misfit path, and stay;
# without, the misfit path must never act. (Where it runs without ASYM is
# up to capacity-blind balancing and is only reported: it was 0% on big CPUs
# in earlier sessions, 80-95% at 2f48b0d and later, cause not yet found.)
if asym_run seeds; then
	big_on=$BIG; mm=$(json_get $J misfit_migrations); mt=$(json_get $J misfit_tasks)
	asym_run seeds -f NO_ASYM_MISFIT,NO_ASYM_WAKE_CAP,NO_ASYM_IDLE_CAPACITY
	big_off=$BIG; mm0=$(json_get $J misfit_migrations)
	check "ASYM_MISFIT: CPU-bound thread from little CPU 6 runs on big CPUs ${big_on}% of samples (misfit_tasks=$mt, misfit_migrations=$mm); off: ${big_off}%, migrations=$mm0" \
		test "$big_on" -ge 90 -a "${mm:-0}" -gt 0 -a "${mm0:-1}" = 0
else
	fail "ASYM: loads with --cpu-capacity"
fi
check "--cpu-capacity with a CPU that does not exist: one line" \
	one_line_error "does not exist" "$ARBOR_BIN" --cpu-capacity 0-99:512
check "--profile unknown: one line naming the profiles" \
	one_line_error "stock" "$ARBOR_BIN" --profile fast

# ---- seed 002: CACHE_LB ----
# Two processes of 2 CPU-bound threads each (guest/spin.c, built by make
# into target/guest/arbor-spin) on a 2-LLC guest, started SPLIT: each process is
# first pinned to one CPU of each LLC, then unpinned to all CPUs. 4 spinners
# on 8 CPUs are already balanced, so stock placement has no reason to move
# them: only aggregation can bring each process into one LLC.
# Sampled from /proc: the share of samples where each process has all its
# running threads in one LLC ("one-LLC"), and where moreover the two
# processes use different LLCs ("apart").
# --llc-tolerance 2 (x2, the kernel's llc_aggr_tolerance): 2 threads x SMT2 = 4 CPUs would not pass the 80% limit
# of a 4-CPU LLC otherwise.
# llc_of_threads PID: LLC=the LLC of all its runnable threads, x if they are
# in several LLCs, empty if none is runnable. /proc/PID/task/TID/stat:
# field 3 is the state, field 39 the CPU.
llc_of_threads() {
	local f line a
	LLC=
	for f in /proc/$1/task/*/stat; do
		read -r line <"$f" 2>/dev/null || continue
		a=($line)
		[ "${a[2]}" = R ] || continue
		l2=${LLC_OF[${a[38]}]}
		if [ -z "$LLC" ]; then LLC=$l2; elif [ "$LLC" != "$l2" ]; then LLC=x; fi
	done
}
# LLC_OF[cpu] = index of its LLC; LLC_CPUS[i] = "cpu cpu ..." of LLC i
declare -a LLC_OF LLC_CPUS
cache_topology() {
	local d list part i=0 c lo hi seen=""
	for d in /sys/devices/system/cpu/cpu[0-9]*/cache/index3/shared_cpu_list; do
		read -r list <"$d"
		case " $seen " in *" $list "*) continue ;; esac
		seen="$seen $list"
		LLC_CPUS[$i]=""
		for part in ${list//,/ }; do
			lo=${part%-*}; hi=${part#*-}
			for ((c = lo; c <= hi; c++)); do
				LLC_OF[$c]=$i
				LLC_CPUS[$i]="${LLC_CPUS[$i]} $c"
			done
		done
		i=$((i + 1))
	done
}
# split_threads PID CPU_A CPU_B: the process's tasks pinned one by one,
# alternately to CPU_A and CPU_B (main thread, thread 1, thread 2, ...)
split_threads() {
	local k=0 t cpu
	for t in /proc/$1/task/*; do
		cpu=$2
		[ $((k % 2)) = 1 ] && cpu=$3
		taskset -p -c "$cpu" "${t##*/}" >/dev/null
		k=$((k + 1))
	done
}
cache_run() { # flags... ; sets SAME, APART (percent), J
	J=$(mktemp "$ARBOR_TMP/seed.XXXXXX.json")
	start_sched -p seeds --llc-tolerance 2 "$@" --stats-json "$J" || return 1
	local a0=(${LLC_CPUS[0]}) a1=(${LLC_CPUS[1]})
	taskset -c "${a0[0]},${a1[0]}" "$SPIN" 2 40 &
	local p1=$!
	taskset -c "${a0[1]},${a1[1]}" "$SPIN" 2 40 &
	local p2=$!
	# both spinning threads of both processes must exist before unpinning
	# (a cold first exec under TCG takes seconds): spin has 3 tasks
	local t=0 tasks
	while [ $t -lt 200 ]; do
		tasks=(/proc/$p1/task/* /proc/$p2/task/*)
		[ ${#tasks[@]} -ge 6 ] && break
		nap 0.1
		t=$((t + 1))
	done
	# pin each task to one CPU, alternating the two LLCs, so that each
	# process starts split: the fork path now keeps a process's threads on
	# the parent's node (sched_balance_find_dst_group's imb_numa_nr), so a
	# process pinned to one CPU of each LLC no longer splits by itself
	split_threads $p1 "${a0[0]}" "${a1[0]}"
	split_threads $p2 "${a0[1]}" "${a1[1]}"
	nap 1
	taskset -a -p -c "0-$(($(nproc) - 1))" $p1 >/dev/null
	taskset -a -p -c "0-$(($(nproc) - 1))" $p2 >/dev/null
	nap 3
	local same=0 apart=0 n=0 i
	# Sample with bash builtins only: under TCG every exec (ps, awk, sleep)
	# costs seconds, longer than the sampling interval.
	for i in $(seq 1 30); do
		llc_of_threads $p1; l1=$LLC
		llc_of_threads $p2; l2=$LLC
		nap 0.3
		[ -z "$l1" ] || [ -z "$l2" ] && continue
		n=$((n + 1))
		if [ "$l1" != x ] && [ "$l2" != x ]; then
			same=$((same + 1))
			[ "$l1" != "$l2" ] && apart=$((apart + 1))
		fi
	done
	kill $p1 $p2 2>/dev/null
	wait_limit $p1 30 2>/dev/null
	wait_limit $p2 30 2>/dev/null
	stop_sched
	[ $n -gt 0 ] || n=1
	SAME=$((100 * same / n))
	APART=$((100 * apart / n))
}
SPIN=$(dirname "$ARBOR_BIN")/../guest/arbor-spin
cache_topology
if [ ! -x "$SPIN" ]; then
	fail "CACHE_LB: $SPIN missing (make builds it from guest/spin.c)"
elif [ ${#LLC_CPUS[@]} -lt 2 ]; then
	fail "CACHE_LB: needs a guest with 2 LLCs (has ${#LLC_CPUS[@]})"
elif cache_run -f CACHE_LB; then
	s_on=$SAME; a_on=$APART
	pin=$(json_get $J llc_pref_tasks_in); pout=$(json_get $J llc_pref_tasks_out)
	ref=$(json_get $J llc_migrations_refused)
	cache_run -f NO_CACHE_LB
	s_off=$SAME; a_off=$APART
	pin_off=$(json_get $J llc_pref_tasks_in); pout_off=$(json_get $J llc_pref_tasks_out)
	echo "INFO: CACHE_LB: started split; apart on ${a_on}% (one-LLC ${s_on}%), off ${a_off}% (one-LLC ${s_off}%); pref in/out $pin/$pout (off $pin_off/$pout_off), refused $ref"
	check "CACHE_LB: split processes aggregate, one LLC each (apart ${a_on}% >= 60%), tasks ran in their preferred LLC ($pin > 0)" \
		test "$a_on" -ge 60 -a "${pin:-0}" -gt 0
	# Off, the placement is not a test: 4 spinners balanced 2 + 2 stay split
	# only until something disturbs them, and then the balancer may pair
	# either process's threads in an LLC (apart 96% in one CI run with
	# nothing else running, 100% in another under load, 0% in the
	# other runs). That aggregation and not chance makes them apart is the
	# simulator's deterministic test (sim/tests/cache_lb.rs,
	# cache_lb_pulls_a_thread_into_its_preferred_llc_when_balanced); here:
	# with it off, no task ever has a preferred LLC.
	check "NO_CACHE_LB: no task had a preferred LLC (pref in/out $pin_off/$pout_off = 0/0)" \
		test "$pin_off" = 0 -a "$pout_off" = 0
else
	fail "CACHE_LB: loads"
fi
