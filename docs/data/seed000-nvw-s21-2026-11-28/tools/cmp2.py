import sys; sys.path.insert(0,'/tmp/nvw21')
from pk import load
def data(rows):
    ports=[r['sp'] for r in rows if r['len']>100]; sp=max(set(ports),key=ports.count)
    return [r for r in rows if r['sp']==sp and r['len']>0]
k=data(load(sys.argv[1])); s=data(load(sys.argv[2])); tol=float(sys.argv[3]) if len(sys.argv)>3 else 0.003
skip=int(sys.argv[4]) if len(sys.argv)>4 else 0
# map (seq,len,occurrence)->time
def keyed(d):
    c={};m={}
    for r in d:
        kk=(r['seq'],r['len']); c[kk]=c.get(kk,0)+1; m[kk+(c[kk],)]=r['t']
    return m
km=keyed(k); sm=keyed(s)
bad=[]
for kk in sorted(set(km)|set(sm), key=lambda x:min(km.get(x,1e9),sm.get(x,1e9))):
    a=km.get(kk); b=sm.get(kk)
    if a is None or b is None or abs(a-b)>tol:
        bad.append((kk,a,b))
for x in bad[skip:skip+25]: print(x)
