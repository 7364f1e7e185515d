# kernel: reconstruct per-subflow DSN assignment from mptcp_sendmsg_frag (chains by subflow_seq continuity)
import re,sys,collections
f=sys.argv[1]; t0=float(sys.argv[2]); tend=t0+21; STEP=float(sys.argv[3]) if len(sys.argv)>3 else 0.5; NB=int(sys.argv[4]) if len(sys.argv)>4 else 42
frag=re.compile(r'-(\d+)\s+\[\d+\] \S+ (\d+\.\d+): mptcp_sendmsg_frag: data_ack=\d+ data_seq=(\d+) subflow_seq=(\d+) data_len=(\d+) ')
ev=[]
for l in open(f):
    m=frag.search(l)
    if m:
        t=float(m[2])
        if t0-0.1<=t<=tend: ev.append((t,int(m[3]),int(m[4]),int(m[5])))
ev.sort()
base=min(e[1] for e in ev if e[3]==16 and e[2]==1)
chains=[]  # each: dict(next=, frags=[(t,dsn,len)])
last=None
for t,d,s,l in ev:
    if abs(d-base)>(1<<40): continue
    if last and last[1]==d and last[2]==s:   # same frag traced again with its final length
        ch=last[0]; ch['frags'][-1]=(t,d-base,l); ch['next']=s+l; continue
    ch=None
    for c in chains:
        if c['next']==s: ch=c; break
    if ch is None:
        ch={'next':0,'frags':[],'id':len(chains)}; chains.append(ch)
    ch['frags'].append((t,d-base,l)); ch['next']=s+l; last=(ch,d,s)
for c in chains:
    tot=sum(x[2] for x in c['frags'])
    print('chain',c['id'],'frags',len(c['frags']),'bytes',tot,'first',round(c['frags'][0][0]-t0,3))
    # bytes assigned per 0.5 s
    b=collections.Counter()
    for t,d,l in c['frags']: b[int((t-t0)/STEP)]+=l
    print('   per0.5s(KB):',' '.join('%d'%(b[i]//1000) for i in range(0,NB)))
