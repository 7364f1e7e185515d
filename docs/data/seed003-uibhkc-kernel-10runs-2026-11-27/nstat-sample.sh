#!/bin/bash
# Append the MPTCP MIB counters of the namespaces n0/n1 of one mptlab
# process ($1) every 0.5 s, each line prefixed by time and namespace.
pid=$1; out=$2
while kill -0 "$pid" 2>/dev/null; do
  t=$(date +%s.%N)
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^mptl-$pid-.*-n[01]$"); do
    ip netns exec "$ns" nstat -asz 2>/dev/null | grep -E "MPTcpExt(NoDSSInWindow|DuplicateData|MPTCPRetrans|OFOQueue |RcvWndShared|RcvWndConflict|DataCsumErr|RcvPruned|SndWndShared)|TcpRetransSegs" | sed "s/^/$t $ns /" >> "$out/log.txt"
  done
  sleep 0.5
done
