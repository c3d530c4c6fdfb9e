#!/usr/bin/env python3
import json, sys, collections, statistics as st
for f in sys.argv[1:]:
    d = json.load(open(f))['traceEvents']
    kinds = collections.Counter((e['ph'], e.get('cat',''), e['name'] if e['ph']!='X' else 'X') for e in d)
    X = [e for e in d if e['ph']=='X']
    end = max(e['ts']+e['dur'] for e in X)
    by = collections.defaultdict(list)
    for e in X: by['snd' if 'snd' in e['name'] else 'rcv' if 'rcv' in e['name'] else e['name']].append(e['dur'])
    print(f"== {f}: end {end:.0f} us; other events: {[k for k in kinds if k[2]!='X'][:8]}")
    for r, v in by.items():
        v.sort()
        print(f"  {r}: segments {len(v)}, total {sum(v)/1e3:.1f} ms, mean {st.mean(v):.1f} us, p50 {v[len(v)//2]:.1f}, p90 {v[int(len(v)*.9)]:.1f}, max {v[-1]:.0f}")
    # per-CPU gaps (idle between segments)
    cpu = collections.defaultdict(list)
    for e in X: cpu[e['tid']].append((e['ts'], e['ts']+e['dur']))
    gaps = []
    for c, segs in cpu.items():
        segs.sort()
        for a, b in zip(segs, segs[1:]):
            gaps.append(b[0]-a[1])
    gaps.sort()
    big = [g for g in gaps if g > 5]
    print(f"  gaps between segments on a CPU: n {len(gaps)}, sum {sum(gaps)/1e3:.2f} ms, p50 {gaps[len(gaps)//2]:.2f} us, >5us: n {len(big)} sum {sum(big)/1e3:.2f} ms")
