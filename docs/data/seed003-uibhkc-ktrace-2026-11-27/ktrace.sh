#!/usr/bin/env bash
# Trace the kernel's MPTCP connection-level retransmission timer while a
# command runs (issue 15, ktrace15). Root; Linux 6.18 without kprobes, so
# only tracepoints: timer:* filtered on the timer callbacks' addresses
# (mptcp_retransmit_timer = the msk's icsk_retransmit_timer, tcp_write_timer
# = a subflow's), mptcp:* of the sender, tcp:tcp_retransmit_skb, tcp:tcp_probe.
# Uses its own tracefs instance, so it leaves the global buffer alone, and
# removes it on exit. Tracepoints see every namespace: run it while no other
# MPTCP emulation runs (the summary's per-run msk count shows a mix).
#
#   ktrace.sh OUT.txt -- mptlab emulate ...
set -euo pipefail
out=$1; shift; [ "$1" = "--" ] && shift
T=/sys/kernel/tracing
inst=$T/instances/ktrace15-$$
addr() { awk -v f="$1" '$3 == f { print "0x" $1; exit }' /proc/kallsyms; }
msk=$(addr mptcp_retransmit_timer); tcpw=$(addr tcp_write_timer)
[ -n "$msk" ] && [ -n "$tcpw" ] || { echo "no timer symbols in /proc/kallsyms" >&2; exit 1; }
mkdir "$inst"
trap 'echo 0 > "$inst/tracing_on"; rmdir "$inst"' EXIT
echo 131072 > "$inst/buffer_size_kb"
echo mono > "$inst/trace_clock"
for ev in timer_start timer_expire_entry; do
  echo "function == $msk || function == $tcpw" > "$inst/events/timer/$ev/filter"
  echo 1 > "$inst/events/timer/$ev/enable"
done
# timer_cancel has only the timer's address; the summary keeps the msk's.
echo 1 > "$inst/events/timer/timer_cancel/enable"
for ev in mptcp_sendmsg_frag ack_update_msk mptcp_subflow_get_send; do
  echo 1 > "$inst/events/mptcp/$ev/enable"
done
echo 1 > "$inst/events/tcp/tcp_retransmit_skb/enable"
echo 1 > "$inst/events/tcp/tcp_probe/enable"
echo "# msk_timer_fn=$msk tcp_write_timer_fn=$tcpw hz=$(getconf CLK_TCK 2>/dev/null)" > "$out"
echo 1 > "$inst/tracing_on"
rc=0; "$@" || rc=$?
echo 0 > "$inst/tracing_on"
cat "$inst/trace" >> "$out"
echo "dropped/overrun per cpu:" >&2; grep -h overrun "$inst"/per_cpu/cpu*/stats >&2 || true
exit $rc
