#!/usr/bin/env python3
"""order.py CAPDIR RUNS... (emulate --capture's directory) or order.py --merged PCAP... (the
first-second files committed here, the four interfaces already merged): per run, on the client's interfaces (c-l1, c-l2) and the server's
(s-l3, s-l4): when the server sent / the client received the first DATA_ACK of the initial
subflow and the ADD_ADDR, the client's echo, and the order of the client's MP_JOIN SYNs."""
import subprocess, sys, tempfile, os

CLIENT = {"10.1.0.2": "1", "10.2.0.2": "2"}
SERVER = {"10.101.0.2": "1", "10.102.0.2": "2"}

def packets(d, r):
    fd, tmp = tempfile.mkstemp(suffix=".pcap")
    os.close(fd)
    if d is None:
        files = [r]
    else:
        files = [f"{d}/run{r}-{x}.pcap" for x in ("c-l1", "c-l2", "s-l3", "s-l4")]
    subprocess.run(["mergecap", "-w", tmp] + files, check=True)
    out = subprocess.run(["tshark", "-r", tmp, "-Y", "frame.time_relative < 3", "-T", "fields",
        "-E", "separator=|", "-e", "frame.time_relative", "-e", "frame.interface_name",
        "-e", "ip.src", "-e", "ip.dst", "-e", "tcp.flags.str", "-e", "tcp.seq",
        "-e", "tcp.len", "-e", "tcp.options.mptcp.subtype", "-e", "tcp.options.mptcp.ipv4",
        "-e", "tcp.options.mptcp.echo", "-e", "tcp.options.mptcp.dataackpresent.flag",
        "-e", "mptcp.ack"], capture_output=True, text=True).stdout
    os.unlink(tmp)
    for line in out.splitlines():
        f = line.split("|")
        yield dict(t=float(f[0]), ifc=f[1], src=f[2], dst=f[3], flags=f[4], seq=int(f[5]),
                   len=int(f[6]), sub=f[7].split(","), addr=f[8], echo=f[9], dack=f[10])

def main():
    d = None if sys.argv[1] == "--merged" else sys.argv[1]
    for r in sys.argv[2:]:
        ps = list(packets(d, r))
        init = ps[0]
        name = lambda p, c, s: CLIENT[c] + ">" + SERVER[s]
        ini = name(init, init["src"], init["dst"])
        ev = {}
        joins = []
        for p in ps:
            to_client = p["src"] in SERVER
            at_client = p["ifc"] in ("l1", "l2")
            side = "client" if at_client else "server"
            if to_client and p["seq"] == 1 and "S" not in p["flags"].replace("·", ""):
                # initial subflow only: the server's first packets at ISN + 1
                if (p["src"], p["dst"]) != (init["dst"], init["src"]):
                    continue
                if "2" in p["sub"] and p["dack"] == "1":
                    ev.setdefault(f"first DATA_ACK at {side}", p["t"])
                if "3" in p["sub"] and p["echo"] == "0":
                    ev.setdefault(f"ADD_ADDR {p['addr']} at {side}", p["t"])
            dk = ev.get("first DATA_ACK at client")
            if (dk is not None and (not to_client) and at_client and p["len"] > 0
                    and (p["src"], p["dst"]) == (init["src"], init["dst"]) and p["t"] > dk):
                ev.setdefault("client's first data after it (the DATA_ACK processed)", p["t"])
            if (not to_client) and at_client and "3" in p["sub"] and p["echo"] == "1":
                ev.setdefault("echo sent by client", p["t"])
            if (not to_client) and at_client and "1" in p["sub"] and p["flags"].replace("·", "") == "S":
                j = name(p, p["src"], p["dst"])
                if j not in [x for x, _ in joins]:
                    joins.append((j, p["t"]))
        print(f"run {r}: initial {ini}")
        for k, t in sorted(ev.items(), key=lambda x: x[1]):
            print(f"  {t:10.6f}  {k}")
        for j, t in joins:
            print(f"  {t:10.6f}  MP_JOIN SYN {j}")
        print("  join order:", ", ".join(j for j, _ in joins))

main()
