# udehu18: the simulator's connection-level window every `step` seconds from
# the temporary print described in README.md (server-side `build_ack` lines,
# "U18 t=<us> sf=<i> rnxt=<msk rcv_nxt> wnd=<announced> edge=... ssth=...
# clamp=... ratio=<subflow's> msk_ratio=... ofo=... sfrcv_nxt=..."): the
# server's lines only (msk rcv_nxt > 1). Usage: simwnd.py TRACE [step] [until_s]
import sys
f = sys.argv[1]; step = float(sys.argv[2]) if len(sys.argv) > 2 else 0.1
until = float(sys.argv[3]) if len(sys.argv) > 3 else 4.0
nxt = 0.0; last = {}
for l in open(f):
    if not l.startswith('U18 '):
        continue
    d = dict(kv.split('=', 1) for kv in l.split()[1:])
    if int(d['rnxt']) <= 1:
        continue
    t = int(d['t']) / 1e6
    if t > until:
        break
    last[d['sf']] = d
    if t >= nxt:
        print('t=%.2f' % t, ' | '.join('sf%s rcv_nxt=%s wnd=%s edge=%s rcv_ssthresh=%s ratio=%s msk_ratio=%s ofo=%s'
              % (k, v['rnxt'], v['wnd'], v['edge'], v['ssth'], v['ratio'], v['msk_ratio'], v['ofo'])
              for k, v in sorted(last.items())))
        nxt += step
