# Kernel: per run, the server's sf0 announced right edge (DSN-free: subflow ack-side edge
# = server's rcv_nxt is not in tcp_probe; use the client's view: client sf0 tcp_probe snd_una + snd_wnd)
import re, sys
f = sys.argv[1]
cp = re.compile(r' (\d+\.\d+): tcp_probe: .*src=10\.2\.0\.2:(\d+) dest=10\.10[12]\.0\.2:8080 .*snd_una=0x([0-9a-f]+) .*snd_wnd=(\d+) srtt=(\d+)')
first = {}; ev = []
for l in open(f):
    m = cp.search(l)
    if m:
        p = int(m[2]); t = float(m[1]); first.setdefault(p, t)
        ev.append((t, p, int(m[3], 16), int(m[4]), int(m[5])))
ports = sorted(first, key=first.get)
runs = []
for p in ports:
    if runs and first[p] - first[runs[-1][0]] < 5: runs[-1].append(p)
    else: runs.append([p])
for r in runs:
    t0 = first[r[0]]
    print('RUN', r, 'sf1 first probe (4th ACK at client) %.3f' % (first[r[1]] - t0))
    best = None; una0 = None; peak_t = None
    for t, p, una, wnd, srtt in ev:
        if p != r[0] or t - t0 > 2.0: continue
        if una0 is None: una0 = una
        edge = (una - una0) % (1 << 32) + wnd
        if best is None or edge > best:
            best = edge; peak_t = t - t0; s = srtt
    print('  sf0 subflow-level edge (snd_una+snd_wnd) last grew at %.3f (client time), srtt then %d us' % (peak_t, s))
