#!/usr/bin/env python3
"""Root cgroup (a) against a depth-three hierarchy (b), per machine and
workload, from each OUT/DIR/results.json of run.sh (DIR: a machine, or
MACHINE-pgbench): the workload's
metrics and bpf_ns_per_wakeup, each side's mean over its runs and b's change
against a with its 95% Welch interval. The interval is arbor's own
(arbor/src/ci.rs change_ci: the same t table and formula): arbor sim's report
compares schedulers within a workload, and here the two sides are two
workloads under one scheduler. Writes OUT/summary.json; prints the table."""
import json, math, sys

T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
       2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
       2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
CG = "/a/b/c"
# workload -> metrics shown (the primary first); schbench's rps is the
# throughput a "costs 1%" most likely means, its wake-up p99 the primary
PUBLISHED = "scx_cidland (sched-ext/scx PR #3821): a depth-three hierarchy costs about 1% on saturated schbench at 24 CPUs and 3% at 352"


def t95(df):
    if not df >= 1:
        return math.inf
    d = math.floor(df)
    return T95[d - 1] if d <= 30 else 2.000 if d <= 60 else 1.980 if d <= 119 else 1.960


def mean_sd(v):
    m = sum(v) / len(v)
    sd = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else 0.0
    return m, sd


def change_ci(a, b):
    (ma, sa), (mb, sb) = mean_sd(a), mean_sd(b)
    na, nb = len(a), len(b)
    va, vb = sa * sa / na, sb * sb / nb
    se = math.sqrt(va + vb)
    half = 0.0 if se == 0 else t95((va + vb) ** 2 / (va * va / (na - 1) + vb * vb / (nb - 1))) * se
    pct = lambda x: 100 * x / abs(ma)
    return pct(mb - ma), pct(mb - ma - half), pct(mb - ma + half)


def side(v):
    m, sd = mean_sd(v)
    return {"mean": m, "sd": sd, "n": len(v)}


out, dirs = sys.argv[1], sys.argv[2:]
cells, commands = [], {}
for d in dirs:
    r = json.load(open(f"{out}/{d}/results.json"))
    m = r["meta"]["topology"].removeprefix("sim: ")
    free = r["meta"]["cost"]["bpf_callback_ns"] == 0 and r["meta"]["cost"]["bpf_call_ns"] == 0
    commands[d] = r["meta"]["command"]
    ncpu = len(r["meta"]["machine"]["cpus"])
    prim = {w["workload"]: w["primary"] for w in r["workloads"]}
    raw = {}
    for x in r["raw"]:
        raw.setdefault((x["workload"], x["metric"]), []).append(x["value"])
    ej = sum(sum(v) for (w, k), v in raw.items() if k == "ejected")
    assert ej == 0, f"{m}: {ej} ejections"
    for w in prim:
        if CG in w:
            continue
        wb = w + (f",cg={CG}" if ":" in w else f":cg={CG}")
        metrics = [prim[w]] + (["rps"] if w == "schbench" else []) + ([] if free else ["bpf_ns_per_wakeup"])
        for k in metrics:
            a, b = raw[(w, k)], raw[(wb, k)]
            ch, lo, hi = change_ci(a, b)
            cells.append({"machine": m, "cpus": ncpu, "bpf_free": free, "workload": w, "metric": k,
                          "root": side(a), "depth3": side(b),
                          "change_pct": round(ch, 3), "ci95_pct": [round(lo, 3), round(hi, 3)]})

better = {"wakeup_p99_us": "lower", "time_s": "lower", "tps": "higher", "rps": "higher",
          "bpf_ns_per_wakeup": "lower"}
for c in cells:
    c["better"] = better[c["metric"]]
with open(f"{out}/summary.json", "w") as f:
    json.dump({"published": PUBLISHED, "commands": commands, "cells": cells}, f, indent=1, sort_keys=True)
    f.write("\n")


def fmt(x):
    return f"{x:.4g}" if abs(x) < 1000 else f"{x:,.0f}"


print("| machine | workload | metric | root (a) | /a/b/c (b) | b vs a, 95% | verdict |")
print("|---|---|---|---|---|---|---|")
for c in cells:
    lo, hi = c["ci95_pct"]
    if lo <= 0 <= hi:
        v = "~ (interval holds 0)"
    else:
        worse = (c["change_pct"] > 0) == (c["better"] == "lower")
        v = "worse" if worse else "better"
    print(f"| {c['machine']} ({c['cpus']}){', BPF free' if c['bpf_free'] else ''} | `{c['workload']}` | {c['metric']} | "
          f"{fmt(c['root']['mean'])} ± {fmt(c['root']['sd'])} | {fmt(c['depth3']['mean'])} ± {fmt(c['depth3']['sd'])} | "
          f"{c['change_pct']:+.2f}% [{lo:+.2f}, {hi:+.2f}] | {v} |")

# Where the added cost goes: each op's BPF ns per call, root against
# depth three (mean over the runs), for the ops that changed by 5 ns or more.
# The cost model charges an op bpf_callback_ns plus bpf_call_ns (20 ns) per
# helper or kfunc call and map look-up, so a difference of 20 ns is one call
# (the runs with BPF free have none to show).
print()
print("| machine | workload | op: BPF ns per call, root -> /a/b/c |")
print("|---|---|---|")
for d in dirs:
    r = json.load(open(f"{out}/{d}/results.json"))
    m = r["meta"]["topology"].removeprefix("sim: ")
    if r["meta"]["cost"]["bpf_call_ns"] == 0:
        continue
    raw = {}
    for x in r["raw"]:
        raw.setdefault((x["workload"], x["metric"]), []).append(x["value"])
    for w in [w["workload"] for w in r["workloads"] if CG not in w["workload"]]:
        wb = w + (f",cg={CG}" if ":" in w else f":cg={CG}")
        ops = sorted({k for (ww, k) in raw if ww == w and k.startswith("bpf:")})
        row = []
        for k in ops:
            if (wb, k) not in raw:
                continue
            a, b = mean_sd(raw[(w, k)])[0], mean_sd(raw[(wb, k)])[0]
            if abs(b - a) >= 5:
                row.append(f"{k[4:]} {a:.0f} -> {b:.0f}")
        print(f"| {m} | `{w}` | {', '.join(row)} |")
