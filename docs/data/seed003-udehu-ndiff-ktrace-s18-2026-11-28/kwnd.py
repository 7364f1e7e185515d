# udehu18: the connection-level window on both sides of a traced run, every
# `step` seconds from the client's first tcp_probe: the server subflows'
# announced tp->rcv_wnd (tcp_probe on the server's received segments) and the
# client msk's right edge (mptcp:ack_update_msk msk_wnd_end) less its snd_una,
# relative to the first DSN. Usage: kwnd.py TRACE [step] [until_s]
import re, sys
f = sys.argv[1]; step = float(sys.argv[2]) if len(sys.argv) > 2 else 0.1
until = float(sys.argv[3]) if len(sys.argv) > 3 else 4.0
probe = re.compile(r' (\d+\.\d+): tcp_probe: .*src=(10\.10[12]\.0\.2):8080 dest=10\.2\.0\.2:(\d+) .*data_len=(\d+) .*rcv_wnd=(\d+)')
cprobe = re.compile(r' (\d+\.\d+): tcp_probe: .*src=10\.2\.0\.2:(\d+) dest=10\.10[12]\.0\.2:8080')
msk = re.compile(r' (\d+\.\d+): ack_update_msk: data_ack=\d+ old_snd_una=(\d+) new_snd_una=(\d+) new_wnd_end=\d+ msk_wnd_end=(\d+)')
ev = []; first = {}
for l in open(f):
    m = cprobe.search(l)
    if m:
        first.setdefault(int(m[2]), float(m[1]))
    m = probe.search(l)
    if m:
        ev.append((float(m[1]), 's', int(m[3]), int(m[4]), int(m[5])))
        continue
    m = msk.search(l)
    if m:
        ev.append((float(m[1]), 'm', int(m[2]), int(m[3]), int(m[4])))
ports = sorted(first, key=first.get)
runs = []
for p in ports:
    if runs and first[p] - first[runs[-1][0]] < 5:
        runs[-1].append(p)
    else:
        runs.append([p])
for r in runs:
    t0 = first[r[0]]
    print('RUN client ports', r, 't0', t0, '(s: server subflow rcv_wnd, last segment length; m: client msk snd_una, wnd_end - snd_una)')
    # the client msk is the one whose snd_una moves
    una0 = None; last = {}; lastm = None; nxt = 0.0
    for t, k, a, b, c in sorted(ev):
        if t < t0 - 0.5 or t > t0 + until:
            continue
        if k == 'm':
            if a == b and lastm is None and una0 is None:
                continue
            if una0 is None:
                una0 = a
            if abs(b - una0) > 1 << 40:
                continue
            lastm = (b - una0, c - b)
        elif a in r:
            last[r.index(a)] = (c, b)
        if t - t0 >= nxt:
            print('t=%.2f' % (t - t0), ' '.join('s%d=%s' % (i, v) for i, v in sorted(last.items())),
                  'm=%s' % (lastm,))
            nxt += step
