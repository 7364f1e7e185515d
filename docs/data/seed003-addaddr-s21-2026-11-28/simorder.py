#!/usr/bin/env python3
"""simorder.py SIMCAPDIR RUNS...: the same events as order.py from the simulator's captures
(run-<k>/UiB.pcapng, run-<k>/HKC.pcapng; `mptlab run --capture`)."""
import subprocess, sys, tempfile, os
CLIENT = {"10.1.0.2": "1", "10.2.0.2": "2"}
SERVER = {"10.101.0.2": "1", "10.102.0.2": "2"}
d = sys.argv[1]
for r in sys.argv[2:]:
    fd, tmp = tempfile.mkstemp(suffix=".pcapng"); os.close(fd)
    subprocess.run(["mergecap", "-w", tmp, f"{d}/run-{r}/UiB.pcapng", f"{d}/run-{r}/HKC.pcapng"], check=True)
    out = subprocess.run(["tshark", "-r", tmp, "-Y", "frame.time_relative < 3", "-T", "fields", "-E", "separator=|",
        "-e", "frame.time_relative", "-e", "frame.interface_name", "-e", "ip.src", "-e", "ip.dst",
        "-e", "tcp.flags.str", "-e", "tcp.seq", "-e", "tcp.options.mptcp.subtype",
        "-e", "tcp.options.mptcp.ipv4", "-e", "tcp.options.mptcp.echo",
        "-e", "tcp.options.mptcp.dataackpresent.flag"], capture_output=True, text=True).stdout
    os.unlink(tmp)
    rows = [l.split("|") for l in out.splitlines()]
    # the client's capture (UiB) holds the client's links; a packet appears once per host
    init = rows[0]
    ini = CLIENT[init[2]] + ">" + SERVER[init[3]]
    ev, joins, seen = {}, [], set()
    for f in rows:
        t, src, dst, fl, seq, sub, addr, echo, dack = float(f[0]), f[2], f[3], f[4].replace("·", ""), f[5], f[6].split(","), f[7], f[8], f[9]
        to_client = src in SERVER
        # the client's links are the topology's first two (link1, link2: UiB's), the server's link3, link4
        side = "at client" if f[1] in ("link1", "link2") else "at server"
        if to_client and (src, dst) == (init[3], init[2]) and seq == "1" and "S" not in fl:
            if "2" in sub and dack == "1":
                ev.setdefault(f"first DATA_ACK {side}", t)
            if "3" in sub and echo == "0":
                ev.setdefault(f"ADD_ADDR {addr} {side}", t)
        if not to_client and "1" in sub and fl == "S":
            j = CLIENT[src] + ">" + SERVER[dst]
            if j not in [x for x, _ in joins]:
                joins.append((j, t))
    print(f"run {r}: initial {ini}")
    for k, t in sorted(ev.items(), key=lambda x: x[1]):
        print(f"  {t:10.6f}  {k}")
    print("  join order:", ", ".join(j for j, _ in joins), f"(SYNs at {joins[0][1]:.6f})" if joins else "")
