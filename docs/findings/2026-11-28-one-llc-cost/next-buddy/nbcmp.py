#!/usr/bin/env python3
"""nbcmp.py NAME...: default against default:NEXT_BUDDY on each workload's primary metric,
Welch's 95% interval (welch.py), from held-out/NAME/results.json."""
import json,sys,collections,statistics as st,math
from welch import welch_hw
prim={'hackbench':('time_s',False),'perf-messaging':('time_s',False),'perf-pipe':('time_s',False),'pgbench':('tps',True),'wakeprobe':('p99_us',False),'schbench':('wakeup_p99_us',False)}
for n in sys.argv[1:]:
    d=collections.defaultdict(list)
    for r in json.load(open(f'held-out/{n}/results.json'))['raw']: d[(r['workload'],r['scheduler'],r['metric'])].append(float(r['value']))
    for w in sorted({k[0] for k in d}):
        met,hib=prim[w.split(':')[0]]
        a=d[(w,'arbor:default',met)]; b=d[(w,'arbor:default:NEXT_BUDDY',met)]
        if not a or not b: continue
        ma,mb=st.mean(a),st.mean(b)
        hw=welch_hw(a,b)
        ch=(mb-ma)/ma*100*(1 if hib else -1); h=hw/ma*100
        verdict='better' if ch-h>0 else ('WORSE' if ch+h<0 else 'tied')
        if hw==0 and ma==mb: verdict='same'
        nbd=st.mean(d.get((w,'arbor:default:NEXT_BUDDY','c:next_buddy'),[0]))
        print(f"{n:24s} {w[:22]:22s} {met:14s} {ma:10.5g} -> {mb:10.5g}  {ch:+6.1f}% ±{h:4.1f}  {verdict}  buddies={nbd:.0f}")
