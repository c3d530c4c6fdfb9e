#!/usr/bin/env bash
# A sharded sweep on a real Slurm: starts a one-node cluster on this host
# (munged, slurmctld and slurmd from Debian's slurm-wlm and munge, their
# configuration, state and logs under $DIR), submits a small `arbor sim
# verdict --shard auto` (8 cells: 2 machines x 4 workloads) as an 8-task
# job array (sbatch --array=0-7), waits, joins the parts with `arbor sim
# merge`, and checks that the result is byte for byte what the same
# verdict run unsharded writes, but for results.json's wall_s and cpu_s
# (timing). Stops the daemons it started. Prints how long each step took.
#
#   scripts/slurm-local.sh [TASKS]     (as root; TASKS defaults to 8)
#
# ARBOR (default ./target/release/arbor) is the binary under test; DIR
# (default target/slurm) holds the cluster and the outputs.
# The daemons run without cgroups (proctrack/linuxproc, task/none), so
# that they start in a container or a VM without systemd.
set -euo pipefail

TASKS=${1:-8}
ARBOR=$(realpath "${ARBOR:-./target/release/arbor}")
DIR=$(realpath -m "${DIR:-target/slurm}")
log() { printf 'slurm-local: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }
t0=$(date +%s%N)
lap() { local ds=$((($(date +%s%N) - t0) / 100000000)); echo "$((ds / 10)).$((ds % 10))"; }

[ "$(id -u)" -eq 0 ] || die "must run as root (it installs packages and starts daemons)"
[ -x "$ARBOR" ] || die "$ARBOR: not built (cargo build --release --locked -p arbor)"
case "$DIR" in /|/root|/home|/work|"$HOME") die "DIR=$DIR: give a directory of its own (it is emptied)";; esac
[[ "$TASKS" =~ ^[1-9][0-9]*$ ]] || die "TASKS must be a positive number, not '$TASKS'"

# --- packages (scripts/install-deps.sh installs them too)
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
  log "installing slurm-wlm munge"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi

# --- munge: the key the package made (or a new one), the daemon if not running
started_munged=
if [ ! -S /run/munge/munge.socket.2 ] || ! munge -n </dev/null >/dev/null 2>&1; then
  [ -s /etc/munge/munge.key ] || mungekey --create --keyfile=/etc/munge/munge.key
  chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge
  runuser -u munge -- munged
  started_munged=1
  munge -n </dev/null >/dev/null || die "munged does not answer (see /var/log/munge/munged.log)"
fi

# --- one node: this host, its CPUs, reached on localhost
HOST=$(hostname -s)
# kill_pidfile FILE NAME: the daemon NAME whose pid FILE holds (ours, from
# this run or an interrupted one), and wait until it is gone
kill_pidfile() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 0
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ] || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do [ -d "/proc/$pid" ] || return 0; sleep 0.1; done
}
for d in slurmd slurmctld; do kill_pidfile "$DIR/$d.pid" "$d"; done
rm -rf "$DIR" && mkdir -p "$DIR"/{state,spool,log,out}
export SLURM_CONF=$DIR/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=arbor-local
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# start the next array task as soon as one ends, not at the next periodic pass
SchedulerParameters=sched_interval=1
MpiDefault=none
ReturnToService=2
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=local Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF

stop() {
  # (slurmd first: slurmctld's shutdown waits for it)
  kill_pidfile "$DIR/slurmd.pid" slurmd &
  kill_pidfile "$DIR/slurmctld.pid" slurmctld &
  wait
  [ -z "$started_munged" ] || kill_pidfile /run/munge/munged.pid munged
}
trap stop EXIT
slurmctld -c || die "slurmctld did not start: $(tail -n 3 "$DIR/log/slurmctld.log" | tr '\n' ' ')"
slurmd -c || die "slurmd did not start: $(tail -n 3 "$DIR/log/slurmd.log" | tr '\n' ' ')"
for _ in $(seq 60); do
  sinfo -h -N -o '%t' 2>/dev/null | grep -qx idle && break
  sleep 0.5
done
sinfo -h -N -o '%t' | grep -qx idle ||
  die "node $HOST not idle: $(sinfo -h -N -o '%t %E' 2>&1); logs in $DIR/log"
log "cluster up ($(nproc) CPUs on $HOST) at $(lap) s"

# --- the sweep: a verdict of 8 cells (machine x workload), one per task of
# 8, each cell with its further batches (-r 2, up to 3 runs a scheduler)
SWEEP=(sim verdict -t 2s2c2t -t 1s2c2t -p cosmos -r 2 --max-reps 3
       -w hackbench:g=1,l=30 -w perf-pipe:l=2000 -w wakeprobe:t=1 -w schbench:r=1)
OUT=$DIR/out
cat >"$DIR/sweep.sbatch" <<EOF
#!/bin/bash
#SBATCH --job-name=arbor-verdict
#SBATCH --output=$OUT/task-%a.log
#SBATCH --cpus-per-task=1
exec "$ARBOR" $(printf '%q ' "${SWEEP[@]}") --shard auto --out "$OUT/part-\$SLURM_ARRAY_TASK_ID"
EOF
job=$(sbatch --parsable --array=0-$((TASKS - 1)) "$DIR/sweep.sbatch")
# (sbatch --wait polls at growing intervals, seconds after the end)
for _ in $(seq 1200); do
  [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
  sleep 0.25
done
[ -z "$(squeue -h -j "$job")" ] || die "array job $job still running after 5 minutes; logs in $OUT"
if grep -l 'arbor: error' "$OUT"/task-*.log >/dev/null 2>&1; then
  die "array tasks failed: $(grep -h 'arbor: error' "$OUT"/task-*.log | head -n 3 | tr '\n' ' ')"
fi
log "array job $job: $TASKS tasks done at $(lap) s"

"$ARBOR" sim merge --no-charts "$OUT/merged" "$OUT"/part-* >/dev/null
log "merged at $(lap) s"
"$ARBOR" "${SWEEP[@]}" --out "$OUT/whole" >/dev/null 2>&1 || die "the unsharded run failed"
# the timing fields of results.json differ: the parts ran at other times
untimed() { grep -v -e '^  "wall_s": ' -e '^  "cpu_s": ' "$1"; }
for f in results.json summary.json report.md; do
  cmp -s <(untimed "$OUT/whole/$f") <(untimed "$OUT/merged/$f") ||
    die "$f of the merged shards differs from the unsharded run's ($OUT)"
done
[ "$(grep -c -e '^  "wall_s": ' -e '^  "cpu_s": ' "$OUT/whole/results.json")" = 2 ] ||
  die "results.json has not the one wall_s and cpu_s it should ($OUT/whole)"
log "OK: $TASKS Slurm array tasks merged = the unsharded verdict (results.json but wall_s and cpu_s, summary.json, report.md); $(lap) s in all"
