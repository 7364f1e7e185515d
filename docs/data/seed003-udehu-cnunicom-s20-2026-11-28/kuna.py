# client msk snd_una (DATA_ACKed bytes) every step s from the first tcp_probe of each run
import re, sys
f = sys.argv[1]; step = float(sys.argv[2])
cprobe = re.compile(r' (\d+\.\d+): tcp_probe: .*src=10\.2\.0\.2:(\d+) dest=10\.10[12]\.0\.2:8080')
msk = re.compile(r' (\d+\.\d+): ack_update_msk: data_ack=\d+ old_snd_una=(\d+) new_snd_una=(\d+)')
first = {}; ev = []
for l in open(f):
    m = cprobe.search(l)
    if m: first.setdefault(int(m[2]), float(m[1])); continue
    m = msk.search(l)
    if m: ev.append((float(m[1]), int(m[2]), int(m[3])))
ports = sorted(first, key=first.get)
runs = []
for p in ports:
    if runs and first[p] - first[runs[-1][0]] < 5: runs[-1].append(p)
    else: runs.append([p])
for r in runs:
    t0 = first[r[0]]; una0 = None; nxt = 0; out = []
    last = None
    for t, a, b in ev:
        if t < t0 - 0.5 or t > t0 + 21: continue
        if a == b and una0 is None: continue
        if una0 is None: una0 = a
        if abs(b - una0) > 1 << 40: continue
        while t - t0 >= nxt:
            out.append((nxt, last)); nxt += step
        last = b - una0
    out.append((nxt, last))
    print('RUN', r, ' '.join('%g:%s' % (x, y) for x, y in out))
    prev = 0
    print('  rate Mbit/s per step:', ' '.join('%.2f' % (((y or 0) - prev) * 8 / step / 1e6) for x, y in out[1:] if not (prev := prev) is None and True) )
