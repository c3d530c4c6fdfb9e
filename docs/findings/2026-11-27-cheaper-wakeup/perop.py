#!/usr/bin/env python3
"""Per-op BPF cost (ns per call, the bpf:OP rows) of one scheduler profile,
old binary -> new binary, beside the cheapest of the peers, per machine and
workload, as a markdown table.

usage: perop.py PROFILE MACHINE:OLD_DIR:NEW_DIR:PEER_DIR...
"""
import json
import sys

OPS = ["select_cpu", "enqueue", "runnable", "running", "update_idle", "quiescent"]


def cells(d):
    out = {}
    for c in json.load(open(d + "/results.json"))["cells"]:
        if c["metric"].startswith("bpf:"):
            out[(c["scheduler"], c["workload"], c["metric"][4:])] = c["mean"]
    return out


def main():
    prof = sys.argv[1]
    print("| machine | workload | " + " | ".join(OPS) + " |")
    print("|---|---|" + "---:|" * len(OPS))
    for arg in sys.argv[2:]:
        m, old, new, peer = arg.split(":")
        o, n, p = cells(old), cells(new), cells(peer)
        for w in sorted({k[1] for k in o}):
            row = []
            for op in OPS:
                a, b = o.get((prof, w, op)), n.get((prof, w, op))
                peers = [(v, s) for (s, ww, oo), v in p.items() if ww == w and oo == op]
                best = min(peers) if peers else None
                if a is None and b is None:
                    row.append("-")
                    continue
                cell = f"{a:.0f} → **{b:.0f}**" if a is not None and b is not None else f"{a} → {b}"
                if best:
                    cell += f" ({best[1]} {best[0]:.0f})"
                row.append(cell)
            print(f"| {m} | {w} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
