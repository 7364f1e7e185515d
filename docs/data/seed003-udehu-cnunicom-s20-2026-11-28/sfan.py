# per client subflow: first data, bytes by 1 s, sender-side retransmissions; from the client capture
import sys, subprocess
f = sys.argv[1]
out = subprocess.run(['tshark','-r',f,'-Y','ip.src==10.2.0.2 && tcp.len>0','-T','fields','-e','frame.time_relative','-e','tcp.srcport','-e','tcp.len','-e','tcp.analysis.retransmission'],capture_output=True,text=True).stdout
ports = {}
for l in out.splitlines():
    t,p,n,r = l.split('\t'); ports.setdefault(p,[]).append((float(t),int(n),r!=''))
res=[]
for p, rs in ports.items():
    b = [0]*21
    for t,n,r in rs:
        if int(t) < 21: b[int(t)] += n
    res.append('first %.2f rtx %d KB/s %s' % (rs[0][0], sum(r for *_,r in rs), ' '.join(str(x//1000) for x in b)))
print('\n   '.join(res))
