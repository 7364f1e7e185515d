# per-run, per-0.5 s summary of a ktrace16 trace of NTNU->HiN fullmesh (client = sender)
import re,sys,collections
f=sys.argv[1]; step=float(sys.argv[2]) if len(sys.argv)>2 else 0.5
probe=re.compile(r' (\d+\.\d+): tcp_probe: family=AF_INET src=(10\.[12]\.0\.2):(\d+) dest=(10\.10[123]\.0\.2):8080 .*snd_nxt=(0x[0-9a-f]+) snd_una=(0x[0-9a-f]+) snd_cwnd=(\d+) ssthresh=(\d+) snd_wnd=(\d+) srtt=(\d+)')
ack=re.compile(r' (\d+\.\d+): ack_update_msk: data_ack=(\d+) old_snd_una=(\d+) new_snd_una=(\d+) new_wnd_end=(\d+) msk_wnd_end=(\d+)')
cs=re.compile(r' (\d+\.\d+): tcp_cong_state_set: .*sport=(\d+) dport=8080 saddr=10\.[12]\.0\.2 .*cong_state=(\d)')
rt=re.compile(r' (\d+\.\d+): tcp_retransmit_skb: .*sport=(\d+) dport=8080 saddr=10\.[12]\.0\.2 daddr=(\S+) .*state=(\S+)')
ev=[]; name={}; frag=re.compile(r' (\d+\.\d+): mptcp_sendmsg_frag: data_ack=\d+ data_seq=(\d+) subflow_seq=(\d+) data_len=(\d+) '); fr=[]
for l in open(f):
    m=probe.search(l)
    if m:
        p=int(m[3]); name[p]=m[2][-5:-4]+'>'+m[4][-5:-4]
        ev.append(('p',float(m[1]),p,int(m[5],16),int(m[6],16),int(m[7]),int(m[8]),int(m[9]),int(m[10]))); continue
    m=frag.search(l)
    if m:
        if m[3]=='1' and m[4]=='16': fr.append((float(m[1]),int(m[2])))
        ev.append(('f',float(m[1]),0,int(m[2])+int(m[4])))
        continue
    m=ack.search(l)
    if m: ev.append(('a',float(m[1]),0,int(m[4]),int(m[5]),int(m[6]))); continue
    m=cs.search(l)
    if m: ev.append(('c',float(m[1]),int(m[2]),int(m[3]))); continue
    m=rt.search(l)
    if m: ev.append(('r',float(m[1]),int(m[2])))
ev.sort(key=lambda e:e[1])
first={}
for e in ev:
    if e[0]=='p': first.setdefault(e[2],e[1])
ports=sorted(first,key=first.get)
runs=[]
for p in ports:
    if runs and first[p]-first[runs[-1][0]]<5: runs[-1].append(p)
    else: runs.append([p])
snd0={}
for ri,r in enumerate(runs):
    snd0[ri]=min(fr,key=lambda x:abs(x[0]-first[r[0]]))[1]
    t0=first[r[0]]; t1=t0+21
    print('RUN',ri,'subflows',[name[p] for p in r],'t0',t0)
    una={}; una0={}; last={}; nextt=step; rts=collections.Counter(); states=collections.defaultdict(list)
    msk=None; msk0=None; nxt=0; mskprev=None; wnd=None; stallstart=None; stalls=[]
    print('    t  mskMb  wnd_end-una(MB) nxt-una(MB) | per sf: sentMb(una adv) cwnd srtt(ms) rtx')
    for e in ev:
        if e[1]<t0-0.5 or e[1]>t1: continue
        t=e[1]-t0
        if e[0]=='a':
            if msk is not None and abs(e[3]-msk)>(1<<40): continue
            if msk is None and abs(e[3]-snd0.get(ri,e[3]))>(1<<40): continue
            if msk is None or e[3]>msk:
                if msk is not None and e[3]-msk>0 and stallstart is not None and t-stallstart>0.2: stalls.append((round(stallstart,2),round(t-stallstart,2)))
                if msk is None or e[3]>msk: stallstart=t
                msk=e[3]
            wnd=e[5]-msk if msk else None
            if msk0 is None: msk0=msk
        elif e[0]=='f':
            if abs(e[3]-snd0[ri])<(1<<40): nxt=max(nxt,e[3])
        elif e[2] in r:
            if e[0]=='p':
                last[e[2]]=e; una.setdefault(e[2],e[4])
            elif e[0]=='r': rts[e[2]]+=1
            elif e[0]=='c': states[e[2]].append((round(t,2),e[3]))
        while t>=nextt:
            s=[]
            for p in r:
                if p in last:
                    _,_,_,snx,u,cw,ss,sw,srtt=last[p]
                    adv=((u-una[p])&0xffffffff)*8/step/1e6; una[p]=u
                    s.append('%s %5.2f %4d %4d %3d'%(name[p],adv,cw,srtt//1000,rts[p]))
            mb=((msk-mskprev)*8/step/1e6) if mskprev is not None and msk is not None else 0
            mskprev=msk
            print('%5.1f %6.2f %6.2f %6.2f | '%(nextt,mb,(wnd or 0)/1e6,((nxt-msk) if msk else 0)/1e6)+' | '.join(s)); nextt+=step
    print('msk stalls >0.2s (start, dur):',stalls)
    for p in r: print(' cong states',name[p],states[p][:40])
