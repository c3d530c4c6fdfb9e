#!/usr/bin/env python3
"""BPF ns per wake-up (bpf_ns_per_wakeup) per machine and workload: every
scheduler's mean ± stdev over its runs, and whether arbor:default is at or
below the cheapest peer. Also the run's whole BPF time (ns per wake-up x
wake-ups) for the workloads of fixed work, where schedulers differ in how
many wake-ups the same messages take.
usage: table.py DIR MACHINE...  (DIR/MACHINE/results.json from run.sh)"""
import json, sys, statistics as S

PEERS = ["bpfland", "cosmos", "lavd", "p2dq", "rusty"]
FIXED = ("hackbench", "perf-messaging", "perf-pipe")

def load(path):
    d = json.load(open(path))
    per = {}
    for r in d["raw"]:
        if r["metric"] in ("bpf_ns_per_wakeup", "wakeups"):
            per.setdefault((r["workload"], r["scheduler"], r["rep"]), {})[r["metric"]] = r["value"]
    out = {}
    for (w, s, _), v in per.items():
        if "bpf_ns_per_wakeup" in v:
            out.setdefault((w, s), []).append((v["bpf_ns_per_wakeup"], v.get("wakeups", 0.0)))
    return d["workloads"], out

def fmt(xs):
    m = S.mean(xs)
    sd = S.stdev(xs) if len(xs) > 1 else 0.0
    return f"{m:.0f} ±{sd:.0f}"

base, machines = sys.argv[1], sys.argv[2:]
hdr = ["machine", "workload", "arbor:default", "arbor:stock"] + PEERS + ["default ≤ cheapest peer"]
print("| " + " | ".join(hdr) + " |")
print("|" + "---|" * 2 + "---:|" * (len(hdr) - 3) + "---|")
met = tot = 0
totals = []
for m in machines:
    wls, cells = load(f"{base}/{m}/results.json")
    for w in wls:
        w = w if isinstance(w, str) else w["workload"]
        row = [m, w.split(":")[0]]
        means = {}
        for s in ["arbor:default", "arbor:stock"] + PEERS:
            v = cells.get((w, s))
            if not v:
                row.append("-")
                continue
            xs = [a for a, _ in v]
            means[s] = S.mean(xs)
            row.append(fmt(xs))
        peers = [means[p] for p in PEERS if p in means]
        if peers and "arbor:default" in means:
            tot += 1
            ok = means["arbor:default"] <= min(peers)
            met += ok
            cheapest = min((means[p], p) for p in PEERS if p in means)
            row.append("yes" if ok else f"no ({cheapest[1]} {cheapest[0]:.0f})")
        print("| " + " | ".join(row) + " |")
        if w.startswith(FIXED):
            t = {s: S.mean([a * n for a, n in cells[(w, s)]]) / 1e6 for s in means}
            totals.append((m, w.split(":")[0], t))
print(f"\narbor:default at or below the cheapest peer per wake-up in {met} of {tot} cells\n")
print("Whole BPF time of the run (ms), the workloads of fixed work:\n")
print("| machine | workload | " + " | ".join(["arbor:default", "arbor:stock"] + PEERS) + " | default ≤ cheapest peer |")
print("|---|---|" + "---:|" * (2 + len(PEERS)) + "---|")
met = 0
for m, w, t in totals:
    peers = [t[p] for p in PEERS if p in t]
    ok = t["arbor:default"] <= min(peers)
    met += ok
    print(f"| {m} | {w} | " + " | ".join(f"{t[s]:.2f}" if s in t else "-" for s in ["arbor:default", "arbor:stock"] + PEERS) + f" | {'yes' if ok else 'no'} |")
print(f"\narbor:default at or below the cheapest peer in whole BPF time in {met} of {len(totals)} cells")
