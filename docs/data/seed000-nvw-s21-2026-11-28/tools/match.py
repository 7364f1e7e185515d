import json,collections,subprocess,bisect,sys
sys.path.insert(0,'/tmp/nvw21')
d=json.load(open('/tmp/nvw21/kout3/summary.json'))
runs={r['run']:(int(r['metrics']['emu.clock_origin_ns']),int(r['metrics']['emu.realtime_origin_ns'])) for r in d['per_run']}
txt=open('/tmp/nvw21/perf3.txt').read().split('\n\n')
ev=[]
for blk in txt:
    lines=blk.strip().split('\n')
    if not lines or 'dev=p2' not in lines[0] or 'len=52' not in lines[0]: continue
    fr=[l.split() for l in lines[1:]]; syms=[f[1] if len(f)>1 else '?' for f in fr]
    if '__tcp_transmit_skb' not in syms: continue
    i=syms.index('__tcp_transmit_skb'); src=syms[i+1]
    t=float(lines[0].split()[2].rstrip(':'))
    ev.append((t,src))
ev.sort()
for run in (0,1):
    co,ro=runs[run]
    out=subprocess.run(['tshark','-r',f'/tmp/nvw21/kcap3/run{run}-c-p2.pcap','-T','fields','-E','separator=|','-e','frame.time_epoch','-e','tcp.srcport','-e','tcp.seq','-e','tcp.ack','-e','tcp.len','-e','tcp.options.sack_le','-o','tcp.relative_sequence_numbers:TRUE'],capture_output=True,text=True).stdout
    rows=[]
    for l in out.splitlines():
        te,sp,seq,ack,ln,sle=l.split('|'); rows.append((float(te)-ro/1e9,int(sp),int(seq),int(ack),int(ln),bool(sle)))
    ports=[r[1] for r in rows if r[4]>100]; sp=max(set(ports),key=ports.count)
    evr=[(t-co/1e9,s) for t,s in ev]
    ets=[e[0] for e in evr]
    last_ack=None; last_t=None; seglen={}; arr={}; c=collections.Counter(); unmatched=0
    for (t,p,seq,ack,ln,sk) in rows:
        if t<5.0: 
            if p!=sp: last_ack=ack; last_t=t
            continue
        if p==sp and ln>0: seglen[seq+ln]=ln; arr[seq+ln]=t
        elif p!=sp:
            j=bisect.bisect_left(ets,t-0.0005); src='?'
            best=None
            for k in range(max(0,j-2),min(len(ets),j+3)):
                if abs(ets[k]-t)<0.0005 and (best is None or abs(ets[k]-t)<abs(ets[best]-t)): best=k
            if best is not None: src=evr[best][1]
            if sk: kind='sack'
            elif last_ack is not None and ack>last_ack:
                n=ack-last_ack; L=seglen.get(ack)
                imm=(t-arr.get(ack,-1))<0.001
                if L is not None and n==L: kind=('full1' if L==1448 else 'small1')+('-imm' if imm else '-del')+('-afterack' if t-last_t<0.002 else '')
                else: kind='multi'+('-imm' if imm else '-del')
            else: kind='other'
            c[(kind,src)]+=1; last_ack=ack; last_t=t
    print('run',run)
    for k,v in sorted(c.items()): print('  ',v,k)
