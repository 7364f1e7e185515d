# Receiver-side view of a capture (client side): per TCP connection, full-sized data segments with and
# without PSH, and the client's pure ACKs by class: bytes newly acked (1 seg / 2+ segs), delay since the
# ACKed segment arrived (imm < 1 ms / del), and the ACKed segment's PSH flag.
import sys, subprocess, collections
def load(path):
    f=['frame.time_relative','tcp.srcport','tcp.dstport','tcp.seq','tcp.ack','tcp.len','tcp.flags.syn','tcp.flags.push','tcp.flags.fin']
    cmd=['tshark','-r',path,'-T','fields','-E','separator=|','-o','tcp.relative_sequence_numbers:TRUE']
    for x in f: cmd+=['-e',x]
    out=subprocess.run(cmd,capture_output=True,text=True).stdout
    rows=[]
    for l in out.splitlines():
        p=l.split('|')
        if len(p)<9 or not p[3]: continue
        t,sp,dp,seq,ack,ln,syn,psh,fin=p
        rows.append(dict(t=float(t),sp=int(sp),dp=int(dp),seq=int(seq),ack=int(ack),len=int(ln),syn=syn in('1','True'),psh=psh in('1','True')))
    return rows
def analyse(path, srv_ports=None):
    rows=load(path)
    # server port: the port sending most payload bytes
    b=collections.Counter()
    for r in rows: b[r['sp']]+=r['len']
    sp=b.most_common(1)[0][0]
    mss=max(r['len'] for r in rows if r['sp']==sp)
    segs=collections.Counter(); acks=collections.Counter()
    state={}
    for r in rows:
        if r['syn']: continue
        if r['sp']==sp and r['len']>0:
            c=state.setdefault(r['dp'],{'seg':{},'last':None})
            c['seg'][r['seq']+r['len']]=(r['t'],r['len'],r['psh'])
            segs[('full' if r['len']==mss else 'short')+('-psh' if r['psh'] else '')]+=1
        elif r['dp']==sp and r['len']==0:
            c=state.setdefault(r['sp'],{'seg':{},'last':None})
            s=c['seg'].get(r['ack']); last=c['last']
            if last is not None and s and r['ack']>last:
                n=r['ack']-last
                k=('1seg' if n<=s[1] else '2+seg')+('-imm' if (r['t']-s[0])*1000<1 else '-del')+('-fullpsh' if s[2] and s[1]==mss else ('-shortpsh' if s[2] else ''))
                acks[k]+=1
            if last is None or r['ack']>last: c['last']=r['ack']
    return mss, segs, acks
for p in sys.argv[1:]:
    mss,segs,acks=analyse(p)
    print(p.split('/s23cap/')[-1], 'mss',mss, dict(sorted(segs.items())))
    print('   acks', dict(sorted(acks.items())))
