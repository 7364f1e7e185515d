#!/usr/bin/env bash
# The link emulator's own measurement error, measured independently of
# mptlab's agent (docs/emulation.md, "Emulator accuracy"):
#  - delay: TCP connect time (SYN -> SYN-ACK, one round trip) through the
#    emulated path, against 2 x delay + the SYN's and SYN-ACK's serialisation;
#  - rate: iperf3 TCP goodput through the rate-limited path, against the
#    configured rate x 1448/1500 (TCP payload of a 1500-byte IP packet with
#    timestamps; the emulator serialises whole IP packets).
# Each configuration is measured REPEAT times; the load (uptime) is printed
# beside every measurement because the machine may be shared.
# Needs root, TUN, iproute2, python3, iperf3. Usage:
#   scripts/measure-emulator.sh [LINKEMU] [REPEAT]
set -euo pipefail
LINKEMU=${1:-target/release/mptlab-linkemu}
REPEAT=${2:-3}
CONNECTS=20
IPERF_S=5
command -v iperf3 >/dev/null || { echo "iperf3 missing (apt-get install -y iperf3)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/measure-emulator.XXXXXX)
emu_pid=""; srv_pid=""; lst_pid=""
cleanup() {
    [ -n "$lst_pid" ] && kill "$lst_pid" 2>/dev/null || true
    [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null || true
    # SIGTERM: mptlab-linkemu tears its namespaces down itself
    [ -n "$emu_pid" ] && kill "$emu_pid" 2>/dev/null && wait "$emu_pid" 2>/dev/null || true
    lst_pid=""; srv_pid=""; emu_pid=""
}
trap 'cleanup; rm -rf "$tmp"' EXIT

measure() { # rate_mbit delay_ms
    local rate=$1 delay=$2
    "$LINKEMU" run --direct --no-mptcp --path "rate=${rate}mbit,delay=${delay}ms,queue=100" \
        --duration 600 --stats "$tmp/stats.json" >"$tmp/emu.out" 2>"$tmp/emu.err" &
    emu_pid=$!
    for _ in $(seq 100); do grep -q "client addresses" "$tmp/emu.out" 2>/dev/null && break; sleep 0.1; done
    local cns sns saddr
    cns=$(sed -n 's/^namespaces: client \([^ ]*\) .*/\1/p' "$tmp/emu.out")
    sns=$(sed -n 's/.* server \([^ ]*\)$/\1/p' "$tmp/emu.out" | head -1)
    saddr=$(sed -n 's/.*; server \(.*\)$/\1/p' "$tmp/emu.out")
    [ -n "$cns" ] && [ -n "$saddr" ] || { cat "$tmp/emu.err" >&2; exit 1; }
    # a listener that accepts and closes (connect timing) and an iperf3 server
    ip netns exec "$sns" python3 -c '
import socket; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 9000)); s.listen(64)
while True: c,_=s.accept(); c.close()' &
    lst_pid=$!
    ip netns exec "$sns" iperf3 -s -p 5201 >/dev/null 2>&1 &
    srv_pid=$!
    sleep 0.5
    # expected RTT: 2 x delay + serialisation of SYN (60 B) and SYN-ACK (60 B)
    local expect
    expect=$(python3 -c "print(f'{2*$delay + 2*60*8/($rate*1e6)*1e3:.3f}')")
    for r in $(seq "$REPEAT"); do
        local load conn thr
        load=$(uptime | sed 's/.*load average: //')
        conn=$(ip netns exec "$cns" python3 -c "
import socket, time, statistics
v=[]
for i in range($CONNECTS):
    s=socket.socket(); t=time.perf_counter(); s.connect(('$saddr', 9000)); v.append((time.perf_counter()-t)*1e3); s.close(); time.sleep(0.02)
v.sort(); print(f'{statistics.median(v):.3f} {v[0]:.3f} {v[-1]:.3f}')")
        thr=$(ip netns exec "$cns" iperf3 -c "$saddr" -p 5201 -t "$IPERF_S" -O 1 -J \
            | python3 -c "import json,sys; d=json.load(sys.stdin); print(f\"{d['end']['sum_received']['bits_per_second']/1e6:.3f}\")")
        local want
        want=$(python3 -c "print(f'{$rate*1448/1500:.3f}')")
        echo "rate=${rate}mbit delay=${delay}ms repeat=$r load=[$load] connect_ms median/min/max=$conn expected_ms=$expect iperf3_tcp_mbit=$thr expected_mbit=$want"
    done
    cleanup
}

echo "# $(date -u +%FT%TZ) $(uname -r) nproc=$(nproc)"
measure 10 20
measure 50 5
