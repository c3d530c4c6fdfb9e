#!/usr/bin/env python3
"""Per-op BPF cost (ns per call, the cost model's charge) of the wake-up ops, per workload,
from one results.json per binary: before (main) and after (this branch)."""
import json, sys
OPS = ['select_cpu', 'enqueue', 'runnable', 'running', 'stopping', 'dispatch', 'update_idle']
def cells(p):
    d = json.load(open(p))
    return {(c['scheduler'], c['workload'], c['metric']): c['mean'] for c in d['cells']}
before, after, wl = cells(sys.argv[1]), cells(sys.argv[2]), sys.argv[3]
scheds = ['arbor:stock', 'arbor:default', 'bpfland', 'cosmos', 'lavd', 'p2dq', 'rusty']
print('| op | ' + ' | '.join(['arbor:stock main', 'arbor:stock branch', 'arbor:default main', 'arbor:default branch'] + scheds[2:]) + ' |')
print('|---' * (1 + 4 + len(scheds) - 2) + '|')
for op in OPS:
    k = 'bpf:' + op
    def g(src, s):
        v = src.get((s, wl, k))
        return f'{v:.0f}' if v is not None else '-'
    row = [g(before, 'arbor:stock'), g(after, 'arbor:stock'), g(before, 'arbor:default'), g(after, 'arbor:default')]
    row += [g(before, s) for s in scheds[2:]]
    print(f'| {op} | ' + ' | '.join(row) + ' |')
