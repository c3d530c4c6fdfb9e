#!/usr/bin/env python3
import json, sys, collections
for f in sys.argv[1:]:
    X = [e for e in json.load(open(f))['traceEvents'] if e['ph']=='X']
    fin = collections.defaultdict(float); cpu = collections.defaultdict(float); nseg = collections.Counter()
    for e in X:
        fin[e['name']] = max(fin[e['name']], e['ts']+e['dur']); cpu[e['name']] += e['dur']; nseg[e['name']] += 1
    s = sorted(v for k, v in fin.items() if 'snd' in k); r = sorted(v for k, v in fin.items() if 'rcv' in k)
    q = lambda a, p: a[min(len(a)-1, int(len(a)*p))]/1e3
    print(f"{f}: sender finish ms: min {q(s,0):.2f} p25 {q(s,.25):.2f} p50 {q(s,.5):.2f} p75 {q(s,.75):.2f} max {q(s,1):.2f} | receiver finish: p50 {q(r,.5):.2f} max {q(r,1):.2f}")
    # receiver segments and CPU after the last-but-k sender finished
    for k in (0.5, 0.9):
        t0 = q(s, k)*1e3
        rs = [e for e in X if 'rcv' in e['name'] and e['ts'] >= t0]
        print(f"   after {int(k*100)}% of senders done ({t0/1e3:.2f} ms): receiver segments {len(rs)}, rcv CPU {sum(e['dur'] for e in rs)/1e3:.1f} ms")
