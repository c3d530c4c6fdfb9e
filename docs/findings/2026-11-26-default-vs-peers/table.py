#!/usr/bin/env python3
"""Cells of issue 24's report: arbor:default (new) vs arbor:stock (new), arbor:default
before (main, committed peers-all) and the best peer, with 95% Welch intervals, from
raw per-run rows of results.json files."""
import json, math, sys, os
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}
def t(df):
    if df <= 0: return float('nan')
    if df in T975: return T975[df]
    return 1.96 + 2.4/df
def raw(path):
    d = json.load(open(path)); out = {}
    for r in d['raw']:
        out.setdefault((r['scheduler'], r['workload'], r['metric']), []).append(r['value'])
    prim = {w['workload']: w['primary'] for w in d['workloads']}
    return out, prim
def ms(v):
    n=len(v); m=sum(v)/n
    s= math.sqrt(sum((x-m)**2 for x in v)/(n-1)) if n>1 else 0.0
    return m,s,n
def welch(a,b):
    ma,sa,na=ms(a); mb,sb,nb=ms(b)
    va=sa*sa/na; vb=sb*sb/nb
    se=math.sqrt(va+vb)
    if se==0: return mb-ma, 0.0
    df=(va+vb)**2/((va*va/(na-1) if na>1 else 0)+(vb*vb/(nb-1) if nb>1 else 0) or 1e-300)
    return mb-ma, t(max(1,int(df)))*se
LOWER = {'time_s','p99_us','wakeup_p99_us','lat_ms','request_p99_us'}
PEERS = ['bpfland','cosmos','lavd','p2dq','rusty']
def main(machine, new, committed_dir):
    N, prim = {}, {}
    for f in new.split(','):
        if os.path.exists(f):
            a, b = raw(f); N.update(a); prim.update(b)
    srcs = [raw(os.path.join(committed_dir, machine, 'results.json'))[0]]
    for sub in [os.path.join(committed_dir, machine, 'cosmos', 'results.json'),
                os.path.join(committed_dir, 'lavd', machine, 'results.json')]:
        if os.path.exists(sub): srcs.append(raw(sub)[0])
    C = {}
    for s in srcs:
        for k,v in s.items():
            C.setdefault(k, v)
    rows=[]
    for w, m in prim.items():
        low = m in LOWER
        def get(sched, src):
            return src.get((sched, w, m))
        dn = get('arbor:default', N); sn = get('arbor:stock', N)
        db = get('arbor:default', C); sb = get('arbor:stock', C)
        peers = {p: (N.get((p,w,m)) or C.get((p,w,m))) for p in PEERS}
        peers = {p:v for p,v in peers.items() if v}
        best = min(peers, key=lambda p: ms(peers[p])[0]*(1 if low else -1)) if peers else None
        def fmt(v):
            a,s,n=ms(v); h=t(n-1)*s/math.sqrt(n) if n>1 else 0
            return f"{a:.4g} ± {h:.2g}"
        def chg(base, x):
            d,h = welch(base, x); mb=ms(base)[0]
            sign = -1 if low else 1
            pct = sign*100*d/mb; hp = 100*h/abs(mb)
            sig = '' if abs(pct) > hp else ' ~'
            return f"{pct:+.1f}% ±{hp:.1f}{sig}", pct, hp
        vs_stock = chg(sn, dn)
        vs_best = chg(peers[best], dn) if best else ('', 0, 0)
        vs_before = chg(db, dn) if db else ('',0,0)
        verdict = 'best' if (vs_best[1] >= 0) else ('tied' if abs(vs_best[1]) <= vs_best[2] else 'loses')
        worse_than_stock = vs_stock[1] < 0 and abs(vs_stock[1]) > vs_stock[2]
        rows.append((w, m, fmt(sn), fmt(dn), vs_stock[0], fmt(db) if db else '-', vs_before[0], best, fmt(peers[best]) if best else '-', vs_best[0], verdict + (' (worse than stock)' if worse_than_stock else '')))
    print(f"| workload | metric | arbor:stock (this branch) | arbor:default (this branch) | default vs stock | arbor:default (main) | this vs main | best peer | best peer | default vs best peer | verdict |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows: print("| " + " | ".join(str(x) for x in r) + " |")
if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2], sys.argv[3])
