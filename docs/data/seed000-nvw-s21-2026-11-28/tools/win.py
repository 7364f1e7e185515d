import sys; sys.path.insert(0,'/tmp/nvw21')
from pk import load
rows=load(sys.argv[1]); t0=float(sys.argv[2]); t1=float(sys.argv[3])
ports=[r['sp'] for r in rows if r['len']>100]; sp=max(set(ports),key=ports.count)
for r in rows:
    if t0<=r['t']<=t1:
        if r['sp']==sp: print('%.4f  D seq=%d len=%d'%(r['t'],r['seq'],r['len']))
        else: print('%.4f      A ack=%d sack=%s'%(r['t'],r['ack'],r['sack']))
