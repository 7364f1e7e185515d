# server-side received data bytes per second (tcp_probe on server's received segments), per run, per subflow
import re, sys
f = sys.argv[1]
probe = re.compile(r' (\d+\.\d+): tcp_probe: .*src=10\.10[12]\.0\.2:8080 dest=10\.2\.0\.2:(\d+) .*data_len=(\d+)')
cprobe = re.compile(r' (\d+\.\d+): tcp_probe: .*src=10\.2\.0\.2:(\d+) dest=10\.10[12]\.0\.2:8080')
first = {}; ev = []
for l in open(f):
    m = cprobe.search(l)
    if m: first.setdefault(int(m[2]), float(m[1])); continue
    m = probe.search(l)
    if m: ev.append((float(m[1]), int(m[2]), int(m[3])))
ports = sorted(first, key=first.get)
runs = []
for p in ports:
    if runs and first[p] - first[runs[-1][0]] < 5: runs[-1].append(p)
    else: runs.append([p])
for r in runs:
    t0 = first[r[0]]
    b = [[0]*22 for _ in r]; n=[[0]*22 for _ in r]
    gaps=[]; lastt=None
    for t, p, l in ev:
        if p in r and 0 <= t - t0 < 22 and l > 0:
            b[r.index(p)][int(t - t0)] += l; n[r.index(p)][int(t-t0)] += 1
            if lastt is not None: gaps.append(t-lastt)
            lastt = t
    print('RUN', r)
    for i in range(len(r)):
        print(' sf%d KB/s' % i, ' '.join('%d' % (x/1000) for x in b[i]))
    print(' total pkts/s', ' '.join('%d' % (n[0][k]+n[1][k]) for k in range(22)))
    gaps.sort()
    import statistics
    print(' gap quantiles ms', [round(gaps[int(q*len(gaps))]*1000,2) for q in (0.05,0.25,0.5,0.75,0.95)])
