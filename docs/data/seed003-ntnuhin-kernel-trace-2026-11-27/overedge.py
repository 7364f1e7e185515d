"""Data segments sent past the largest MPTCP right edge (DATA_ACK + window)
seen on the wire so far. argv: DATA files -- ACK files. DATA: tshark fields
frame.time_epoch ip.src ip.dst tcp.srcport tcp.len tcp.seq (relative)
tcp.options.mptcp.rawdataseqno tcp.options.mptcp.subflowseqno
tcp.options.mptcp.rawdataack; ACK: the README's field list (absolute seq).
A segment's DSN = mapping DSN + (relative seq - mapping subflow seq)."""
import sys,collections
i=sys.argv.index('--'); dfiles=sys.argv[1:i]; afiles=sys.argv[i+1:]
pk=[]
for f in dfiles:
    for l in open(f):
        r=l.rstrip('\n').split('\t')
        if len(r)>=9: pk.append((float(r[0]),r))
pk.sort(key=lambda x:x[0]); t0=min(p[0] for p in pk)
acks=[]
for f in afiles:
    for l in open(f):
        r=l.rstrip('\n').split('\t')
        if len(r)>=10 and r[1].startswith('10.10') and r[9]:
            acks.append((float(r[0])-t0,int(r[9]),int(r[5])))
acks.sort(); base=acks[0][1]
mx=0; i=0; over=[]; seen=set()
for t,r in pk:
    t-=t0
    while i<len(acks) and acks[i][0]<=t:
        mx=max(mx,acks[i][1]+acks[i][2]); i+=1
    if t<0.5 or r[1].startswith('10.10') or not r[6] or int(r[4])==0: continue
    d=(int(r[6])+int(r[5])-int(r[7]))%2**64
    k=(r[1],r[2],r[5])
    if k in seen: continue
    seen.add(k)
    if d+int(r[4])>mx+1: over.append((t,r[1][3]+'>'+r[2][3:6],(d-base)/1e6,d+int(r[4])-mx))
print('distinct data segments past the largest announced right edge (t > 0.5 s): %d'%len(over))
if over:
    print(' per subflow', dict(collections.Counter(o[1] for o in over)), 'per second', dict(sorted(collections.Counter(int(o[0]) for o in over).items())))
    ex=sorted(o[3] for o in over); print(' bytes past the edge: median %d, max %d'%(ex[len(ex)//2],ex[-1]))
    print(' first: %.3f s on %s, DSN %.3f MB from the first DATA_ACK'%over[0][:3])
