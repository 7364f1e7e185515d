import re,sys
f=sys.argv[1]; want=[int(x) for x in sys.argv[2].split(',')]; step=int(sys.argv[3]) if len(sys.argv)>3 else 500
run=-1; prevt=1e18; prev=None; prevsent={}
srv={}
for l in open(f):
    if l.startswith('NS'):
        m=re.match(r'NS t=(\d+) rcv_nxt=(\d+) ofo=(\d+) wnd=(\d+)',l); srv[int(m[1])//250*250]=(int(m[2]),int(m[3]),int(m[4])); continue
    if not l.startswith('NC'): continue
    m=re.match(r'NC t=(\d+) una=(\d+) nxt=(\d+) wseq=(\d+) wnd_end=(\d+) \| (.*)',l)
    t=int(m[1])
    if t<prevt: run+=1; prev=None; prevsent={}; print('RUN',run) if run in want else None
    prevt=t
    if run not in want or t%step>=250: continue
    una,nxt,wend=int(m[2]),int(m[3]),int(m[5])
    sfs=[]
    for s in m[6].split(' | '):
        d=dict(kv.split('=') for kv in s.split(' ')[1:]); sid=s.split(' ')[0]
        sent=int(d['sent']); rate=(sent-prevsent.get(sid,0))*8/step/1e3; prevsent[sid]=sent
        sfs.append('%s %5.2f %4s %4s %3s'%(sid,rate,d['cw'],d['srtt'],d['rto']))
    r=(una-prev)*8/step/1e3 if prev is not None else 0; prev=una
    sv=srv.get(t//250*250,(0,0,0))
    print('%6d %6.2f %6.2f %6.2f ofo=%5.2f | '%(t,r,(wend-una)/1e6,(nxt-una)/1e6,sv[1]/1e6)+' | '.join(sfs))
