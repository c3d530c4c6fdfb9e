import json,collections,sys,math,statistics as st
PRIMARY={'hackbench':'time_s','perf-messaging':'time_s','perf-pipe':'time_s','pgbench':'tps','wakeprobe':'p99_us','schbench':'wakeup_p99_us'}
HIGHER={'tps'}
def load(p,sched):
    r=json.load(open(p)); v=collections.defaultdict(list)
    for x in r['raw']:
        if x['scheduler']==sched: v[(x['workload'],x['metric'])].append(x['value'])
    return v
def tcrit(df):
    # two-sided 95% t quantiles
    t={1:12.706,2:4.303,3:3.182,4:2.776,5:2.571,6:2.447,7:2.365,8:2.306,9:2.262,10:2.228}
    return t.get(max(1,min(10,int(df))),2.0)
old,new=sys.argv[1],sys.argv[2]
# optional third argument: the scheduler compared (arbor:default unless given)
S=sys.argv[3] if len(sys.argv)>3 else 'arbor:default'; a=load(old,S); b=load(new,S)
worse=better=0
for (w,m),va in sorted(a.items()):
    k=w.split(':')[0]
    if PRIMARY.get(k)!=m: continue
    vb=b[(w,m)]
    ma,mb=st.mean(va),st.mean(vb); sa,sb=st.variance(va)/len(va),st.variance(vb)/len(vb)
    se=math.sqrt(sa+sb); df=(sa+sb)**2/((sa**2/(len(va)-1) if sa else 0)+(sb**2/(len(vb)-1) if sb else 0)) if se>0 else 1
    half=tcrit(df)*se
    d=mb-ma; good=(d>0) if m in HIGHER else (d<0)
    sig=abs(d)>half
    pct=100*d/ma if ma else 0
    tag='better' if sig and good else ('WORSE' if sig else 'tied')
    worse+=tag=='WORSE'; better+=tag=='better'
    print(f"{w:40s} {m:14s} {ma:10.4g} -> {mb:10.4g} ({pct:+.1f}% ±{100*half/ma if ma else 0:.1f}) {tag}")
print('better',better,'worse',worse)
