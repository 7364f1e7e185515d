#!/usr/bin/env python3
"""Per-run timeline of the kernel's MPTCP connection-level retransmission
timer from a ktrace.sh trace (issue 15, ktrace15).

    ktimeline.py TRACE.txt [--events] [--dur S]   # --events: every expiry

Only the first S seconds (default 20, the run's duration_s) of each
connection count: after that the emulator stops forwarding and the timer
fires every 200 ms until the sockets close.

A connection is the data sender's DSN space (mptcp_sendmsg_frag data_seq,
clustered: one upload per run). Its msk timer is the mptcp_retransmit_timer
timer whose expiries fall inside the connection's life. For each expiry:
the interval it was armed with (timer_start's timeout, jiffies -> ms at
CONFIG_HZ; a re-arm into the same timer-wheel bucket, 32 ms wide from
256 ms, changes `expires` without a timer_start event, so the counts of
arms are a lower bound while every arm below 256 ms is seen), how long the DATA_ACK had not moved, whether a re-send followed
(a mptcp_sendmsg_frag with data_seq below the highest end sent, within 50 ms)
and the re-arm's interval, and the client subflows' last tcp_probe
(bytes in flight, cwnd, srtt).
"""
import re
import sys
from collections import defaultdict

HZ_MS = 4.0  # CONFIG_HZ=250 on this host (grep CONFIG_HZ= /boot/config-$(uname -r))
LINE = re.compile(r"^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+):\s+(\w+):\s+(.*)$")
KV = re.compile(r"(\w+)=(\S+)")
CLIENT_NETS = ("10.1.", "10.2.")  # UiB's addresses (scenarios/seed003/uibhkc.toml)


BINS = [0, 200, 201, 256, 320, 400, 500, 600, 800, 1000, 1 << 30]
BINS_TXT = "[<200, 200, 201-255, 256-319, 320-399, 400-499, 500-599, 600-799, 800-999, >=1000]"


def hist(values):
    return [sum(lo <= v < hi for v in values) for lo, hi in zip(BINS, BINS[1:])]


def parse(path):
    for line in open(path):
        m = LINE.match(line)
        if not m:
            continue
        comm, _pid, _cpu, ts, ev, rest = m.groups()
        kv = dict(KV.findall(rest))
        t = re.search(r"\[timeout=(-?\d+)\]", rest)
        if t:
            kv["timeout"] = t.group(1)
        yield float(ts), ev, comm, kv


def main():
    path = sys.argv[1]
    events = "--events" in sys.argv
    dur = float(sys.argv[sys.argv.index("--dur") + 1]) if "--dur" in sys.argv else 20.0
    evs = list(parse(path))
    # Connections: DSN spaces of the sender's frags (data_len > 100 skips
    # the small control writes).
    conns = []  # dict(base, frags=[(t, seq, len)])
    for t, ev, _c, kv in evs:
        if ev != "mptcp_sendmsg_frag":
            continue
        seq, ln = int(kv["data_seq"]), int(kv["data_len"])
        for c in conns:
            if abs(seq - c["base"]) < 1 << 32:
                c["frags"].append((t, seq, ln))
                break
        else:
            conns.append({"base": seq, "frags": [(t, seq, ln)]})
    conns = [c for c in conns if sum(f[2] for f in c["frags"]) > 1 << 20]
    for n, c in enumerate(conns):
        t0 = c["frags"][0][0]
        c["frags"] = [f for f in c["frags"] if f[0] <= t0 + dur]
        t1 = t0 + dur
        base = c["base"]
        # Re-sends: pieces that end at or below the highest end handed out
        # so far (an append to a queued skb repeats its data_seq with a
        # longer data_len, and so extends the end).
        hi, resend = 0, []
        for t, seq, ln in c["frags"]:
            if seq + ln <= hi:
                resend.append((t, seq - base, ln))
            hi = max(hi, seq + ln)
        acks = [(t, int(kv["new_snd_una"]) - base, int(kv["old_snd_una"]) - base,
                 int(kv["msk_wnd_end"]) - base)
                for t, ev, _c, kv in evs
                if ev == "ack_update_msk" and t0 - 1 <= t <= t1 + 1
                and abs(int(kv["new_snd_una"]) - base) < 1 << 32]
        tm = defaultdict(list)
        for t, ev, _c, kv in evs:
            if ev in ("timer_start", "timer_expire_entry") and kv.get("function") == "mptcp_retransmit_timer" \
                    and t0 - 1 <= t <= t1:
                tm[kv["timer"]].append((t, ev, int(kv.get("timeout", 0))))
        msk = max(tm, key=lambda k: len(tm[k])) if tm else None
        tl = tm.get(msk, [])
        starts = [(t, to) for t, ev, to in tl if ev == "timer_start"]
        exps = [t for t, ev, _ in tl if ev == "timer_expire_entry"]
        probes = [(t, kv) for t, ev, _c, kv in evs if ev == "tcp_probe" and t0 <= t <= t1 + 1
                  and kv["src"].startswith(CLIENT_NETS)]
        ivals = [to * HZ_MS for _, to in starts]
        print(f"conn {n}: {t1 - t0:.1f} s, {hi - base} bytes handed out, DATA_ACK at end "
              f"{acks[-1][1] if acks else 0}; msk timer starts {len(starts)}, expiries {len(exps)}, "
              f"re-sent pieces {len(resend)} ({sum(r[2] for r in resend)} bytes)")
        if ivals:
            ivs = sorted(ivals)
            print(f"  arm intervals ms: min {ivs[0]:.0f} median {ivs[len(ivs) // 2]:.0f} max {ivs[-1]:.0f}; "
                  f"at TCP_RTO_MIN (200 ms): {sum(1 for v in ivals if v == 200)}")
            late = [to * HZ_MS for t, to in starts if t >= t0 + 1]
            print(f"  arm intervals after 1 s, ms {BINS_TXT}: {hist(late)}")
        gaps = [b - a for a, b in zip(adv_t, adv_t[1:]) if a >= t0 + 1] if (adv_t := [
            a[0] for a in acks if a[1] > a[2] and t0 <= a[0] <= t1]) else []
        # New data handed out up to exactly the send edge `msk->wnd_end`
        # (the last ack_update_msk's): mptcp_check_allowed_size's cut.
        edge_sends, new_sends, hi2, k = 0, 0, 0, 0
        wnd = None
        for t, seq, ln in c["frags"]:
            while k < len(acks) and acks[k][0] <= t:
                wnd = acks[k][3]
                k += 1
            if seq + ln - base > hi2:
                hi2 = seq + ln - base
                new_sends += 1
                edge_sends += wnd is not None and hi2 == wnd
        print(f"  new-data pieces {new_sends}, ending exactly at the send edge (msk_wnd_end): {edge_sends}")
        print(f"  DATA_ACK advances {len(adv_t)}; stalls after 1 s > 0.2 s: {sum(g > 0.2 for g in gaps)}, "
              f"> 0.4 s: {sum(g > 0.4 for g in gaps)}, longest {max(gaps, default=0):.2f} s")
        outcome = defaultdict(int)
        for e in exps:
            armed = [s for s in starts if s[0] < e]
            arm_t, arm_to = armed[-1] if armed else (None, None)
            adv = [a for a in acks if a[0] <= e and a[1] > a[2]]
            una = max((a[1] for a in acks if a[0] <= e), default=0)
            stall = e - adv[-1][0] if adv else e - t0
            rs = [r for r in resend if e <= r[0] <= e + 0.05]
            rearm = [s for s in starts if e <= s[0] <= e + 0.05]
            sent_hi = max((f[1] + f[2] - base for f in c["frags"] if f[0] <= e), default=0)
            sf = {}
            for t, kv in probes:
                if t <= e:
                    sf[kv["src"] + ">" + kv["dest"]] = kv
            key = "resend" if rs else "no resend"
            outcome[key] += 1
            if events:
                sfs = "; ".join(
                    f"{k.split(':')[0]}>{k.split('>')[1].split(':')[0]} inflight="
                    f"{(int(v['snd_nxt'], 16) - int(v['snd_una'], 16)) % (1 << 32)} cwnd={v['snd_cwnd']} "
                    f"srtt={int(v['srtt']) // 1000}ms"
                    for k, v in sorted(sf.items()))
                print(f"  t={e - t0:7.3f} armed t={arm_t - t0 if arm_t else float('nan'):7.3f} "
                      f"for {arm_to * HZ_MS if arm_to is not None else float('nan'):5.0f} ms; "
                      f"DATA_ACK {una} still {stall * 1000:6.0f} ms; out past it {sent_hi - una}; "
                      f"{key} {sum(r[2] for r in rs)} B; re-arm "
                      f"{[round(s[1] * HZ_MS) for s in rearm]} ms | {sfs}")
        print(f"  expiries: {dict(outcome)}")


if __name__ == "__main__":
    main()
