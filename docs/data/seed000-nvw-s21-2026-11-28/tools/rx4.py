import sys; sys.path.insert(0,'/tmp/nvw21')
from pk import load
import collections
for p in sys.argv[1:]:
    rows=load(p)
    ports=[r['sp'] for r in rows if r['len']>100]; sp=max(set(ports),key=ports.count)
    last_ack=None; last_ack_t=None; seglen={}; arr={}; c=collections.Counter(); first=[]
    for r in rows:
        if r['t']<5.0: continue
        if r['sp']==sp and r['len']>0:
            arr[r['seq']+r['len']]=r['t']; seglen[r['seq']+r['len']]=r['len']
        elif r['dp']==sp:
            if r['sack']: last_ack=r['ack']; last_ack_t=r['t']; continue
            if last_ack is not None and r['ack']>last_ack and r['ack']-last_ack==seglen.get(r['ack']):
                L=seglen[r['ack']]; d=(r['t']-arr[r['ack']])*1000; gap=(r['t']-last_ack_t)*1000
                k=('full' if L==1448 else 'small')+('-imm' if d<1 else '-delayed')+('-after-ack<2ms' if gap<2 else '')
                c[k]+=1
                if k=='full-imm-after-ack<2ms' and len(first)<6: first.append(round(r['t'],4))
            last_ack=r['ack']; last_ack_t=r['t']
    print(p[-28:], dict(sorted(c.items())), first)
