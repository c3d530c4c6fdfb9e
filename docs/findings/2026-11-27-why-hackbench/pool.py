#!/usr/bin/env python3
# pool time_s over several results.json (same cells), Welch 95% CI of change vs arbor:default, + = better
import json, sys, collections, math
import statistics
class stats:
    tvar = staticmethod(lambda a: statistics.variance(a))
    class t:
        @staticmethod
        def ppf(q, df):
            # two-sided 95% t quantile, table + interpolation
            tab = [(1,12.706),(2,4.303),(3,3.182),(4,2.776),(5,2.571),(6,2.447),(7,2.365),(8,2.306),(9,2.262),(10,2.228),(12,2.179),(15,2.131),(20,2.086),(30,2.042),(60,2.0),(1e9,1.96)]
            for (d0,t0),(d1,t1) in zip(tab, tab[1:]):
                if df <= d1: return t0 + (t1-t0)*(df-d0)/(d1-d0) if df > d0 else t0
            return 1.96
vals = collections.defaultdict(list); other = collections.defaultdict(list)
for p in sys.argv[1:]:
    for r in json.load(open(p + '/results.json'))['raw']:
        if r['metric'] in ('time_s', 'wakeups', 'busy_pct'): vals[(r['workload'], r['scheduler'], r['metric'])].append(r['value'])
wls = sorted(set(k[0] for k in vals)); scheds = []
for k in vals:
    if k[1] not in scheds: scheds.append(k[1])
for w in wls:
    b = vals[(w, 'arbor:default', 'time_s')]; mb = sum(b)/len(b)
    print(f"-- {w} (n={len(b)} per cell)")
    for s in scheds:
        a = vals[(w, s, 'time_s')]; ma = sum(a)/len(a)
        va, vb = stats.tvar(a)/len(a), stats.tvar(b)/len(b)
        se = math.sqrt(va + vb); df = (va+vb)**2/((va**2/(len(a)-1)) + (vb**2/(len(b)-1))) if se > 0 else 1
        hw = stats.t.ppf(.975, df) * se / mb * 100 if se > 0 else 0
        wk = vals[(w, s, 'wakeups')]; bz = vals[(w, s, 'busy_pct')]
        print(f"   {s:45s} {ma*1e3:7.3f} ms  {(mb-ma)/mb*100:+6.1f}% ±{hw:4.1f}  wakes {sum(wk)/len(wk):6.0f} busy {sum(bz)/len(bz):5.1f}")
