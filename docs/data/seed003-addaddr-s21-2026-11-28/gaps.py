#!/usr/bin/env python3
"""gaps.py FILE...: from order.py's output, per run the gaps (us) between the server's first
DATA_ACK and its ADD_ADDR at the server and at the client, from the client's first data after
that DATA_ACK to the ADD_ADDR, and from the ADD_ADDR to the first MP_JOIN SYN; then the join order."""
import re, sys
for f in sys.argv[1:]:
    for blk in open(f).read().split("run ")[1:]:
        ev = {}
        for l in blk.splitlines()[1:]:
            m = re.match(r"\s+([\d.]+)\s+(.*)", l)
            if m:
                ev.setdefault(m.group(2).split(" (")[0].replace("MP_JOIN SYN ", "SYN:"), float(m.group(1)))
        g = lambda k: next(v for kk, v in ev.items() if kk.startswith(k))
        us = lambda a, b: round(1e6 * (g(b) - g(a)))
        order = re.search(r"join order: (.*)", blk).group(1)
        print(f"{f} run {blk.split(':')[0]}: server DATA_ACK->ADD_ADDR {us('first DATA_ACK at server', 'ADD_ADDR 10.102.0.2 at server')}"
              f" | client DATA_ACK->ADD_ADDR {us('first DATA_ACK at client', 'ADD_ADDR 10.102.0.2 at client')}"
              f" | client data->ADD_ADDR {us('client', 'ADD_ADDR 10.102.0.2 at client')}"
              f" | ADD_ADDR->SYN {us('ADD_ADDR 10.102.0.2 at client', 'SYN:')} | {order}")
