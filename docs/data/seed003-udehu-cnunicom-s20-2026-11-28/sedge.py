# sim: the server's sf0 announced right edge (ack + scaled window) on its ACKs, and the join time
# (server receives the MP_JOIN third ACK = first client->server pure ACK on the 2nd subflow after its SYN)
import sys, subprocess
f = sys.argv[1]
out = subprocess.run(['tshark','-r',f,'-Y','tcp','-T','fields','-e','frame.time_relative','-e','ip.src','-e','tcp.srcport','-e','tcp.dstport','-e','tcp.ack','-e','tcp.window_size','-e','tcp.flags.syn','-e','tcp.len'],capture_output=True,text=True).stdout
sf0 = None; join = None; edges = []; syn2 = None
for l in out.splitlines():
    t,src,sp,dp,ack,w,syn,ln = l.split('\t'); t=float(t)
    if src == '10.2.0.2' and syn == '1':
        if sf0 is None: sf0 = sp
        elif sp != sf0: syn2 = sp
    if src == '10.2.0.2' and syn2 and sp == syn2 and syn == '0' and join is None:
        join = t
    if src != '10.2.0.2' and dp == sf0 and ack and w:
        edges.append((t, int(ack) + int(w)))
best = 0; stop = None
for t, e in edges:
    if e > best:
        best = e; last_grow = t
    if join and t > join and stop is None and t - last_grow > 0.05:
        stop = last_grow
print('join(3rd ACK at server) %.3f  sf0 edge stopped growing at %.3f  (%.3f s after the join)' % (join, stop, stop - join))
