"""For the wndend.py events past the announced edge: was the subflow's TCP
send window left unchanged by the ACK (tcp_probe just before, on the same
CPU, is the same skb before tcp_ack; ack_update_msk's new_wnd_end -
new_snd_una is snd_wnd after it)? argv: trace file, capture tsv files."""
import re, sys, bisect, collections
PR = re.compile(r'\[(\d+)\].*tcp_probe: .*snd_una=(0x[0-9a-f]+).*snd_wnd=(\d+)')
PA = re.compile(r'\[(\d+)\].*ack_update_msk: data_ack=(\d+) old_snd_una=(\d+) new_snd_una=(\d+) new_wnd_end=(\d+)')
edges = {}
for f in sys.argv[2:]:
    for l in open(f):
        r = l.rstrip('\n').split('\t')
        if len(r) >= 10 and r[1].startswith('10.10') and r[9]:
            a = int(r[9]); edges[a] = max(edges.get(a, 0), a + int(r[5]))
acks = sorted(edges); best = []; m = 0
for a in acks:
    m = max(m, edges[a]); best.append(m)
last = {}; n = collections.Counter()
for line in open(sys.argv[1]):
    p = PR.search(line)
    if p:
        last[p.group(1)] = int(p.group(3)); continue
    a = PA.search(line)
    if not a or a.group(1) not in last: continue
    una, end = int(a.group(4)), int(a.group(5))
    if una not in edges: continue
    i = bisect.bisect_right(acks, una) - 1
    past = i >= 0 and end > best[i]
    same = (end - una) == last[a.group(1)]
    n[(past, same)] += 1
for past in (True, False):
    tot = n[(past, True)] + n[(past, False)]
    print('%s the announced edge: %d updates, snd_wnd unchanged by the ACK in %d (%.0f %%)' %
          ('past' if past else 'within', tot, n[(past, True)], 100 * n[(past, True)] / max(tot, 1)))
