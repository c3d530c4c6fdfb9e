#!/usr/bin/env python3
"""perop.py BEFORE_ROOT AFTER_ROOT MACHINE...: per-op BPF cost (ns/call, sim),
arbor:default before -> after (BEFORE_ROOT "-": after only), beside every peer (from AFTER's results.json)."""
import json, sys, statistics as st, collections
before, after, machines = sys.argv[1], sys.argv[2], sys.argv[3:]
ops = ['select_cpu', 'enqueue', 'dispatch', 'runnable', 'running', 'stopping', 'quiescent', 'update_idle', 'tick']
ab = {'bpfland': 'bp', 'cosmos': 'co', 'lavd': 'la', 'p2dq': 'p2', 'rusty': 'ru'}
def load(path):
    r = json.load(open(path + '/results.json'))
    v = collections.defaultdict(list)
    for x in r['raw']:
        if x['metric'].startswith('bpf:'):
            v[(x['workload'], x['scheduler'], x['metric'][4:])].append(x['value'])
    return r, {k: st.mean(a) for k, a in v.items() if a}
print('| machine | workload | ' + ' | '.join(ops) + ' |')
print('|---|---|' + '---:|' * len(ops))
for m in machines:
    rb, b = load(f'{before}/{m}') if before != '-' else (None, {})
    ra, a = load(f'{after}/{m}')
    for w in [x['workload'] for x in ra['workloads']]:
        cells = []
        for op in ops:
            x, y = b.get((w, 'arbor:default', op)), a.get((w, 'arbor:default', op))
            if x is None and y is None:
                cells.append('-'); continue
            peers = ', '.join(f"{s} {a[(w, p, op)]:.0f}" for p, s in ab.items() if (w, p, op) in a)
            f = lambda z: '–' if z is None else f'{z:.0f}'
            head = f"**{f(y)}**" if before == '-' else f"{f(x)} → **{f(y)}**"
            cells.append(head + (f" ({peers})" if peers else ''))
        print(f'| {m} | {w} | ' + ' | '.join(cells) + ' |')
