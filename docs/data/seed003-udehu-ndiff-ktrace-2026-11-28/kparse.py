import re,sys,collections
f=sys.argv[1]; step=float(sys.argv[2]) if len(sys.argv)>2 else 0.5
probe=re.compile(r' (\d+\.\d+): tcp_probe: .*src=10\.2\.0\.2:(\d+) dest=10\.10[12]\.0\.2:8080 .*snd_nxt=(0x[0-9a-f]+) snd_una=(0x[0-9a-f]+) snd_cwnd=(\d+) ssthresh=(\d+) snd_wnd=(\d+) srtt=(\d+)')
cs=re.compile(r' (\d+\.\d+): tcp_cong_state_set: .*sport=(\d+) dport=8080 saddr=10\.2\.0\.2 .*cong_state=(\d)')
rt=re.compile(r' (\d+\.\d+): tcp_retransmit_skb: .*sport=(\d+) dport=8080 saddr=10\.2\.0\.2')
ev=[]
for l in open(f):
    m=probe.search(l)
    if m: ev.append(('p',float(m[1]),int(m[2]),int(m[3],16),int(m[4],16),int(m[5]),int(m[6]),int(m[7]),int(m[8]))); continue
    m=cs.search(l)
    if m: ev.append(('c',float(m[1]),int(m[2]),int(m[3]))); continue
    m=rt.search(l)
    if m: ev.append(('r',float(m[1]),int(m[2])))
ev.sort(key=lambda e:e[1])
# group into connections: ports; first seen time per port
first={}
for e in ev:
    first.setdefault(e[2],e[1])
ports=sorted(first,key=first.get)
print('ports',[(p,round(first[p],3)) for p in ports])
# runs: group ports whose first time within 5 s of each other
runs=[];
for p in ports:
    if runs and first[p]-first[runs[-1][0]]<5: runs[-1].append(p)
    else: runs.append([p])
for r in runs:
    t0=first[r[0]]
    print('RUN ports',r,'t0',t0)
    last={}; nextt=0; rts=collections.Counter(); states=[]
    for e in ev:
        if e[2] not in r: continue
        t=e[1]-t0
        if e[0]=='p': last[e[2]]=e
        elif e[0]=='r': rts[e[2]]+=1
        elif e[0]=='c': states.append((round(t,3),r.index(e[2]),e[3]))
        if t>=nextt:
            s=[]
            for i,p in enumerate(r):
                if p in last:
                    _,_,_,nxt,una,cw,ss,wnd,srtt=last[p]
                    s.append('sf%d cwnd=%d ss=%d infl=%d srtt=%d rtx=%d'%(i,cw,min(ss,99999),(nxt-una)&0xffffffff,srtt//1000,rts[p]))
            print('t=%.1f '%t+' | '.join(s)); nextt+=step
    print('cong states (t, sf, state 0open1disorder2cwr3recovery4loss):',states[:80])
