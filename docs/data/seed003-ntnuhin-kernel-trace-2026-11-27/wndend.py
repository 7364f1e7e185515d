"""Kernel sender's msk->wnd_end (tracepoint mptcp:ack_update_msk) against the
right edges the receiver announced on the wire (DATA_ACK + window of every
server ACK in the captures). argv: trace file, then capture tsv files
(frame.time_epoch ip.src ip.dst tcp.srcport tcp.len tcp.window_size tcp.seq
tcp.ack rawdataseqno rawdataack). Prints how often the sender's edge is past
every edge announced with the same or an older DATA_ACK, and by how much."""
import re, sys, bisect
P = re.compile(r'ack_update_msk: data_ack=(\d+) old_snd_una=(\d+) new_snd_una=(\d+) new_wnd_end=(\d+) msk_wnd_end=(\d+)')
ev = [tuple(map(int, m.groups())) for m in map(P.search, open(sys.argv[1])) if m]
edges = {}
for f in sys.argv[2:]:
    for l in open(f):
        r = l.rstrip('\n').split('\t')
        if len(r) >= 10 and r[1].startswith('10.10') and r[9]:
            a = int(r[9]); e = a + int(r[5])
            edges[a] = max(edges.get(a, 0), e)
acks = sorted(edges); best = []; m = 0
for a in acks:
    m = max(m, edges[a]); best.append(m)
una = set(acks)
mine = [e for e in ev if e[2] in una]          # this connection's events
over = []
for d, o, n, new_end, msk_end in mine:
    i = bisect.bisect_right(acks, n) - 1
    if i >= 0 and new_end > best[i]:
        over.append(new_end - best[i])
print('ack_update_msk events of this connection: %d' % len(mine))
print('new_wnd_end past every edge announced with that DATA_ACK or before: %d' % len(over))
if over:
    over.sort(); print('by bytes: median %d, max %d' % (over[len(over) // 2], over[-1]))
