#!/usr/bin/env python3
# cumulative CPU per sender at fixed times: spread (min/p50/max) = cross-CPU fairness among senders
import json, sys, collections
for f in sys.argv[1:]:
    X = [e for e in json.load(open(f))['traceEvents'] if e['ph']=='X']
    names = sorted(set(e['name'] for e in X if 'snd' in e['name']))
    out = []
    for T in (2000, 4000, 6000, 8000):
        c = collections.defaultdict(float)
        for e in X:
            if 'snd' in e['name']: c[e['name']] += max(0, min(e['ts']+e['dur'], T) - e['ts'])
        v = sorted(c[n] for n in names)
        out.append(f"t={T/1e3:.0f}ms min {v[0]/1e3:.2f} p50 {v[len(v)//2]/1e3:.2f} max {v[-1]/1e3:.2f}")
    print(f.split('/')[-1][:60], ' | '.join(out))
