"""DATA_ACK stalls over 250 ms (time from, to, length, DSN above the first
DATA_ACK in MB, the first sends of that DSN), and DATA_ACK progress per
second (Mbit/s). argv: capture tsv files in the README's field list."""
import sys,collections
files=sys.argv[1:]
pk=[]
for f in files:
    for l in open(f):
        r=l.rstrip('\n').split('\t')
        if len(r)<11: continue
        pk.append((float(r[0]),r))
pk.sort(key=lambda x:x[0])
t0=pk[0][0]
sub={}  # dsn -> list of (t, subflow)
acks=[]  # (t, dataack, wnd)
SERV=('10.101.0.2','10.102.0.2','10.103.0.2')
for t,r in pk:
    t-=t0
    if r[1] in SERV and r[9]:
        acks.append((t,int(r[9]),int(r[5])))
    elif r[1] not in SERV and r[8] and int(r[4])>0:
        sub.setdefault(int(r[8]),[]).append((round(t,4),r[1]+'>'+r[2]))
# cumulative max data ack
best=0; last_t=0; series=[]
for t,a,w in acks:
    if a>best:
        if best and t-last_t>0.25:
            series.append((last_t,t,best))
        best=a; last_t=t
base=acks[0][1]
print('stalls >250ms of the DATA_ACK (t_from, t_to, dur, dsn-base MB, who carried that dsn)')
tot=0
for a,b,d in series:
    tot+=b-a
    print('%.3f %.3f %.3f %.2f'%(a,b,b-a,(d-base)/1e6), sub.get(d,'?')[:4])
print('total stalled s %.2f'%tot)
# per-second data ack progress
prog=collections.defaultdict(int); prev=base
for t,a,w in acks:
    if a>prev: prog[int(t)]+=a-prev; prev=a
print(' '.join('%d:%.1f'%(s,prog[s]*8/1e6) for s in range(0,32)))
