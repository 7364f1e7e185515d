#!/usr/bin/env bash
# ndiff16: trace tcp_probe / retransmits / MPTCP sender events while a command runs.
# Own tracefs instance, removed on exit.
set -euo pipefail
out=$1; shift; [ "$1" = "--" ] && shift
T=/sys/kernel/tracing
inst=$T/instances/ndiff16-$$
mkdir "$inst"
trap 'echo 0 > "$inst/tracing_on"; rmdir "$inst"' EXIT
echo 262144 > "$inst/buffer_size_kb"
echo mono > "$inst/trace_clock"
for ev in mptcp_sendmsg_frag ack_update_msk mptcp_subflow_get_send; do
  echo 1 > "$inst/events/mptcp/$ev/enable"
done
echo 1 > "$inst/events/tcp/tcp_retransmit_skb/enable"
echo 1 > "$inst/events/tcp/tcp_probe/enable"
echo 1 > "$inst/events/tcp/tcp_cong_state_set/enable"
ls $inst/events/tcp/ > /dev/null
echo 1 > "$inst/tracing_on"
rc=0; "$@" || rc=$?
echo 0 > "$inst/tracing_on"
cat "$inst/trace" >> "$out"
echo "dropped/overrun per cpu:" >&2; grep -h overrun "$inst"/per_cpu/cpu*/stats >&2 || true
exit $rc
