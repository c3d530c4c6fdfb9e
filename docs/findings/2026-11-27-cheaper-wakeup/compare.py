#!/usr/bin/env python3
"""Timing, one binary against another: two `arbor sim --out DIR` runs of the
same schedulers, workloads and reps. For each (scheduler, workload) and the
workload's primary metric (plus any metric named with -m), prints both
means, the change (+ = better, in the metric's own direction) and its 95%
interval (Welch's t on the difference of means, over the reps).

usage: compare.py A_DIR B_DIR [-m METRIC]...
"""
import json
import math
import statistics
import sys

# two-sided 95% Student t quantiles by degrees of freedom (rounded down)
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
       9: 2.262, 10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042}


def t95(df):
    k = max(d for d in T95 if d <= max(1, int(df)))
    return T95[k]


def load(d):
    j = json.load(open(d + "/results.json"))
    raw = {}
    for r in j["raw"]:
        raw.setdefault((r["scheduler"], r["workload"], r["metric"]), []).append(r["value"])
    prim = {w["workload"]: w["primary"] for w in j["workloads"]}
    hib = {m: v.get("higher_is_better", False) for m, v in j["metrics"].items()}
    return raw, prim, hib


def main():
    args = sys.argv[1:]
    extra = [args[i + 1] for i, a in enumerate(args) if a == "-m"]
    dirs = [a for i, a in enumerate(args) if a != "-m" and (i == 0 or args[i - 1] != "-m")]
    if len(dirs) != 2:
        sys.exit("usage: compare.py A_DIR B_DIR [-m METRIC]...")
    (ra, pa, ha), (rb, _, _) = load(dirs[0]), load(dirs[1])
    print("| scheduler | workload | metric | A | B | change (+ = better) | 95% interval |")
    print("|---|---|---|---:|---:|---:|---|")
    for (s, w, m) in sorted(ra):
        if m != pa.get(w) and m not in extra:
            continue
        a, b = ra[(s, w, m)], rb.get((s, w, m))
        if not b:
            continue
        ma, mb = statistics.mean(a), statistics.mean(b)
        va = statistics.variance(a) if len(a) > 1 else 0.0
        vb = statistics.variance(b) if len(b) > 1 else 0.0
        se = math.sqrt(va / len(a) + vb / len(b))
        if se > 0:
            df = (va / len(a) + vb / len(b)) ** 2 / (
                (va / len(a)) ** 2 / max(1, len(a) - 1) + (vb / len(b)) ** 2 / max(1, len(b) - 1))
        else:
            df = 1
        sign = 1 if ha.get(m, False) else -1
        ch = sign * (mb - ma) / ma * 100 if ma else float("nan")
        half = t95(df) * se / abs(ma) * 100 if ma else float("nan")
        held = "holds 0" if abs(ch) <= half else ""
        print(f"| {s} | {w} | {m} | {ma:.4g} ± {math.sqrt(va):.2g} | {mb:.4g} ± {math.sqrt(vb):.2g} "
              f"| {ch:+.2f}% | ±{half:.2f}% {held} |")


if __name__ == "__main__":
    main()
