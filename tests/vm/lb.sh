#!/usr/bin/env bash
# VM test of LB_IMBALANCE, the weighted-imbalance periodic balancer, with
# the feature on (the default) and off:
#  - stacked lone tasks: two spinning threads confined to CPUs 0 and 1 (one
#    core's SMT siblings), then allowed everywhere. Each runs alone on its
#    CPU, nothing is queued, so only active balance can move one of them:
#    lb_active must move with LB_IMBALANCE and stay 0 without;
#  - queued tasks: three spinning threads confined to CPU 0, then allowed
#    everywhere: the balancer's pulls (lb_pulls) move with the feature,
#    and stay 0 without (the older pulls do the work then);
#  - hackbench completes and the scheduler is not ejected either way.
# Uses arbor-spin (guest/spin.c; the Makefile builds target/guest/arbor-spin).
# Sourced by suite.sh (its pass/fail/check helpers); also runs alone:
#   arbor vm --topology 2s2c2t -- bash tests/vm/lb.sh
if ! declare -F pass >/dev/null; then
	set -u
	. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
	LB_ALONE=1
fi

# lb_widen PID: let every thread of PID run on every CPU
lb_widen() { taskset -a -p -c "0-$(($(nproc) - 1))" "$1" >/dev/null; }

# lb_verifier_info NAME: one INFO line per scx_arbor program of interest
lb_verifier_info() {
	local f id v nm
	command -v bpftool >/dev/null || return 0
	for f in /proc/"$SPID"/fdinfo/*; do
		id=$(sed -n 's/^prog_id:[[:space:]]*//p' "$f" 2>/dev/null)
		[ -n "$id" ] || continue
		v=$(sed -n 's/^verified_insns:[[:space:]]*//p' "$f")
		nm=$(bpftool prog show id "$id" 2>/dev/null | grep -oE 'name [a-z_]+|xlated [0-9]+B' | paste -sd' ')
		case "$nm" in
		*arbor_dispatch* | *arbor_tick* | *arbor_enqueue* | *arbor_select_cpu*)
			echo "INFO: lb $1: $nm verified_insns ${v:-?}" ;;
		esac
	done
}

# lb_case NAME FLAGS...: run both scenarios under scx_arbor FLAGS; sets
# LB_ACTIVE and LB_PULLS to the counters at the end (empty if unread).
lb_case() {
	local name=$1 spin j pid
	shift
	LB_ACTIVE=
	LB_PULLS=
	spin=$(dirname "$ARBOR_BIN")/../guest/arbor-spin
	if [ ! -x "$spin" ]; then
		fail "lb $name: $spin missing (make builds it from guest/spin.c)"
		return
	fi
	j=$(mktemp -d "$ARBOR_TMP/lb.XXXXXX")/c.json
	if ! start_sched -v "$@" --stats-json "$j"; then
		fail "lb $name: scx_arbor $* loads"
		return
	fi
	pass "lb $name: scx_arbor $* loads"
	# stacked lone tasks
	taskset -c 0,1 "$spin" 2 10 &
	pid=$!
	nap 2
	lb_widen "$pid"
	nap 6
	counters_now "$j"
	echo "INFO: lb $name: stacked pair: lb_active $(json_get "$j" lb_active), lb_pulls $(json_get "$j" lb_pulls)"
	wait "$pid"
	# queued tasks
	taskset -c 0 "$spin" 3 8 &
	pid=$!
	nap 2
	lb_widen "$pid"
	wait "$pid"
	hackbench -g 2 -l 50 >/dev/null 2>&1
	check "lb $name: hackbench completed" test $? -eq 0
	check "lb $name: not ejected" sched_alive
	if counters_now "$j"; then
		LB_ACTIVE=$(json_get "$j" lb_active)
		LB_PULLS=$(json_get "$j" lb_pulls)
	fi
	echo "INFO: lb $name: lb_active ${LB_ACTIVE:-?}, lb_pulls ${LB_PULLS:-?}, busy_pulls $(json_get "$j" busy_pulls), periodic_kicks $(json_get "$j" periodic_kicks), newidle_pulls $(json_get "$j" newidle_pulls)"
	# the verifier's account of the programs that hold the balancer
	# (dispatch: lb_balance, lb_find, lb_detach; tick's timer: lb_kick_llc):
	# instructions processed (verified_insns, from the loader's fdinfo) and
	# translated size
	lb_verifier_info "$name"

	stop_sched
	check "lb $name: scx_arbor exits 0" test "$SRC" -eq 0
}

lb_case on
check "lb on: active balance moved a lone running task (lb_active ${LB_ACTIVE:-missing} > 0)" \
	test "${LB_ACTIVE:-0}" -gt 0
check "lb on: the balancer pulled queued tasks (lb_pulls ${LB_PULLS:-missing} > 0)" \
	test "${LB_PULLS:-0}" -gt 0
lb_case off -f NO_LB_IMBALANCE
check "lb off: no active balance (lb_active ${LB_ACTIVE:-missing} = 0)" test "${LB_ACTIVE:-x}" = 0
check "lb off: no balancer pulls (lb_pulls ${LB_PULLS:-missing} = 0)" test "${LB_PULLS:-x}" = 0

if [ -n "${LB_ALONE:-}" ]; then
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
fi
