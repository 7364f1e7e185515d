import sys
R=int(sys.argv[1]); n=0; prev={}
for l in open(sys.argv[2] if len(sys.argv)>2 else 'simtrace.txt'):
    if not l.startswith('NC'): continue
    t=int(l.split()[1][2:])
    if t<30 and (not prev or True) and l.split()[1] in ('t=10','t=11','t=12','t=13','t=14','t=15','t=16','t=17','t=18','t=19','t=20') : pass
    if t<100 and 'sf1' not in l and (n==0 or last_t>t): n+=1
    last_t=t
    if n!=R+1 or t>1600: continue
    parts=l.strip().split(' | ')
    head=parts[0].split()
    una=int(head[2][4:]); wend=int(head[5][8:])
    out=[]
    for s in parts[1:]:
        d=dict(kv.split('=') for kv in s.split()[1:]); sid=s.split()[0]
        a=int(d['sent'])+int(d['unsent']); inc=(a-prev.get(sid,0))//1000; prev[sid]=a
        out.append('%s +%5d p%5s w%5s cw%3s rtt%3s'%(sid,inc,d['pace'],d['wmem'],d['cw'],d['srtt']))
    print('%5d wnd%6.2f '%(t,(wend-una)/1e6)+' | '.join(out))
