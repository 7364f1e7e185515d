#!/usr/bin/env python3
"""Loss positions of one emulated path, kernel against simulator (docs/emulation.md,
"The agent's hello and the loss draws").

Usage: scripts/loss-positions.py DIR RUN PATH
  DIR/kernel/run<RUN>-{r,c}-p<PATH>.pcap  (mptlab emulate --capture DIR/kernel)
  DIR/sim/run-<RUN>/{server,client}.pcapng (mptlab run --capture DIR/sim)
For each direction of path PATH: the indices, among the packets entering the link
(router side for down, client side for up), of those that never left it. A link is
FIFO, so what arrives is matched in order (key: addresses, ports, seq, ack, length,
flags, DSS numbers, TCP timestamp). Needs tshark. The last indices of a list can be
packets still in flight when the capture stopped.
"""
import subprocess
import sys

F = ["-T", "fields"] + sum((["-e", f] for f in [
    "frame.time_relative", "ip.src", "ip.dst", "tcp.srcport", "tcp.dstport", "tcp.seq_raw",
    "tcp.ack_raw", "tcp.len", "tcp.flags.str", "tcp.options.mptcp.rawdataseqno",
    "tcp.options.mptcp.rawdataack", "tcp.options.timestamp.tsval"]), [])


def packets(f, filt):
    out = subprocess.run(["tshark", "-r", f, "-Y", filt] + F, capture_output=True, text=True,
                         check=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def lost(sent, recv):
    out, j = [], 0
    for k, r in enumerate(sent):
        if j < len(recv) and recv[j][1:] == r[1:]:
            j += 1
        else:
            out.append(k)
    return out


def main():
    d, run, p = sys.argv[1], sys.argv[2], sys.argv[3]
    a = f"10.{p}.0.2"
    kd, ku = f"ip.dst=={a}", f"ip.src=={a}"
    k = f"{d}/kernel/run{run}"
    s = f"{d}/sim/run-{run}"
    for name, sent, recv in [
        ("down kernel", packets(f"{k}-r-p{p}.pcap", kd), packets(f"{k}-c-p{p}.pcap", kd)),
        ("down sim", packets(f"{s}/server.pcapng", kd), packets(f"{s}/client.pcapng", kd)),
        ("up kernel", packets(f"{k}-c-p{p}.pcap", ku), packets(f"{k}-r-p{p}.pcap", ku)),
        ("up sim", packets(f"{s}/client.pcapng", ku), packets(f"{s}/server.pcapng", ku)),
    ]:
        print(f"path{p} {name}: {len(sent)} packets, lost {lost(sent, recv)}")


if __name__ == "__main__":
    main()
