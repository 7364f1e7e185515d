#!/usr/bin/env python3
"""Usage: join-race.py [--ranges] PCAP...
       join-race.py --same PCAP_A PCAP_B


The race that decides where a bulk download's second subflow starts
(docs/validation.md, "Session 17: the bulk cells' early partings"): per
server-side capture (simulator `server.pcapng` or the emulator's
`run<k>-s-srv.pcap[.gz]`, client 10.1.0.2 = path 1, else path 2), in ms from
the capture's first packet:

- hello: the client's 16-byte request reaching the server; data: the first
  payload byte sent on path 1;
- join: the path-2 client's third ACK (no payload) reaching the server, the
  instant the join becomes usable (`mptcp_subflow_active`);
- una: path 1's snd_una at that instant (its last ACK before it), which with
  the data path 1 already holds sets its `sk_wmem_queued` against `sk_sndbuf`
  (`mptcp_subflow_get_send`'s `sk_stream_memory_free(ssk)` test);
- p2: path 2's first data, as DSN @ time.

With --ranges, also every run of consecutive first transmissions of one
subflow as `path first..end @ ms` (DSN relative to the first data byte; a
DSN is its DSS mapping's DSN plus the subflow-sequence offset into the
mapping, RFC 8684 3.3.1). With --same, the payload bytes two captures of the
same run (kernel and simulator, or two kernel passes) first send on the same
path, out of those both send: `same total`. Needs tshark."""
import gzip
import os
import subprocess
import sys
import tempfile

FIELDS = ["frame.time_relative", "ip.src", "ip.dst", "tcp.seq", "tcp.ack", "tcp.len",
          "tcp.options.mptcp.rawdataseqno", "tcp.options.mptcp.subflowseqno"]
SERVER, PATH1 = "10.0.0.2", "10.1.0.2"


def packets(pcap):
    tmp = None
    if pcap.endswith(".gz"):
        tmp = tempfile.NamedTemporaryFile(suffix=".pcap", delete=False)
        with gzip.open(pcap) as src:
            tmp.write(src.read())
        tmp.close()
        pcap = tmp.name
    cmd = ["tshark", "-r", pcap, "-T", "fields", "-E", "occurrence=f",
           "-o", "tcp.relative_sequence_numbers:TRUE"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    if tmp:
        os.unlink(tmp.name)
    for line in out.splitlines():
        t, src, dst, seq, ack, ln, dsn, ssn = line.split("\t")
        yield (float(t) * 1e3, src, dst, int(seq or 0), int(ack or 0), int(ln or 0),
               int(dsn) if dsn else None, int(ssn) if ssn else None)


def analyse(pcap):
    hello = data = join = p2 = None
    una = una_at_join = 0
    base = None
    seen, ranges = set(), []
    for t, src, dst, seq, ack, ln, dsn, ssn in packets(pcap):
        if src == PATH1 and ln == 16 and hello is None:
            hello = t
        if src == PATH1 and ln == 0:
            una = max(una, ack - 1)
        if src not in (SERVER, PATH1) and ln == 0 and join is None and ack == 1:
            join, una_at_join = t, una
        if src != SERVER or ln == 0 or dsn is None:
            continue
        d = dsn + (seq - ssn)
        if base is None:
            base = d
        d -= base
        if dst == PATH1 and data is None:
            data = t
        if dst != PATH1 and p2 is None:
            p2 = (d, t)
        if d in seen:
            continue
        seen.add(d)
        last = ranges[-1] if ranges else None
        if last and last[0] == dst and last[2] == d:
            last[2] = d + ln
        else:
            ranges.append([dst, d, d + ln, t])
    return hello, data, join, una_at_join, p2, ranges


def merged(ranges):
    """Ranges of one path that continue each other, joined."""
    open_ = {}
    out = []
    for path, a, b, t in ranges:
        r = open_.get(path)
        if r and r[2] == a:
            r[2] = b
        else:
            r = [path, a, b, t]
            open_[path] = r
            out.append(r)
    return out


def same_path(a, b):
    """Bytes both range lists place, and those they place on the same path."""
    edges = sorted({x for r in a + b for x in r[1:3]})

    def path_at(ranges, x):
        return next((r[0] for r in ranges if r[1] <= x < r[2]), None)

    same = total = 0
    for lo, hi in zip(edges, edges[1:]):
        pa, pb = path_at(a, lo), path_at(b, lo)
        if pa and pb:
            total += hi - lo
            same += (hi - lo) if pa == pb else 0
    return same, total


def main():
    args = sys.argv[1:]
    if args and args[0] == "--same":
        same, total = same_path(analyse(args[1])[5], analyse(args[2])[5])
        print(same, total)
        return
    show = "--ranges" in args
    for pcap in (a for a in args if a != "--ranges"):
        hello, data, join, una, p2, ranges = analyse(pcap)
        fmt = lambda x: "-" if x is None else "%.2f" % x
        p2s = "-" if p2 is None else "%d @ %.2f" % p2
        print("%s  hello %s  data %s  join %s  una %d  p2 %s"
              % (pcap, fmt(hello), fmt(data), fmt(join), una, p2s))
        if show:
            for path, a, b, t in merged(ranges):
                print("    %s %d..%d @ %.2f" % ("p1" if path == PATH1 else "p2", a, b, t))


if __name__ == "__main__":
    main()
