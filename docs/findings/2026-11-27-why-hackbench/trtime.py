#!/usr/bin/env python3
import json, sys, collections
f = sys.argv[1]; binus = float(sys.argv[2]) if len(sys.argv) > 2 else 500
X = [e for e in json.load(open(f))['traceEvents'] if e['ph']=='X']
end = max(e['ts']+e['dur'] for e in X)
nb = int(end//binus)+1
snd=[0.0]*nb; rcv=[0.0]*nb; segs_r=[0]*nb; segs_s=[0]*nb
for e in X:
    a, b = e['ts'], e['ts']+e['dur']
    arr = snd if 'snd' in e['name'] else rcv
    (segs_s if 'snd' in e['name'] else segs_r)[int(a//binus)] += 1
    i = int(a//binus)
    while a < b:
        nxt = min(b, (i+1)*binus)
        arr[i] += nxt - a; a = nxt; i += 1
print(f"{f}: bins of {binus} us: CPUs busy with senders / receivers (avg), receiver segments started, sender segs")
for i in range(nb):
    print(f"{i*binus/1000:6.1f}ms snd {snd[i]/binus:5.2f} rcv {rcv[i]/binus:5.2f} idle {12-(snd[i]+rcv[i])/binus:5.2f}  rsegs {segs_r[i]:4d} ssegs {segs_s[i]:3d}")
