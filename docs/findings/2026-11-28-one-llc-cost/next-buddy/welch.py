import math
def tpdf(x,v): return math.gamma((v+1)/2)/(math.sqrt(v*math.pi)*math.gamma(v/2))*(1+x*x/v)**(-(v+1)/2)
def tcdf(x,v,n=4000):
    h=x/n; s=tpdf(0,v)+tpdf(x,v)
    for i in range(1,n): s+=(4 if i%2 else 2)*tpdf(i*h,v)
    return 0.5+s*h/3
def tq(p,v):
    lo,hi=0.0,50.0
    for _ in range(60):
        m=(lo+hi)/2
        if tcdf(m,v)<p: lo=m
        else: hi=m
    return (lo+hi)/2
def welch_hw(a,b):
    import statistics as st
    va,vb=st.variance(a)/len(a),st.variance(b)/len(b)
    if va+vb==0: return 0.0
    df=(va+vb)**2/((va**2/(len(a)-1) if va else 0)+(vb**2/(len(b)-1) if vb else 0))
    return tq(0.975,df)*math.sqrt(va+vb)
