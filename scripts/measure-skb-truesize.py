#!/usr/bin/env python3
# Usage: python3 scripts/measure-skb-truesize.py   (needs `ss` from iproute2; loopback only)
# Measure the truesize of an empty TCP tx skb on this kernel: a sender
# writes K chunks with MSG_EOR (one skb each) to a peer that never reads
# and whose window is closed, then `ss -tm` shows skmem w (sk_wmem_queued).
import socket, subprocess, time, re
ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
ls.bind(("127.0.0.1", 0)); ls.listen(1); port = ls.getsockname()[1]
c = socket.socket(); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
c.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
c.connect(("127.0.0.1", port)); s, _ = ls.accept()
# fill the peer's window first
c.setblocking(False)
sent = 0
while sent < 300_000: sent += c.send(b"x" * 10_000)
time.sleep(0.3)
def w():
    out = subprocess.run(["ss", "-tmn", "src", f"127.0.0.1", "dport", f"= :{port}"], capture_output=True, text=True).stdout
    m = re.search(r"skmem:\(([^)]*)\)", out); d = dict(re.findall(r"([a-z_]+)(\d+)", m.group(1)))
    q = re.search(r"ESTAB\s+\d+\s+(\d+)", out).group(1)
    return int(d["w"]), int(q)
w0, q0 = w()
K, L = 200, 1000
for i in range(K):
    c.send(b"y" * L, socket.MSG_EOR)
time.sleep(0.2)
w1, q1 = w()
print(f"K={K} L={L}: wmem {w0}->{w1} (+{w1-w0}), queued {q0}->{q1} (+{q1-q0}); per skb overhead {(w1-w0-(q1-q0))/K:.0f} B")
