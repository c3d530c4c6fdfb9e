#!/usr/bin/env python3
"""Compare two `arbor sim --out DIR` results.json files cell by cell.

Every raw value (rep, scheduler, workload, metric) and every summary cell
must be equal, except the per-op BPF cost rows (metric `bpf:OP`). Prints
one line per difference and exits 1 if there is any, 0 otherwise.

usage: identity.py A/results.json B/results.json
"""
import json
import sys


def rows(d):
    out = {}
    for r in d["raw"]:
        if r["metric"].startswith("bpf:"):
            continue
        out[("raw", r["rep"], r["scheduler"], r["workload"], r["metric"])] = r["value"]
    for c in d["cells"]:
        if c["metric"].startswith("bpf:"):
            continue
        for f in ("n", "mean", "stdev", "change_pct", "ci_pct", "ejected"):
            out[("cell", c["scheduler"], c["workload"], c["metric"], f)] = c.get(f)
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: identity.py A/results.json B/results.json")
    a, b = (rows(json.load(open(p))) for p in sys.argv[1:])
    diffs = 0
    for k in sorted(set(a) | set(b), key=str):
        if a.get(k, "<missing>") != b.get(k, "<missing>"):
            diffs += 1
            if diffs <= 20:
                print(f"differs: {k}: {a.get(k, '<missing>')} vs {b.get(k, '<missing>')}")
    n = len(set(a) | set(b))
    print(f"{diffs} of {n} values differ ({sys.argv[1]} vs {sys.argv[2]})")
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
