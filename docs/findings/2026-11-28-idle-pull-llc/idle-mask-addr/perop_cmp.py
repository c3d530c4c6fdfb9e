#!/usr/bin/env python3
"""perop_cmp.py NEWDIR OLDDIR M...: arbor:default's per-call BPF cost (select_cpu, enqueue, running, or PEROP_OPS) before/after,
against the cheapest peer (peers from OLDDIR), and how many cells are at or below it."""
import json,collections,os,statistics as st,sys
new_base,old_base=sys.argv[1],sys.argv[2]
# PEROP_OPS=select_cpu,enqueue,running,stopping adds ops (../../2026-11-28-one-llc-cost)
ops=os.environ.get('PEROP_OPS','select_cpu,enqueue,running').split(',')
peers=['bpfland','cosmos','lavd','p2dq','rusty']
cnt={o:[0,0,0] for o in ops}  # before ok, after ok, cells
def load(path):
    r=json.load(open(path)); v=collections.defaultdict(list)
    for x in r['raw']: v[(x['workload'],x['scheduler'],x['metric'])].append(x['value'])
    return r,v
print('| machine | workload | ' + ' | '.join(ops) + ' |'); print('|---|---|'+'---:|'*len(ops))
for m in sys.argv[3:]:
    ro,vo=load(f'{old_base}/{m}/results.json'); rn,vn=load(f'{new_base}/{m}/results.json')
    for w in [x['workload'] for x in rn['workloads']]:
        cells=[]
        for o in ops:
            k='bpf:'+o
            a=vo.get((w,'arbor:default',k)); b=vn.get((w,'arbor:default',k))
            pv=[st.mean(vo[(w,p,k)]) for p in peers if vo.get((w,p,k))]
            if not a or not b or not pv: cells.append('-'); continue
            lo=min(pv); a,b=st.mean(a),st.mean(b)
            cnt[o][2]+=1; cnt[o][0]+= a<=lo+0.5; cnt[o][1]+= b<=lo+0.5
            cells.append(f"{a:.0f} → **{b:.0f}** (cheapest peer {lo:.0f})")
        print(f'| {m} | {w} | '+' | '.join(cells)+' |')
print()
for o in ops: print(f'{o}: at or below the cheapest peer in {cnt[o][0]} of {cnt[o][2]} cells before, {cnt[o][1]} after')
