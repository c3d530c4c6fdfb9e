#!/usr/bin/python3
"""Charts for `arbor bench` and `arbor sim`: one PNG per workload, its
primary metric per scheduler side by side, mean with a stdev error bar.
Which way is better, and the unit, come from results.json's "metrics"
(the workload's own declaration in arbor/src/bench/workload.rs).

usage: plot.py results.json OUTDIR
"""
import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot.py results.json OUTDIR")
    with open(sys.argv[1]) as f:
        res = json.load(f)
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    cells = {(c["workload"], c["metric"], c["scheduler"]): c for c in res["cells"]}
    scheds = res["schedulers"]
    for w in res["workloads"]:
        wl, m = w["workload"], w["primary"]
        means, sds = [], []
        for s in scheds:
            c = cells.get((wl, m, s))
            means.append(c["mean"] if c and c["mean"] is not None else 0)
            sds.append(c["stdev"] if c and c["stdev"] is not None else 0)
        info = res.get("metrics", {}).get(m)
        if info is None:
            sys.exit(f"plot.py: results.json declares no metric {m!r}")
        better = "higher" if info["higher_is_better"] else "lower"
        unit = f"{info['unit']}, " if info.get("unit") else ""
        fig, ax = plt.subplots(figsize=(max(5, 1.1 * len(scheds)), 3.6))
        ax.bar(range(len(scheds)), means, yerr=sds, capsize=4, color="#4c78a8")
        ax.set_xticks(range(len(scheds)))
        ax.set_xticklabels(scheds, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel(f"{m} ({unit}{better} is better)")
        ax.set_title(f"{wl}  [{res['meta'].get('topology', '')}]", fontsize=9)
        fig.tight_layout()
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", wl) + ".png"
        fig.savefig(os.path.join(out, name), dpi=100)
        plt.close(fig)


if __name__ == "__main__":
    main()
