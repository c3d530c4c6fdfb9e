#!/usr/bin/env python3
"""slices.py TRACE.json...: from `arbor sim --trace` files, each run slice's
length by what ran before it on the same CPU (pgbench: pgbench client
threads and postgres backends), as (previous, this, same task?) count mean_us."""
import json,sys,collections
for f in sys.argv[1:]:
    ev=[e for e in json.load(open(f))['traceEvents'] if e.get('ph')=='X']
    bycpu=collections.defaultdict(list)
    for e in ev: bycpu[e['tid']].append(e)
    st=collections.defaultdict(list)
    for c,l in bycpu.items():
        l.sort(key=lambda e:e['ts'])
        for a,b in zip(l,l[1:]):
            ka=a['name'].split('-')[0]; kb=b['name'].split('-')[0]
            same = 'same' if a['name']==b['name'] else 'diff'
            st[(ka,kb,same)].append(b['dur'])
    print(f)
    for k,v in sorted(st.items()): print('  ',k,len(v),round(sum(v)/len(v),3))
