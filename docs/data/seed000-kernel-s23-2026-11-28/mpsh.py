# Sender-side capture: per subflow (client port), data segments by size and PSH, among segments
# from the port that sends most payload.
import sys, subprocess, collections
for path in sys.argv[1:]:
    f=['tcp.srcport','tcp.dstport','tcp.len','tcp.flags.push','tcp.flags.syn']
    cmd=['tshark','-r',path,'-T','fields','-E','separator=|']
    for x in f: cmd+=['-e',x]
    rows=[l.split('|') for l in subprocess.run(cmd,capture_output=True,text=True).stdout.splitlines()]
    rows=[(int(a),int(b),int(c or 0),d in('1','True'),e in('1','True')) for a,b,c,d,e in rows if a]
    by=collections.Counter()
    for sp,dp,ln,psh,syn in rows: by[sp]+=ln
    sp=by.most_common(1)[0][0]
    mss=max(ln for s,d,ln,p,y in rows if s==sp)
    c=collections.defaultdict(collections.Counter)
    for s,d,ln,p,y in rows:
        if s==sp and ln>0:
            c[d][('full' if ln==mss else 'short')+('-psh' if p else '')]+=1
    print(path, 'mss', mss)
    for d in sorted(c): print('   subflow port', d, dict(sorted(c[d].items())))
