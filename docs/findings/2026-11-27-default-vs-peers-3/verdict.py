# arbor:default against the best peer and arbor:stock, per workload's
# primary metric (the report's headline), Welch's 95% interval.
import json, sys, math, statistics as st
T = {1:12.71,2:4.30,3:3.18,4:2.78,5:2.57,6:2.45,7:2.36,8:2.31,9:2.26,10:2.23,12:2.18,15:2.13,20:2.09,30:2.04}
def tq(df):
    k = min(T, key=lambda x: abs(x-df)); return T[k] if df < 30 else 1.96
PRIMARY = {'hackbench':'time_s','perf-messaging':'time_s','perf-pipe':'time_s','pgbench':'tps','wakeprobe':'p99_us','schbench':'wakeup_p99_us'}
PEERS = ['bpfland','cosmos','lavd','p2dq','rusty']
def welch(a, b):  # difference mean(a)-mean(b), half-width
    va, vb = st.variance(a)/len(a), st.variance(b)/len(b)
    se = math.sqrt(va+vb)
    if se == 0: return st.mean(a)-st.mean(b), 0.0
    df = (va+vb)**2/((va**2)/(len(a)-1)+(vb**2)/(len(b)-1)) if va+vb>0 else 1e9
    return st.mean(a)-st.mean(b), tq(df)*se
for m in sys.argv[1:]:
    d = json.load(open(f'{m}/results.json'))
    hib = {k: v['higher_is_better'] for k, v in d['metrics'].items()}
    raw = {}
    for r in d['raw']:
        raw.setdefault((r['scheduler'], r['workload'], r['metric']), []).append(r['value'])
    print(f'\n{m}\n| workload | metric | default | best peer | default vs best peer | default vs stock | verdict |\n|---|---|---|---|---|---|---|')
    for wd in d['workloads']:
        w = wd['workload']; met = wd['primary']; hi = hib[met]
        dv = raw[('arbor:default', w, met)]; sv = raw[('arbor:stock', w, met)]
        ej = {p: sum(raw.get((p, w, 'ejected'), [0])) for p in PEERS}
        best = max(PEERS, key=lambda p: st.mean(raw[(p,w,met)]) * (1 if hi else -1))
        bv = raw[(best, w, met)]
        sgn = 1 if hi else -1
        diff, hw = welch(dv, bv); pct = sgn*diff/abs(st.mean(bv))*100; hp = hw/abs(st.mean(bv))*100
        diff2, hw2 = welch(dv, sv); pct2 = sgn*diff2/abs(st.mean(sv))*100; hp2 = hw2/abs(st.mean(sv))*100
        ok_peer = pct >= 0 or pct + hp >= 0
        ok_stock = pct2 >= 0 or pct2 + hp2 >= 0
        v = ('best' if pct >= 0 else 'tied (interval holds 0)' if ok_peer else 'LOSES') + ('' if ok_stock else '; worse than stock')
        print(f'| {w} | {met} | {st.mean(dv):.4g} | {best} {st.mean(bv):.4g} | {pct:+.1f}% ±{hp:.1f} | {pct2:+.1f}% ±{hp2:.1f} | {v} |')
