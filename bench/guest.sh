#!/usr/bin/env bash
# Guest side of `arbor bench`: runs a plan written by the host and prints
#   @P <progress text>
#   @R<TAB>rep<TAB>scheduler<TAB>workload<TAB>metric<TAB>value
# Not meant to be run by hand; see `arbor bench --help`.
#
# Per repetition, each scheduler in turn (A B C A B C ...) is loaded once and
# runs every workload; around each workload we read /proc/stat (busy %,
# context switches), perf's cpu-migrations, and the scheduler's own counters
# (scx_arbor: a SIGUSR1 snapshot before and after; a peer: its scx_stats
# server, over the run). A scheduler that is ejected is marked
# (metric "ejected") and reloaded for the next workload.
set -u
PLAN=${1:?usage: guest.sh PLAN_DIR}
REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$PLAN/settings"
. "$REPO/tests/vm/lib.sh"	# nap, start_sched_cmd, stop_sched, sched_alive, counters_now
W=$(mktemp -d "$ARBOR_TMP/bench.XXXXXX")
say() { echo "@P $*"; }
emit() { printf '@R\t%s\t%s\t%s\t%s\t%s\n' "$REP" "$LABEL" "$WL" "$1" "$2"; }

mapfile -t SCHEDS <"$PLAN/scheds"
mapfile -t WORKLOADS <"$PLAN/workloads"

# the wake-up latency probe, built here (cc is in the guest: the host's root)
WAKEPROBE=$W/wakeprobe
cc -O2 -pthread -o "$WAKEPROBE" "$REPO/bench/probe/wakeprobe.c" || { say "error: cannot build wakeprobe"; exit 1; }

# ---- PostgreSQL for pgbench: one server per boot, a database per scale ----
if [ -n "${PG_SCALES:-}" ]; then
	PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
	[ -x "$PGBIN/initdb" ] || { say "error: PostgreSQL is not installed (scripts/install-deps.sh installs it)"; exit 1; }
	say "starting PostgreSQL ($PGBIN)"
	# a private directory, not a fixed /tmp name: the guest's /tmp is the host's
	PGD=$(mktemp -d /tmp/arbor-pg.XXXXXX) && chown postgres "$PGD" ||
		{ say "error: cannot make PostgreSQL's directory"; exit 1; }
	as_pg() { runuser -u postgres -- "$@"; }
	as_pg "$PGBIN/initdb" -D "$PGD/data" -A trust >"$PGD/initdb.log" 2>&1 ||
		{ say "error: initdb failed: $(tail -n1 "$PGD/initdb.log")"; exit 1; }
	as_pg "$PGBIN/pg_ctl" -D "$PGD/data" -l "$PGD/log" -w -t 300 \
		-o "-k $PGD -c listen_addresses= -c max_connections=200 -c shared_buffers=256MB -c fsync=off" start >/dev/null ||
		{ say "error: PostgreSQL did not start: $(tail -n2 "$PGD/log")"; exit 1; }
	for s in $PG_SCALES; do
		say "pgbench: initialising bench$s (scale $s)"
		as_pg "$PGBIN/createdb" -h "$PGD" "bench$s" &&
			as_pg pgbench -h "$PGD" -i -q -s "$s" "bench$s" >"$PGD/init$s.log" 2>&1 ||
			{ say "error: pgbench -i failed: $(tail -n1 "$PGD/init$s.log")"; exit 1; }
	done
fi

# ---- schedulers ----
# eevdf tokens: NAME / NO_NAME -> /sys/kernel/debug/sched/features,
# key=value -> /sys/kernel/debug/sched/key; undone after the repetition.
UNDO=()
eevdf_apply() {
	local t k v old
	UNDO=()
	[ -n "$1" ] || return 0
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug || return 1
	for t in ${1//,/ }; do
		if [[ $t == *=* ]]; then
			k=${t%%=*}; v=${t#*=}
			[ -e "/sys/kernel/debug/sched/$k" ] || { say "error: eevdf: no /sys/kernel/debug/sched/$k in this kernel"; return 1; }
			read -r old <"/sys/kernel/debug/sched/$k"
			echo "$v" >"/sys/kernel/debug/sched/$k" || { say "error: eevdf: cannot set $k=$v"; return 1; }
			UNDO+=("$k=$old")
		else
			echo "$t" >/sys/kernel/debug/sched/features 2>/dev/null || { say "error: eevdf: this kernel has no sched feature $t"; return 1; }
			if [[ $t == NO_* ]]; then UNDO+=("${t#NO_}"); else UNDO+=("NO_$t"); fi
		fi
	done
}
eevdf_undo() {
	local t
	for t in "${UNDO[@]}"; do
		if [[ $t == *=* ]]; then echo "${t#*=}" >"/sys/kernel/debug/sched/${t%%=*}"
		else echo "$t" >/sys/kernel/debug/sched/features; fi
	done
	UNDO=()
}

# sched_start KIND ARG: load a sched_ext scheduler (lib.sh), wait until it is enabled
sched_start() {
	local kind=$1 arg=$2
	SJSON=$W/stats.json
	rm -f "$SJSON"
	case $kind in
	arbor)
		# shellcheck disable=SC2086
		start_sched_cmd arbor "$ARBOR_BIN" $arg $ARBOR_EXTRA --stats-json "$SJSON"
		;;
	peer)
		[ -x "$arg" ] || { say "error: $arg is not installed"; return 1; }
		# the peers' ops are named after them: scx_lavd -> "lavd"
		start_sched_cmd "${arg##*/scx_}" "$arg"
		;;
	esac
}

# scx_arbor counters: a snapshot via SIGUSR1 into $1 (flat JSON, one per line)
arbor_snapshot() { counters_now "$SJSON" && cp "$SJSON" "$1"; }
# emit the per-workload delta of every integer counter (not the *_ns sums)
arbor_deltas() {
	local -A before
	local k v
	while read -r k v; do before[$k]=$v; done < <(flat_json "$1")
	while read -r k v; do
		[ -n "${before[$k]:-}" ] || continue
		case $k in *_ns) continue ;; esac
		emit "c:$k" $((v - before[$k]))
	done < <(flat_json "$2")
}
# a peer's own counters over one run: bench/peer_stats.py opens an interval
# on the peer's scx_stats server, sleeps through the run, and closes it on
# SIGUSR1. Without a server (or if it fails) the run simply has no counters.
peer_stats_begin() {
	local i first
	PSPID=
	rm -f "$W/ps.out"
	/usr/bin/python3 "$REPO/bench/peer_stats.py" >"$W/ps.out" 2>"$W/ps.err" &
	PSPID=$!
	for i in $(seq 1 200); do
		# a builtin read, not head: under TCG every exec costs
		first=
		read -r first <"$W/ps.out" 2>/dev/null
		[ "$first" = ready ] && return 0
		kill -0 "$PSPID" 2>/dev/null || break
		nap 0.2
	done
	say "warning: no counters from $LABEL: $(head -n1 "$W/ps.err" 2>/dev/null)"
	kill "$PSPID" 2>/dev/null; wait "$PSPID" 2>/dev/null; PSPID=
	return 1
}
peer_stats_end() {
	local k v
	[ -n "$PSPID" ] || return 0
	kill -USR1 "$PSPID" 2>/dev/null
	wait "$PSPID" 2>/dev/null || { PSPID=; return 1; }
	PSPID=
	while read -r k v; do
		[ "$k" = ready ] || emit "c:$k" "$v"
	done <"$W/ps.out"
}
flat_json() { sed -n 's/^ *"\([a-z_0-9]*\)": *\([0-9][0-9]*\),\{0,1\}$/\1 \2/p' "$1"; }

# BPF run time per op of the loaded scheduler (kernel.bpf_stats_enabled)
bpf_snapshot() {
	bpftool -j prog show 2>/dev/null | /usr/bin/python3 -c '
import json, sys
for p in json.load(sys.stdin):
    if p.get("type") == "struct_ops" and "run_cnt" in p:
        print(p.get("name", "?"), p["run_time_ns"], p["run_cnt"])' >"$1" 2>/dev/null
}
bpf_deltas() {
	awk 'NR == FNR { t[$1] = $2; c[$1] = $3; next }
	     ($3 - c[$1]) > 0 { printf "%s %.0f\n", $1, ($2 - t[$1]) / ($3 - c[$1]) }' "$1" "$2" |
	while read -r op ns; do emit "bpf:$op" "$ns"; done
}
echo 1 >/proc/sys/kernel/bpf_stats_enabled 2>/dev/null

# /proc/stat: BUSY (jiffies not idle/iowait), TOTAL, CTXT
procstat() {
	local k u n s i io irq sirq st rest
	while read -r k u n s i io irq sirq st rest; do
		case $k in
		cpu) TOTAL=$((u + n + s + i + io + irq + sirq + st)); BUSY=$((TOTAL - i - io)) ;;
		ctxt) CTXT=$u ;;
		esac
	done </proc/stat
}

# ---- migrations by distance ----
# Every task migration (the sched_migrate_task tracepoint, enabled in tracefs
# around the workload) is classed by how far it went: within an SMT core,
# within an LLC, across LLCs of a node, across nodes. The classes come from
# sysfs: "cpu core-key llc-key node" per line.
CPU_CLASSES=$W/cpu-classes
for d in /sys/devices/system/cpu/cpu[0-9]*; do
	c=${d##*cpu} pkg=0 core=$c llc= node=0
	read -r pkg <"$d/topology/physical_package_id" 2>/dev/null
	read -r core <"$d/topology/core_id" 2>/dev/null
	for ix in 3 2; do
		[ -r "$d/cache/index$ix/id" ] && { read -r llc <"$d/cache/index$ix/id"; llc="L$ix.$pkg.$llc"; break; }
	done
	[ -n "$llc" ] || llc="P$pkg"	# no cache ids: the package is the LLC
	for n in "$d"/node[0-9]*; do [ -e "$n" ] && node=${n##*node}; done
	echo "$c $pkg.$core $llc $node"
done >"$CPU_CLASSES"
TRACE=/sys/kernel/tracing
mountpoint -q $TRACE || mount -t tracefs nodev $TRACE 2>/dev/null
# The tracepoint straight from tracefs (no perf process to start and stop
# around each run: under TCG that added ~20 s per run); perf stat's count,
# without distances, if tracefs cannot be used.
if [ -w $TRACE/events/sched/sched_migrate_task/enable ] && echo 8192 >$TRACE/buffer_size_kb 2>/dev/null; then
	MIGR=trace
else
	MIGR=count
	say "warning: no tracefs; migrations are counted by perf, not classed by distance"
fi
# run_measured CMD...: the workload, its migrations recorded; output in $W/out
run_measured() {
	local rc
	if [ $MIGR = trace ]; then
		: >$TRACE/trace	# clears the buffers
		echo 1 >$TRACE/events/sched/sched_migrate_task/enable
		"$@" >"$W/out" 2>&1
		rc=$?
		echo 0 >$TRACE/events/sched/sched_migrate_task/enable
		return $rc
	fi
	perf stat -a -x, -e cpu-migrations -o "$W/perf" -- "$@" >"$W/out" 2>&1
}
# emit_migrations WALL: migrations per second, in total and by distance
emit_migrations() {
	local wall=$1 k v
	if [ $MIGR = count ]; then
		v=$(awk -F, '/cpu-migrations/ { print $1 }' "$W/perf" 2>/dev/null)
		[[ $v =~ ^[0-9]+$ ]] && emit migr_per_s "$(awk -v c="$v" -v w="$wall" 'BEGIN { printf "%.0f", (w > 0 ? c / w : 0) }')"
		return
	fi
	while read -r k v; do emit "$k" "$v"; done < <(
		awk -v w="$wall" -f "$REPO/bench/migrations.awk" "$CPU_CLASSES" $TRACE/trace)
	# events lost to a full buffer would make the rates too low: say so
	local lost
	lost=$(awk '/^overrun:/ { s += $2 } END { print s + 0 }' $TRACE/per_cpu/cpu*/stats 2>/dev/null)
	[ "${lost:-0}" = 0 ] || say "warning: $lost migration events lost (trace buffer full) in $WL under $LABEL"
}

# the workload's own numbers
parse_result() { # parser file
	local f=$2
	case $1 in
	hackbench) awk '/^Time:/ { print "time_s", $2 }' "$f" ;;
	perf) awk '/Total time:/ { print "time_s", $3 }' "$f" ;;
	sysbench) awk '/events per second:/ { print "eps", $4 }' "$f" ;;
	pgbench) awk '/^tps = / { print "tps", $3 } /^latency average = / { print "lat_ms", $4 }' "$f" ;;
	wakeprobe) tr -d '{}",' <"$f" | tr ' ' '\n' | paste - - | awk -F'\t' '$1 != "samples:" { sub(":", "", $1); print $1, $2 }' ;;
	stress-ng) awk '/metrc:/ && $4 ~ /^[a-z-]+$/ && $5 ~ /^[0-9]+$/ { print "bogo_ops_s", $9 }' "$f" ;;
	rt-app | wall) ;;	# wall time only
	esac
}

ncpu=$(nproc)
say "guest: $(uname -r), $ncpu CPUs, ${#SCHEDS[@]} schedulers x ${#WORKLOADS[@]} workloads x $REPS reps"
for REP in $(seq 1 "$REPS"); do
	for sl in "${SCHEDS[@]}"; do
		IFS=$'\t' read -r LABEL kind arg <<<"$sl"
		loaded=1
		if [ "$kind" = eevdf ]; then
			eevdf_apply "$arg" || exit 1
		else
			say "rep $REP: loading $LABEL"
			sched_start "$kind" "$arg" || { say "warning: $LABEL failed to load: $(tail -n2 "$SLOG" | tr '\n' ' ')"; loaded=0; }
			[ "$loaded" = 1 ] && bpf_snapshot "$W/bpf0"
		fi
		for wl in "${WORKLOADS[@]}"; do
			IFS=$'\t' read -r WL parser primary cmd <<<"$wl"
			cmd=${cmd//@WAKEPROBE@/$WAKEPROBE}
			cmd=${cmd//@PGHOST@/${PGD:-}}
			if [ "$kind" != eevdf ] && [ "$loaded" = 0 ]; then
				# not running: try once more, else record the failure
				sched_start "$kind" "$arg" && loaded=1
				if [ "$loaded" = 0 ]; then
					emit ejected 1; emit "$primary" nan
					say "done rep $REP $LABEL $WL: FAILED (scheduler not loaded)"
					continue
				fi
			fi
			[ "$kind" = arbor ] && arbor_snapshot "$W/c0"
			[ "$kind" = peer ] && peer_stats_begin
			procstat; b0=$BUSY; t0=$TOTAL; x0=$CTXT
			s0=$EPOCHREALTIME
			runas=()	# pgbench talks to the server as its owner
			[ "$parser" = pgbench ] && runas=(runuser -u postgres --)
			# shellcheck disable=SC2086
			run_measured "${runas[@]}" $cmd
			rc=$?
			s1=$EPOCHREALTIME
			procstat
			wall=$(awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.3f", b - a }')
			ej=0
			if [ "$kind" != eevdf ] && ! sched_alive; then
				ej=1
				say "warning: $LABEL was ejected during $WL (rep $REP): $(grep -i -m1 -E 'error|stall|exit' "$SLOG")"
			fi
			emit ejected $ej
			got=0
			while read -r m v; do
				[ -n "$m" ] && [ -n "$v" ] && { emit "$m" "$v"; got=1; }
			done < <(parse_result "$parser" "$W/out")
			if [ "$parser" = rt-app ] || [ "$parser" = wall ]; then emit time_s "$wall"; got=1; fi
			if [ $got = 0 ] || [ $rc -ne 0 ]; then
				say "warning: $WL under $LABEL (rep $REP): exit $rc, no result: $(tail -n2 "$W/out" | tr '\n' ' ')"
			fi
			emit wall_s "$wall"
			emit busy_pct "$(awk -v b=$((BUSY - b0)) -v t=$((TOTAL - t0)) 'BEGIN { printf "%.1f", (t ? 100 * b / t : 0) }')"
			emit ctxsw_per_s "$(awk -v c=$((CTXT - x0)) -v w="$wall" 'BEGIN { printf "%.0f", (w > 0 ? c / w : 0) }')"
			emit_migrations "$wall"
			if [ "$kind" = arbor ] && [ $ej = 0 ] && arbor_snapshot "$W/c1"; then
				arbor_deltas "$W/c0" "$W/c1"
			fi
			[ "$kind" = peer ] && peer_stats_end
			say "done rep $REP $LABEL $WL (${wall}s)"
			if [ $ej = 1 ]; then stop_sched; loaded=0; fi
		done
		if [ "$kind" = eevdf ]; then
			eevdf_undo
		elif [ "$loaded" = 1 ]; then
			bpf_snapshot "$W/bpf1"
			WL="(all)"
			bpf_deltas "$W/bpf0" "$W/bpf1"
			stop_sched
		fi
	done
done
say "finished"
