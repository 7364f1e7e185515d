#!/usr/bin/env bash
# addaddr21: trace the receive path (netif_rx enqueue, netif_receive_skb processing), the MPTCP
# DATA_ACK processing (ack_update_msk), tcp_probe and the workqueue while a command runs.
# Own tracefs instance, removed on exit (as session 16's ktrace16.sh).
set -euo pipefail
out=$1; shift; [ "$1" = "--" ] && shift
T=/sys/kernel/tracing
inst=$T/instances/addaddr21-$$
mkdir "$inst"
trap 'echo 0 > "$inst/tracing_on"; rmdir "$inst"' EXIT
echo 131072 > "$inst/buffer_size_kb"
echo mono > "$inst/trace_clock"
for ev in net/netif_rx net/netif_receive_skb net/net_dev_queue mptcp/ack_update_msk tcp/tcp_probe \
          workqueue/workqueue_queue_work workqueue/workqueue_execute_start; do
  echo 1 > "$inst/events/$ev/enable"
done
echo 1 > "$inst/tracing_on"
rc=0; "$@" || rc=$?
echo 0 > "$inst/tracing_on"
cat "$inst/trace" > "$out"
echo "dropped/overrun per cpu:" >&2; grep -h overrun "$inst"/per_cpu/cpu*/stats >&2 || true
exit $rc
