#!/usr/bin/env python3
"""Per-op BPF cost (ns per call, the bpf:OP rows) of one scheduler profile,
before -> after, beside each peer, per machine and workload, as a markdown
table. The peers' numbers come from the before run (their code is the same
in both binaries). "–": the op was not called in that run.

usage: perop.py PROFILE PEER[,PEER...] MACHINE:BEFORE_DIR:AFTER_DIR...
"""
import json
import sys

OPS = ["select_cpu", "enqueue", "dispatch", "runnable", "running", "stopping", "quiescent",
       "update_idle", "tick"]


def cells(d):
    out = {}
    for c in json.load(open(d + "/results.json"))["cells"]:
        if c["metric"].startswith("bpf:"):
            out[(c["scheduler"], c["workload"], c["metric"][4:])] = c["mean"]
    return out


def main():
    prof, peers = sys.argv[1], sys.argv[2].split(",")
    print("| machine | workload | " + " | ".join(OPS) + " |")
    print("|---|---|" + "---:|" * len(OPS))
    for arg in sys.argv[3:]:
        m, old, new = arg.split(":")
        o, n = cells(old), cells(new)
        for w in sorted({k[1] for k in o if k[0] == prof}):
            row = []
            for op in OPS:
                a, b = o.get((prof, w, op)), n.get((prof, w, op))
                if not a and not b:
                    row.append("-")
                    continue
                fa = f"{a:.0f}" if a else "–"
                fb = f"{b:.0f}" if b else "–"
                cell = f"{fa} → **{fb}**"
                ps = [f"{p[:2]} {o[(p, w, op)]:.0f}" for p in peers if o.get((p, w, op))]
                if ps:
                    cell += " (" + ", ".join(ps) + ")"
                row.append(cell)
            print(f"| {m} | {w} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
