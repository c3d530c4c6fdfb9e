#!/usr/bin/env python3
"""For each cell: arbor:default (this branch) beside the best peer on the system measures
that say why (means over the runs)."""
import json, sys, os
sys.path.insert(0, os.path.dirname(__file__))
from table import raw, ms, LOWER, PEERS
SYS = ['busy_pct', 'idle_while_queued_pct', 'rq_wait_us_per_wakeup', 'wake_p50_us', 'wake_p99_us',
       'mig_xnode_per_kwake', 'mig_xllc_per_kwake', 'mig_llc_per_kwake', 'wakeups']
CNT = ['c:nofound_idle', 'c:wake_node_kept', 'c:sis_node_found', 'c:affine_moves', 'c:newidle_pulls', 'c:wake_preempts']
def main(machine, new, committed):
    N, prim = {}, {}
    for f in new.split(','):
        if os.path.exists(f):
            a, b = raw(f); N.update(a); prim.update(b)
    C = {}
    for p in [os.path.join(committed, machine, 'results.json'), os.path.join(committed, machine, 'cosmos', 'results.json'), os.path.join(committed, 'lavd', machine, 'results.json')]:
        if os.path.exists(p):
            for k, v in raw(p)[0].items(): C.setdefault(k, v)
    for w, m in prim.items():
        low = m in LOWER
        peers = {p: C.get((p, w, m)) for p in PEERS if C.get((p, w, m))}
        best = min(peers, key=lambda p: ms(peers[p])[0] * (1 if low else -1))
        print(f"\n{machine} {w} (best peer {best})")
        print('| measure | arbor:stock | arbor:default | ' + best + ' |\n|---|---|---|---|')
        for s in SYS + CNT:
            def g(sch, src):
                v = src.get((sch, w, s))
                return f"{ms(v)[0]:.4g}" if v else '-'
            print(f"| {s} | {g('arbor:stock', N)} | {g('arbor:default', N)} | {g(best, C)} |")
main(sys.argv[1], sys.argv[2], sys.argv[3])
