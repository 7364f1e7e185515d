#!/usr/bin/env python3
"""First-ACK RTT on path 1, kernel minus simulator, per run of a `mptlab validate
--decisions -o OUT` pass (docs/emulation.md, "Idle wake-up").

Usage: scripts/first-ack-rtt.py OUT CELL [RUNS]
For each run: RTT of the first ACK from 10.1.0.2 at the server (tshark
tcp.analysis.ack_rtt on OUT/captures/CELL/kernel/run<k>-s-srv.pcap and
OUT/captures/CELL/sim/run-<k>/server.pcapng), and the difference of the medians of
the first 150 such ACKs (ms).
"""
import statistics
import subprocess
import sys


def rtts(f):
    out = subprocess.run(["tshark", "-r", f, "-Y", "ip.src==10.1.0.2 && tcp.analysis.ack_rtt",
                          "-T", "fields", "-e", "tcp.analysis.ack_rtt"],
                         capture_output=True, text=True, check=True).stdout
    return [float(x) * 1e3 for x in out.split()][:150]


def main():
    out, cell = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    for r in range(runs):
        k = rtts(f"{out}/captures/{cell}/kernel/run{r}-s-srv.pcap")
        s = rtts(f"{out}/captures/{cell}/sim/run-{r}/server.pcapng")
        print(f"run {r}: first-ACK RTT kernel {k[0]:.3f} sim {s[0]:.3f} ms, difference "
              f"{k[0] - s[0]:+.3f}; median of 150 difference "
              f"{statistics.median(k) - statistics.median(s):+.3f} ms")


if __name__ == "__main__":
    main()
