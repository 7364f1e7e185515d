#!/usr/bin/env python3
"""Usage: mptcp-dsn-span.py PCAP [BIN_MS]

Per time bin of a server-side capture (simulator `server.pcapng` or the
emulator's `run<k>-s-srv.pcap`): the connection-level DSN span on the wire
(highest DSN sent + length - latest DATA_ACK received, the most the
connection's send buffer held) and the payload bytes sent towards each path
(client 10.1.0.2 = p1, else p2). A packet's DSN is its DSS mapping's DSN plus
its subflow sequence offset into the mapping (RFC 8684 3.3.1). Needs tshark.
docs/emulation.md, "Why the kernel's slow subflow overflows its queue"."""
import subprocess, sys, collections
pcap, binms = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 10
f = ["frame.time_relative","ip.src","ip.dst","tcp.seq","tcp.len",
     "tcp.options.mptcp.rawdataseqno","tcp.options.mptcp.subflowseqno","tcp.options.mptcp.rawdataack"]
cmd = ["tshark","-r",pcap,"-Y","mptcp","-T","fields","-E","separator=|","-E","occurrence=l"]
for x in f: cmd += ["-e", x]
out = subprocess.run(cmd, capture_output=True, text=True).stdout
hi = None; ack = None; base = None
rows = collections.OrderedDict()
for line in out.splitlines():
    t, src, dst, seq, ln, dsn, ssn, dack = line.split("|")
    t = float(t); ln = int(ln or 0)
    b = int(t * 1000 / binms) * binms
    r = rows.setdefault(b, {"out": 0, "p1": 0, "p2": 0})
    if src == "10.0.0.2":
        if dsn and ssn and ln > 0:
            d = int(dsn) + (int(seq) - int(ssn))
            base = d if base is None else min(base, d)
            e = d + ln
            hi = e if hi is None else max(hi, e)
            r["p1" if dst == "10.1.0.2" else "p2"] += ln
    elif dack:
        a = int(dack)
        ack = a if ack is None else max(ack, a)
    if hi is not None and ack is not None:
        r["out"] = max(r["out"], (hi - ack) % (1 << 64) if hi - ack < 1 << 40 else 0)
for b, r in rows.items():
    print(f"{b/1000:.3f} out={r['out']:7d} p1={r['p1']:6d} p2={r['p2']:6d}")
