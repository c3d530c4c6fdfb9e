#!/usr/bin/env bash
# Per-op BPF cost of two scx_arbor builds in one boot: the
# kernel's run_cnt / run_time_ns of each struct_ops program, as bpftool
# prints them with kernel.bpf_stats_enabled=1, under the same workload.
# Guest side:
#   arbor vm -t 2s2c2t -- bench/opcost.sh BEFORE_BIN AFTER_BIN [ROUNDS]
set -u
. "$(dirname "$0")/../tests/vm/lib.sh"
BEFORE=$1
AFTER=$2
ROUNDS=${3:-2}
sysctl -qw kernel.bpf_stats_enabled=1 || { echo "FAIL: cannot enable BPF stats"; exit 1; }

# workload: wake-up heavy (hackbench) and a pinned pipe ping-pong
workload() {
	hackbench -g 4 -l 200 >/dev/null 2>&1
	taskset -c 0 perf bench sched pipe -l 20000 >/dev/null 2>&1
}

# snapshot LABEL: per-op cumulative counts of the loaded arbor programs
snapshot() {
	bpftool prog show -j | python3 -c '
import json, sys
label = sys.argv[1]
for p in json.load(sys.stdin):
    n = p.get("name", "")
    if p.get("type") == "struct_ops" and n.startswith("arbor_"):
        print(label, n, p.get("run_cnt", 0), p.get("run_time_ns", 0))
' "$1"
}

OUT=/tmp/arbor-opcost.txt
: >$OUT
for r in $(seq 1 "$ROUNDS"); do
	for which in before after; do
		bin=$BEFORE
		[ $which = after ] && bin=$AFTER
		if ! start_sched_cmd arbor "$bin"; then
			echo "FAIL: $which ($bin) did not load"
			grep -v '^libbpf: ' "$SLOG" | tail -n 30
			exit 1
		fi
		workload
		snapshot "$which" >>$OUT
		stop_sched
	done
done
python3 - "$OUT" <<'PY'
import sys, collections
tot = collections.defaultdict(lambda: [0, 0])
for line in open(sys.argv[1]):
    w, n, c, ns = line.split()
    tot[(w, n)][0] += int(c)
    tot[(w, n)][1] += int(ns)
ops = sorted({n for (_, n) in tot}, key=lambda n: -tot[("before", n)][1])
print(f"{'op':<18}{'calls before':>13}{'ns/call before':>16}{'calls after':>13}{'ns/call after':>15}")
for n in ops:
    b, a = tot[("before", n)], tot[("after", n)]
    f = lambda x: f"{x[1] / x[0]:.0f}" if x[0] else "-"
    print(f"{n:<18}{b[0]:>13}{f(b):>16}{a[0]:>13}{f(a):>15}")
for w in ("before", "after"):
    c = sum(v[0] for (ww, _), v in tot.items() if ww == w)
    ns = sum(v[1] for (ww, _), v in tot.items() if ww == w)
    print(f"total {w}: {c} calls, {ns / 1e6:.1f} ms in BPF")
PY
echo "PASS: measured"
