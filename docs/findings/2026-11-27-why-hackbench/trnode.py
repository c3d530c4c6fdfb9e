#!/usr/bin/env python3
import json, sys, collections
node = lambda c: 0 if (c % 44) < 22 else 1
for f in sys.argv[1:]:
    X = [e for e in json.load(open(f))['traceEvents'] if e['ph']=='X']
    cpus = collections.defaultdict(collections.Counter); fin = {}; tot = collections.Counter()
    for e in X:
        cpus[e['name']][e['tid']] += e['dur']; fin[e['name']] = max(fin.get(e['name'], 0), e['ts']+e['dur']); tot[e['name']] += e['dur']
    # busy intervals per CPU to measure sibling overlap
    segs = collections.defaultdict(list)
    for e in X: segs[e['tid']].append((e['ts'], e['ts']+e['dur']))
    def overlap(c, a, b):
        s = 0
        for x, y in segs.get((c+44) % 88, []):
            s += max(0, min(b, y) - max(a, x))
        return s
    print(f)
    for g in ('g0', 'g1'):
        rn = collections.Counter(node(cpus[n].most_common(1)[0][0]) for n in cpus if g in n and 'rcv' in n)
        sn = collections.Counter(node(cpus[n].most_common(1)[0][0]) for n in cpus if g in n and 'snd' in n)
        print(f"  group {g}: senders per node {dict(sn)}, receivers per node {dict(rn)}")
    rows = []
    for n in cpus:
        if 'snd' not in n: continue
        sib = sum(overlap(e['tid'], e['ts'], e['ts']+e['dur']) for e in X if e['name'] == n)
        rows.append((fin[n], n, tot[n], sib / tot[n], node(cpus[n].most_common(1)[0][0])))
    rows.sort()
    for r in rows[:3] + rows[-5:]:
        print(f"   {r[1]:20s} finish {r[0]/1e3:5.2f} ms  cpu {r[2]/1e3:5.2f} ms  sibling busy {r[3]*100:5.1f}%  node {r[4]}")
    import statistics as st
    a = [r[3] for r in rows]; print(f"   senders: sibling-busy mean {st.mean(a)*100:.1f}%; corr(finish, sibling busy) {st.correlation([r[0] for r in rows], a):.2f}")
