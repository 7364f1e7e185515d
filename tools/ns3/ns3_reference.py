#!/usr/bin/env python3
"""ns-3 reference runs for validating mptlab's single-path TCP.

For every (combo, congestion control, transfer size, seed) this runs one bulk
transfer over a 2-node point-to-point link in ns-3 3.44 (PyPI wheel
``ns3==3.44.post0``) and records the completion time: from the application
start (the sender's SYN) until the PacketSink has received every byte.

The whole scenario is a small C++ function compiled at start-up through the
cppyy bindings that come with the wheel, so the per-packet work happens in C++
(no Python callbacks).  Each worker process imports ns-3 once (~9 s) and then
runs many simulations back to back (Simulator::Destroy between them; the
error model's random stream is pinned so results do not depend on what the
process ran before).

See tools/ns3/README.md for every ns-3 setting and the exact commands.
"""

from __future__ import annotations

import argparse
import csv
import math
import multiprocessing as mp
import os
import statistics
import sys
import time
from dataclasses import dataclass

# ---------------------------------------------------------------------------
# Scenario matrix
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Combo:
    name: str
    rate_mbit: float
    delay_ms: float  # one-way propagation delay of the link
    loss_percent: float  # random packet loss, data direction only


COMBOS = [
    Combo("c1", 10, 10, 0.0),
    Combo("c2", 10, 20, 1.0),
    Combo("c3", 20, 20, 0.1),
    Combo("c4", 20, 40, 1.0),
    Combo("c5", 5, 50, 2.0),
    Combo("c6", 50, 5, 0.5),
    Combo("c7", 4, 70, 0.0),
]
CCS = ["newreno", "cubic"]  # default matrix
KNOWN_CCS = CCS + ["linuxreno"]  # ns3::TcpLinuxReno: Linux-style Reno (optional)
# "1MB" / "10MB" are 1000 KiB and 10000 KiB, so they are whole KiB for mptlab's
# `size_kib` (the draft scenario format uses size_kib = 1000 for "1MB").
SIZES = [1000 * 1024, 10000 * 1024]  # bytes: 1,024,000 and 10,240,000

# Linux-like settings (documented in README.md). All of them are passed
# explicitly to the C++ side so nothing depends on an ns-3 default silently.
DEFAULTS = dict(
    segment_size=1448,  # payload bytes; + 20 IP + 20 TCP + 12 TS option = 1500
    initial_cwnd=10,  # segments
    sack=True,
    timestamps=True,
    window_scaling=True,
    delack_count=2,
    delack_timeout_ms=40.0,  # Linux TCP_ATO_MIN; ns-3 default is 200 ms
    min_rto_ms=200.0,  # Linux TCP_RTO_MIN; ns-3 default is 1 s
    initial_rto_ms=1000.0,  # RttEstimator InitialEstimation (RFC 6298 / Linux 1 s)
    conn_timeout_ms=1000.0,  # SYN retransmission timeout; ns-3 default is 3 s
    clock_granularity_ms=1.0,
    sndbuf_bytes=4 * 1024 * 1024,
    rcvbuf_bytes=4 * 1024 * 1024,
    queue_packets=100,  # DropTail device queue at the bottleneck
    mtu=1500,
    hystart=True,  # ns-3 TcpCubic default, same as Linux CUBIC
    linux_exit=False,  # --linux-exit: Linux's cwnd update on the ACK ending recovery (see CPP)
    linux_prr=False,  # --linux-prr: PRR as Linux runs it (see CPP)
    linux_cwnd=False,  # --linux-cwnd: packet-counted send test as Linux tcp_cwnd_test (see CPP)
    limited_transmit=True,
    retx_threshold=3,
    max_sim_s=600.0,  # safety cap; a run that does not finish is reported empty
)

CSV_FIELDS = [
    "combo",
    "rate_mbit",
    "delay_ms",
    "loss_percent",
    "cc",
    "size_bytes",
    "seed",
    "completion_ms",
    "retransmissions",
    "data_pkts_sent",
    "pkts_lost_random",
    "pkts_dropped_queue",
    "rto_events",
    "fast_recoveries",
]

# ---------------------------------------------------------------------------
# C++ side (compiled by cling at import time in each worker)
# ---------------------------------------------------------------------------

CPP = r"""
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include <string>

namespace mptlab_ns3 {
using namespace ns3;

struct RunResult {
    double completion_ms = -1;   // -1: transfer did not complete before the cap
    uint64_t rx_bytes = 0;
    uint32_t retransmissions = 0;   // see SockTx
    uint32_t data_pkts_sent = 0;    // data packets put on the wire by the sender device
    uint32_t lost_random = 0;       // dropped by the RateErrorModel at the receiver
    uint32_t dropped_queue = 0;     // dropped by the full DropTail queue
    uint32_t rto_events = 0;        // entries into CA_LOSS (retransmission timeouts)
    uint32_t fast_recoveries = 0;   // entries into CA_RECOVERY
    double sim_end_s = 0;
};

static uint64_t g_rx = 0;
static uint64_t g_target = 0;
static Time g_start;
static Time g_done;
static RunResult g_res;

static void SinkRx(Ptr<const Packet> p, const Address&) {
    g_rx += p->GetSize();
    if (g_rx >= g_target && g_done.IsNegative()) {
        g_done = Simulator::Now();
        Simulator::Stop();
    }
}
// Retransmission = a data segment sent by the sender whose first sequence number is
// below the highest sequence number sent before it (covers fast retransmit, SACK
// recovery, RTO and spurious ones); defined here so the count is explicit.
static SequenceNumber32 g_highTx;
static bool g_anyTx = false;
static void SockTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>) {
    uint32_t len = p->GetSize();
    if (len == 0) return;
    SequenceNumber32 seq = h.GetSequenceNumber();
    if (g_anyTx && seq < g_highTx) g_res.retransmissions++;
    if (!g_anyTx || seq + len > g_highTx) g_highTx = seq + len;
    g_anyTx = true;
}
static void CongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now) {
    if (now == TcpSocketState::CA_LOSS) g_res.rto_events++;
    if (now == TcpSocketState::CA_RECOVERY) g_res.fast_recoveries++;
}
// Optional event trace (--trace FILE): one line "t_ms,kind,value" per change of the
// sender's cwnd / ssthresh (bytes), bytes in flight, congestion state, plus random
// losses (seq of the lost segment) and the sender's segments (seq; retransmissions
// marked).
static FILE* g_trace = nullptr;
static void TrU32(const char* kind, uint32_t v) {
    fprintf(g_trace, "%.6f,%s,%u\n", Simulator::Now().GetSeconds() * 1000.0, kind, v);
}
static void TrCwnd(uint32_t, uint32_t v) { TrU32("cwnd", v); }
static void TrSsth(uint32_t, uint32_t v) { TrU32("ssthresh", v); }
static void TrInfl(uint32_t, uint32_t v) { TrU32("inflight", v); }
static void TrState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now) {
    TrU32("state", uint32_t(now));  // 0 OPEN 1 DISORDER 2 CWR 3 RECOVERY 4 LOSS
}
static void TrRtt(Time, Time v) { TrU32("srtt_us", uint32_t(v.GetMicroSeconds())); }
static void TrTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>) {
    if (p->GetSize() == 0) return;
    bool re = g_anyTx && h.GetSequenceNumber() < g_highTx;
    TrU32(re ? "retx" : "tx", h.GetSequenceNumber().GetValue());
}
static void TrRxDrop(Ptr<const Packet> p) {
    Ptr<Packet> q = p->Copy();
    PppHeader ppp; q->RemoveHeader(ppp);
    Ipv4Header ip; q->RemoveHeader(ip);
    TcpHeader t; q->PeekHeader(t);
    TrU32("lost", t.GetSequenceNumber().GetValue());
}
static void TrQDrop(Ptr<const Packet>) { TrU32("qdrop", 0); }
static void HookSocket(Ptr<Application> app) {
    Ptr<Socket> s = DynamicCast<BulkSendApplication>(app)->GetSocket();
    if (g_trace) {  // before SockTx, so TrTx sees g_highTx of the previous segment
        s->TraceConnectWithoutContext("Tx", MakeCallback(&TrTx));
        s->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&TrCwnd));
        s->TraceConnectWithoutContext("SlowStartThreshold", MakeCallback(&TrSsth));
        s->TraceConnectWithoutContext("BytesInFlight", MakeCallback(&TrInfl));
        s->TraceConnectWithoutContext("CongState", MakeCallback(&TrState));
        s->TraceConnectWithoutContext("RTT", MakeCallback(&TrRtt));
    }
    s->TraceConnectWithoutContext("Tx", MakeCallback(&SockTx));
    s->TraceConnectWithoutContext("CongState", MakeCallback(&CongState));
}
static void PhyTx(Ptr<const Packet> p) { if (p->GetSize() > 200) g_res.data_pkts_sent++; }
static void PhyRxDrop(Ptr<const Packet>) { g_res.lost_random++; }
static void QueueDrop(Ptr<const Packet>) { g_res.dropped_queue++; }

// --linux-exit: Linux's window update on the ACK that ends fast recovery.
//
// ns-3 3.44 TcpSocketBase::ProcessAck, on the cumulative ACK that ends CA_RECOVERY, sets
// cwnd = ssthresh and then calls IncreaseWindow(segsAcked) with segsAcked recomputed as
// (ackNumber - oldHeadSequence) / MSS: the whole cumulative jump, which includes every
// segment SACKed during the recovery (those were already counted as delivered when their
// SACK arrived). Linux (tcp_ack -> tcp_cong_control -> tcp_cong_avoid) passes acked_sacked,
// the packets newly delivered by this ACK. Linux also clears the linear-increase counter
// when a reduction starts (tcp_init_cwnd_reduction / tcp_enter_loss: snd_cwnd_cnt = 0);
// ns-3's TcpLinuxReno keeps its m_cWndCnt across the recovery.
// These two classes change only that: on the exit ACK the algorithm sees the bytes newly
// delivered by the ACK (TcpSocketState::m_lastAckedSackedBytes, which ns-3 computes for every
// ACK) instead of the cumulative jump; the Reno one also restarts its counter at a reduction.
class MptlabLinuxRenoLx : public TcpLinuxReno {
  public:
    static TypeId GetTypeId() {
        static TypeId tid = TypeId("ns3::MptlabLinuxRenoLx")
                                .SetParent<TcpLinuxReno>()
                                .SetGroupName("Internet")
                                .AddConstructor<MptlabLinuxRenoLx>();
        return tid;
    }
    MptlabLinuxRenoLx() = default;
    MptlabLinuxRenoLx(const MptlabLinuxRenoLx& o) : TcpLinuxReno(o) {}
    std::string GetName() const override { return "MptlabLinuxRenoLx"; }
    Ptr<TcpCongestionOps> Fork() override { return CopyObject<MptlabLinuxRenoLx>(this); }
    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t ev) override {
        if (ev == TcpSocketState::CA_EVENT_COMPLETE_CWR) m_exitAck = true;
        TcpLinuxReno::CwndEvent(tcb, ev);
    }
    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t st) override {
        if (st == TcpSocketState::CA_RECOVERY || st == TcpSocketState::CA_LOSS) m_cnt = 0;
        TcpLinuxReno::CongestionStateSet(tcb, st);
    }
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segs) override {
        if (m_exitAck) {
            m_exitAck = false;
            segs = tcb->m_lastAckedSackedBytes / tcb->m_segmentSize;
        }
        TcpLinuxReno::IncreaseWindow(tcb, segs);
    }

  protected:
    // Linux tcp_cong_avoid_ai(tp, w = cwnd, acked), with a counter this class can reset.
    void CongestionAvoidance(Ptr<TcpSocketState> tcb, uint32_t acked) override {
        if (!tcb->m_isCwndLimited) return;
        uint32_t w = std::max<uint32_t>(1, tcb->m_cWnd / tcb->m_segmentSize);
        if (m_cnt >= w) {
            m_cnt = 0;
            tcb->m_cWnd += tcb->m_segmentSize;
        }
        m_cnt += acked;
        if (m_cnt >= w) {
            uint32_t d = m_cnt / w;
            m_cnt -= d * w;
            tcb->m_cWnd += d * tcb->m_segmentSize;
        }
    }

  private:
    bool m_exitAck = false;
    uint32_t m_cnt = 0;
};

class MptlabCubicLx : public TcpCubic {
  public:
    static TypeId GetTypeId() {
        static TypeId tid = TypeId("ns3::MptlabCubicLx")
                                .SetParent<TcpCubic>()
                                .SetGroupName("Internet")
                                .AddConstructor<MptlabCubicLx>();
        return tid;
    }
    MptlabCubicLx() = default;
    MptlabCubicLx(const MptlabCubicLx& o) : TcpCubic(o) {}
    std::string GetName() const override { return "MptlabCubicLx"; }
    Ptr<TcpCongestionOps> Fork() override { return CopyObject<MptlabCubicLx>(this); }
    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t ev) override {
        if (ev == TcpSocketState::CA_EVENT_COMPLETE_CWR) m_exitAck = true;
        TcpCubic::CwndEvent(tcb, ev);
    }
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segs) override {
        if (m_exitAck) {
            m_exitAck = false;
            segs = tcb->m_lastAckedSackedBytes / tcb->m_segmentSize;
        }
        TcpCubic::IncreaseWindow(tcb, segs);
    }

  private:
    bool m_exitAck = false;
};

// --linux-prr: PRR as Linux tcp_cwnd_reduction runs it (RFC 6937).
//
// ns-3 3.44 TcpPrrRecovery differs from Linux in two ways that both let it send more
// during recovery: DoRecovery adds one extra segment to DeliveredData on every duplicate
// ACK (while prr_delivered < RecoverFS), although with SACK the ACK's newly SACKed bytes
// are already in deliveredBytes, so each dupACK counts twice; and RecoverFS is the pipe
// at entry (bytes in flight, after the SACKed and lost segments left it) where Linux
// uses prior_cwnd, the cwnd before the reduction. This class is PRR without the dupACK
// bonus and with RecoverFS = cwnd at entry; the rest (PRR-CRB, +1 segment for PRR-SSRB
// when retransmitted data was ACKed, the forced fast retransmit) is as in ns-3.
class MptlabPrrLinux : public TcpRecoveryOps {
  public:
    static TypeId GetTypeId() {
        static TypeId tid = TypeId("ns3::MptlabPrrLinux")
                                .SetParent<TcpRecoveryOps>()
                                .SetGroupName("Internet")
                                .AddConstructor<MptlabPrrLinux>();
        return tid;
    }
    MptlabPrrLinux() = default;
    MptlabPrrLinux(const MptlabPrrLinux& o) : TcpRecoveryOps(o) {}
    std::string GetName() const override { return "MptlabPrrLinux"; }
    Ptr<TcpRecoveryOps> Fork() override { return CopyObject<MptlabPrrLinux>(this); }
    void EnterRecovery(Ptr<TcpSocketState> tcb, uint32_t, uint32_t, uint32_t delivered) override {
        m_out = 0;
        m_delivered = 0;
        m_recoverFs = std::max<uint32_t>(tcb->m_cWnd.Get(), 1);  // Linux prior_cwnd
        DoRecovery(tcb, delivered, true);
    }
    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t delivered, bool) override {
        if (delivered == 0) return;
        m_delivered += delivered;
        int64_t inflight = tcb->m_bytesInFlight.Get();
        int64_t ssthresh = tcb->m_ssThresh.Get();
        int64_t mss = tcb->m_segmentSize;
        int64_t snd;
        if (inflight > ssthresh) {
            snd = int64_t(std::ceil(double(m_delivered) * double(ssthresh) / double(m_recoverFs))) -
                  int64_t(m_out);
        } else {
            int64_t limit = std::max<int64_t>(int64_t(m_delivered) - int64_t(m_out), delivered);
            if (tcb->m_isRetransDataAcked) limit += mss;
            snd = std::min<int64_t>(limit, ssthresh - inflight);
        }
        snd = std::max<int64_t>(snd, m_out > 0 ? 0 : mss);
        tcb->m_cWnd = uint32_t(std::max<int64_t>(inflight + snd, 0));
        tcb->m_cWndInfl = tcb->m_cWnd;
    }
    void ExitRecovery(Ptr<TcpSocketState> tcb) override { tcb->m_cWndInfl = tcb->m_cWnd; }
    void UpdateBytesSent(uint32_t n) override { m_out += n; }

  private:
    uint64_t m_delivered = 0, m_out = 0, m_recoverFs = 1;
};

// --linux-cwnd: Linux's packet-counted send test.
//
// ns-3 3.44 TcpSocketBase::SendPendingData sends while AvailableWindow() = cwnd - bytes in
// flight (both in bytes) is > 0; its silly-window check only stops a send when that room is
// below one MSS *and* more data than the room is waiting. So a short segment (the 264-byte
// tail of the 1 MB transfer) leaves as soon as 264 bytes of room are free, e.g. back to back
// with the full segment before it when cwnd - in flight = 1.18 MSS. Linux counts packets:
// tcp_write_xmit -> tcp_cwnd_test (net/ipv4/tcp_output.c) allows a send only while
// tcp_packets_in_flight() < snd_cwnd, each skb counting as tcp_skb_pcount() >= 1 packets
// whatever its length, and tcp_xmit_retransmit_queue uses snd_cwnd - tcp_packets_in_flight()
// the same way; PRR (tcp_cwnd_reduction) also sets snd_cwnd = packets in flight + sndcnt.
// This socket rounds the room down to whole segments, so any segment, short or full, needs
// a whole MSS of room. With MSS-aligned segments and at most one short one this is the
// Linux test for every cwnd ns-3 sets from in-flight bytes plus whole segments (PRR, slow
// start, congestion avoidance); what stays different is only a cwnd that is itself not a
// whole number of segments (ns-3's ssthresh = in flight / 2 in bytes).
class MptlabTcpSocketPkt : public TcpSocketBase {
  public:
    MptlabTcpSocketPkt() = default;
    MptlabTcpSocketPkt(const MptlabTcpSocketPkt& o) : TcpSocketBase(o) {}

  protected:
    uint32_t AvailableWindow() const override {
        uint32_t win = Window();
        uint32_t inflight = BytesInFlight();  // also updates the BytesInFlight trace, as ns-3
        if (inflight >= win) return 0;
        uint32_t mss = m_tcb->m_segmentSize;
        return (win - inflight) / mss * mss;
    }
    Ptr<TcpSocketBase> Fork() override { return CopyObject<MptlabTcpSocketPkt>(this); }
};

// Socket factory for the sender's node that builds MptlabTcpSocketPkt exactly as
// TcpL4Protocol::CreateSocket builds a TcpSocketBase (same RTT estimator, congestion
// control and recovery types, registered with the node's TcpL4Protocol).
class MptlabTcpSocketFactory : public SocketFactory {
  public:
    static TypeId GetTypeId() {
        static TypeId tid = TypeId("ns3::MptlabTcpSocketFactory")
                                .SetParent<SocketFactory>()
                                .SetGroupName("Internet");
        return tid;
    }
    TypeId GetInstanceTypeId() const override { return GetTypeId(); }
    void SetNode(Ptr<Node> n) { m_node = n; }
    Ptr<Socket> CreateSocket() override {
        Ptr<TcpL4Protocol> tcp = m_node->GetObject<TcpL4Protocol>();
        TypeIdValue rttT, ccT, recT;
        tcp->GetAttribute("RttEstimatorType", rttT);
        tcp->GetAttribute("SocketType", ccT);
        tcp->GetAttribute("RecoveryType", recT);
        ObjectFactory rf, cf, qf;
        rf.SetTypeId(rttT.Get());
        cf.SetTypeId(ccT.Get());
        qf.SetTypeId(recT.Get());
        Ptr<MptlabTcpSocketPkt> s = CreateObject<MptlabTcpSocketPkt>();
        s->SetNode(m_node);
        s->SetTcp(tcp);
        s->SetRtt(rf.Create<RttEstimator>());
        s->SetCongestionControlAlgorithm(cf.Create<TcpCongestionOps>());
        s->SetRecoveryAlgorithm(qf.Create<TcpRecoveryOps>());
        tcp->AddSocket(s);
        return s;
    }
    void DoDispose() override { m_node = nullptr; SocketFactory::DoDispose(); }

  private:
    Ptr<Node> m_node;
};

struct Params {
    double rate_mbit = 10, delay_ms = 10, loss_percent = 0;
    std::string cc = "newreno";
    uint64_t size_bytes = 1000000;
    uint32_t run = 1;
    uint32_t segment_size = 1448, initial_cwnd = 10;
    bool sack = true, timestamps = true, window_scaling = true;
    uint32_t delack_count = 2;
    double delack_timeout_ms = 40, min_rto_ms = 200, initial_rto_ms = 1000,
           conn_timeout_ms = 1000, clock_granularity_ms = 1;
    uint32_t sndbuf_bytes = 4194304, rcvbuf_bytes = 4194304;
    uint32_t queue_packets = 100, mtu = 1500;
    bool hystart = true, limited_transmit = true;
    uint32_t retx_threshold = 3;
    double max_sim_s = 600;
    double start_s = 0.1;
    std::string trace_path = "";
    bool linux_exit = false;
    bool linux_prr = false;
    bool linux_cwnd = false;
};

static void ApplyDefaults(const Params& P) {
    MptlabLinuxRenoLx::GetTypeId();  // register the --linux-exit variants
    MptlabCubicLx::GetTypeId();
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       StringValue(P.cc == "cubic"       ? (P.linux_exit ? "ns3::MptlabCubicLx" : "ns3::TcpCubic")
                                   : P.cc == "linuxreno" ? (P.linux_exit ? "ns3::MptlabLinuxRenoLx" : "ns3::TcpLinuxReno")
                                                         : "ns3::TcpNewReno"));
    MptlabPrrLinux::GetTypeId();
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       StringValue(P.linux_prr ? "ns3::MptlabPrrLinux" : "ns3::TcpPrrRecovery"));
    Config::SetDefault("ns3::TcpL4Protocol::RttEstimatorType", StringValue("ns3::RttMeanDeviation"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(P.segment_size));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(P.initial_cwnd));
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold", UintegerValue(0xffffffff));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(P.sndbuf_bytes));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(P.rcvbuf_bytes));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(P.delack_count));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(P.delack_timeout_ms)));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(MilliSeconds(P.conn_timeout_ms)));
    Config::SetDefault("ns3::TcpSocket::ConnCount", UintegerValue(6));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(15));
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(P.sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(P.timestamps));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(P.window_scaling));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(P.min_rto_ms)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity",
                       TimeValue(MilliSeconds(P.clock_granularity_ms)));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(P.limited_transmit));
    Config::SetDefault("ns3::TcpSocketBase::ReTxThreshold", UintegerValue(P.retx_threshold));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("Off"));
    Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(false));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation",
                       TimeValue(MilliSeconds(P.initial_rto_ms)));
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(P.hystart));
}

RunResult RunTransfer(const Params& P) {
    g_rx = 0; g_target = P.size_bytes; g_done = Seconds(-1); g_res = RunResult();
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(P.run);
    Ipv4AddressGenerator::Reset();
    ApplyDefaults(P);

    NodeContainer nodes;
    nodes.Create(2);  // node 0: sender (BulkSend, active opener), node 1: receiver (PacketSink)

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(P.rate_mbit * 1e6))));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(P.mtu));
    p2p.SetChannelAttribute("Delay", TimeValue(MicroSeconds(int64_t(P.delay_ms * 1000.0))));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
                 QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, P.queue_packets)));
    NetDeviceContainer devs = p2p.Install(nodes);

    // Random loss on the receiver's device: only the sender->receiver direction
    // (data segments, plus the SYN / handshake ACK / FIN of the sender).
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    em->SetRate(P.loss_percent / 100.0);
    em->AssignStreams(7);  // pinned stream: depends only on (seed, run)
    devs.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));

    InternetStackHelper stack;
    stack.Install(nodes);
    stack.AssignStreams(nodes, 100);
    Ipv4AddressHelper addr;
    addr.SetBase("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer ifs = addr.Assign(devs);
    // Ipv4AddressHelper::Assign installs the default FqCoDel queue disc; remove it so the
    // bottleneck is a plain DropTail device queue.
    TrafficControlHelper tch;
    tch.Uninstall(devs);

    uint16_t port = 5001;
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinkApp = sink.Install(nodes.Get(1));
    sinkApp.Start(Seconds(0));

    std::string sockFactory = "ns3::TcpSocketFactory";
    if (P.linux_cwnd) {  // sender only: the receiver does not use the send test
        Ptr<MptlabTcpSocketFactory> f = CreateObject<MptlabTcpSocketFactory>();
        f->SetNode(nodes.Get(0));
        nodes.Get(0)->AggregateObject(f);
        sockFactory = "ns3::MptlabTcpSocketFactory";
    }
    BulkSendHelper bulk(sockFactory, InetSocketAddress(ifs.GetAddress(1), port));
    bulk.SetAttribute("MaxBytes", UintegerValue(P.size_bytes));
    bulk.SetAttribute("SendSize", UintegerValue(P.segment_size));
    ApplicationContainer bulkApp = bulk.Install(nodes.Get(0));
    g_start = Seconds(P.start_s);
    bulkApp.Start(g_start);

    sinkApp.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&SinkRx));
    g_anyTx = false;
    Simulator::Schedule(g_start + NanoSeconds(1), &HookSocket, bulkApp.Get(0));
    devs.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&PhyTx));
    devs.Get(1)->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&PhyRxDrop));
    Ptr<PointToPointNetDevice> d0 = DynamicCast<PointToPointNetDevice>(devs.Get(0));
    d0->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&QueueDrop));
    // With no queue disc, the traffic-control layer drops a packet when the device queue
    // is full ("stopped"); that is where tail drops actually happen.
    nodes.Get(0)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
        "TcDrop", MakeCallback(&QueueDrop));

    if (!P.trace_path.empty()) {
        g_trace = fopen(P.trace_path.c_str(), "w");
        devs.Get(1)->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&TrRxDrop));
        nodes.Get(0)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
            "TcDrop", MakeCallback(&TrQDrop));
    }

    Simulator::Stop(Seconds(P.start_s + P.max_sim_s));
    Simulator::Run();
    if (g_trace) { fclose(g_trace); g_trace = nullptr; }
    g_res.rx_bytes = g_rx;
    g_res.sim_end_s = Simulator::Now().GetSeconds();
    if (!g_done.IsNegative()) g_res.completion_ms = (g_done - g_start).GetSeconds() * 1000.0;
    Simulator::Destroy();
    return g_res;
}

// Saturated single flow for the speed benchmark: BulkSend with MaxBytes=0 for sim_s.
RunResult RunSaturated(const Params& P, double sim_s) {
    g_rx = 0; g_target = UINT64_MAX; g_done = Seconds(-1); g_res = RunResult();
    Params Q = P;
    Q.size_bytes = 0;
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(P.run);
    Ipv4AddressGenerator::Reset();
    ApplyDefaults(Q);
    NodeContainer nodes; nodes.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(P.rate_mbit * 1e6))));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(P.mtu));
    p2p.SetChannelAttribute("Delay", TimeValue(MicroSeconds(int64_t(P.delay_ms * 1000.0))));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
                 QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, P.queue_packets)));
    NetDeviceContainer devs = p2p.Install(nodes);
    InternetStackHelper stack; stack.Install(nodes);
    Ipv4AddressHelper addr; addr.SetBase("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer ifs = addr.Assign(devs);
    TrafficControlHelper tch; tch.Uninstall(devs);
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 5001));
    ApplicationContainer sinkApp = sink.Install(nodes.Get(1));
    BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(ifs.GetAddress(1), 5001));
    bulk.SetAttribute("MaxBytes", UintegerValue(0));
    bulk.SetAttribute("SendSize", UintegerValue(P.segment_size));
    ApplicationContainer bulkApp = bulk.Install(nodes.Get(0));
    bulkApp.Start(Seconds(P.start_s));
    sinkApp.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&SinkRx));
    devs.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&PhyTx));
    Simulator::Stop(Seconds(P.start_s + sim_s));
    Simulator::Run();
    g_res.rx_bytes = g_rx;
    g_res.sim_end_s = Simulator::Now().GetSeconds();
    Simulator::Destroy();
    return g_res;
}
}  // namespace mptlab_ns3
"""

_NS = None  # (cppyy, ns) once loaded in this process


NS3_MISSING = (
    "error: ns-3 Python bindings not found (no module 'ns3' for {exe}).\n"
    "Install them with:  python3.11 -m venv /work/ns3venv && "
    "/work/ns3venv/bin/pip install ns3==3.44.post0\n"
    "and run this script with that interpreter (see tools/ns3/README.md)."
)


def require_ns3():
    """Fail fast (without the ~9 s import) if the ns3 wheel is not installed."""
    import importlib.util

    if importlib.util.find_spec("ns3") is None:
        sys.exit(NS3_MISSING.format(exe=sys.executable))


def load_ns3():
    """Import ns-3 and compile the C++ scenario; clear error if ns-3 is missing."""
    global _NS
    if _NS is not None:
        return _NS
    try:
        import ns3  # noqa: F401  (the PyPI wheel's package)
    except ImportError:
        sys.exit(NS3_MISSING.format(exe=sys.executable))
    # The wheel prints harmless "Failed to materialize symbols" lines on import; silence
    # stderr during the import only.
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        from ns import ns  # noqa: F401
        import cppyy
    finally:
        os.dup2(saved, 2)
        os.close(devnull)
        os.close(saved)
    if not cppyy.cppdef(CPP):
        sys.exit("error: compiling the ns-3 scenario (C++) failed")
    _NS = (cppyy, ns)
    return _NS


def make_params(cfg: dict, combo: Combo, cc: str, size: int, seed: int):
    cppyy, _ = load_ns3()
    P = cppyy.gbl.mptlab_ns3.Params()
    P.rate_mbit = float(combo.rate_mbit)
    P.delay_ms = float(combo.delay_ms)
    P.loss_percent = float(combo.loss_percent)
    P.cc = cc
    P.size_bytes = int(size)
    P.run = int(seed)
    for k in (
        "segment_size",
        "initial_cwnd",
        "delack_count",
        "sndbuf_bytes",
        "rcvbuf_bytes",
        "queue_packets",
        "mtu",
        "retx_threshold",
    ):
        setattr(P, k, int(cfg[k]))
    for k in (
        "delack_timeout_ms",
        "min_rto_ms",
        "initial_rto_ms",
        "conn_timeout_ms",
        "clock_granularity_ms",
        "max_sim_s",
    ):
        setattr(P, k, float(cfg[k]))
    for k in ("sack", "timestamps", "window_scaling", "hystart", "limited_transmit", "linux_exit", "linux_prr",
              "linux_cwnd"):
        setattr(P, k, bool(cfg[k]))
    return P


def run_one(task):
    cfg, combo, cc, size, seed = task
    cppyy, _ = load_ns3()
    P = make_params(cfg, combo, cc, size, seed)
    t0 = time.perf_counter()
    r = cppyy.gbl.mptlab_ns3.RunTransfer(P)
    wall = time.perf_counter() - t0
    done = r.completion_ms >= 0 and r.rx_bytes >= size
    row = dict(
        combo=combo.name,
        rate_mbit=combo.rate_mbit,
        delay_ms=combo.delay_ms,
        loss_percent=combo.loss_percent,
        cc=cc,
        size_bytes=size,
        seed=seed,
        completion_ms=f"{r.completion_ms:.3f}" if done else "",
        retransmissions=int(r.retransmissions),
        data_pkts_sent=int(r.data_pkts_sent),
        pkts_lost_random=int(r.lost_random),
        pkts_dropped_queue=int(r.dropped_queue),
        rto_events=int(r.rto_events),
        fast_recoveries=int(r.fast_recoveries),
    )
    return row, wall, int(r.data_pkts_sent)


_INIT_ERROR = None


def _worker_init():
    # Never exit from a Pool initializer (the pool would respawn workers forever);
    # remember the error and raise it from the first task instead.
    global _INIT_ERROR
    try:
        load_ns3()
    except SystemExit as e:
        _INIT_ERROR = str(e.code)


def run_one_checked(task):
    if _INIT_ERROR:
        raise RuntimeError(_INIT_ERROR)
    return run_one(task)


def size_label(size_bytes: int) -> str:
    """1,024,000 -> '1MB', 10,240,000 -> '10MB' (1 "MB" = 1000 KiB here); else bytes."""
    if size_bytes % 1024_000 == 0:
        return f"{size_bytes // 1024_000}MB"
    if size_bytes % 1024 == 0:
        return f"{size_bytes // 1024}KiB"
    return f"{size_bytes}B"


def fmt_num(x):
    return f"{x:g}"


def print_medians(rows, out=sys.stdout):
    groups = {}
    for r in rows:
        key = (r["combo"], r["cc"], int(r["size_bytes"]))
        groups.setdefault(key, []).append(r)
    combo_order = {c.name: i for i, c in enumerate(COMBOS)}
    hdr = (
        f"{'combo':6} {'rate':>5} {'delay':>5} {'loss%':>5} {'cc':8} {'size':>6} "
        f"{'n':>3} {'median_ms':>10} {'min_ms':>9} {'max_ms':>9} {'med_retx':>8}"
    )
    print(hdr, file=out)
    print("-" * len(hdr), file=out)
    for key in sorted(groups, key=lambda k: (combo_order.get(k[0], 99), k[0], k[2], k[1])):
        g = groups[key]
        ct = [float(r["completion_ms"]) for r in g if r["completion_ms"] not in ("", None)]
        rx = [int(r["retransmissions"]) for r in g]
        r0 = g[0]
        med = statistics.median(ct) if ct else math.nan
        print(
            f"{key[0]:6} {fmt_num(float(r0['rate_mbit'])):>5} {fmt_num(float(r0['delay_ms'])):>5} "
            f"{fmt_num(float(r0['loss_percent'])):>5} {key[1]:8} {size_label(key[2]):>6} "
            f"{len(ct):>3} {med:>10.1f} {min(ct) if ct else math.nan:>9.1f} "
            f"{max(ct) if ct else math.nan:>9.1f} {statistics.median(rx):>8g}",
            file=out,
        )
        if len(ct) < len(g):
            print(f"       ({len(g) - len(ct)} run(s) did not complete)", file=out)


def bench(cfg, rate_mbit, delay_ms, sim_s, seed):
    """Saturated single flow: simulated data packets per wall-clock second (one core)."""
    cppyy, _ = load_ns3()
    combo = Combo("bench", rate_mbit, delay_ms, 0.0)
    P = make_params(cfg, combo, "newreno", 0, seed)
    # warm-up (first call includes JIT of the C++ code path)
    cppyy.gbl.mptlab_ns3.RunSaturated(P, 1.0)
    res = {}
    for cc in ("newreno", "cubic"):
        P.cc = cc
        t0, c0 = time.perf_counter(), time.process_time()
        r = cppyy.gbl.mptlab_ns3.RunSaturated(P, float(sim_s))
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        res[cc] = (int(r.data_pkts_sent), wall, r.rx_bytes * 8 / sim_s / 1e6)
        print(
            f"bench {cc:8}: {rate_mbit:g} Mbit/s, one-way {delay_ms:g} ms (RTT {2 * delay_ms:g} ms), "
            f"{sim_s:g} s simulated: {r.data_pkts_sent} data pkts in {wall:.2f} s wall "
            f"= {r.data_pkts_sent / wall:,.0f} data pkts/s "
            f"(CPU {cpu:.2f} s = {r.data_pkts_sent / cpu:,.0f}/CPU-s); goodput {res[cc][2]:.2f} Mbit/s"
        )
    return res


def dump_config(path):
    """Write the effective ns-3 attribute values (after our SetDefaults) to a text file."""
    cppyy, ns = load_ns3()
    P = make_params(DEFAULTS, COMBOS[0], "cubic", 1000, 1)
    cppyy.gbl.mptlab_ns3.ApplyDefaults(P)
    lines = [f"# ns-3 {ns3_version()} attribute values as configured by ns3_reference.py"]
    for name in (
        "ns3::TcpL4Protocol",
        "ns3::TcpSocket",
        "ns3::TcpSocketBase",
        "ns3::TcpSocketState",
        "ns3::TcpCubic",
        "ns3::RttEstimator",
        "ns3::RttMeanDeviation",
    ):
        tid = ns.TypeId.LookupByName(name)
        lines.append(f"[{name}]")
        for i in range(tid.GetAttributeN()):
            info = tid.GetAttribute(i)
            v = info.initialValue
            if name == "ns3::TcpL4Protocol" and info.name == "SocketList":
                continue
            s = v.SerializeToString(info.checker) if v else "(none)"
            lines.append(f"  {info.name} = {s}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {path}")


def ns3_version():
    try:
        from importlib.metadata import version

        return version("ns3")
    except Exception:
        return "unknown"


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=10, help="number of seeds (RngSeedManager run numbers)")
    ap.add_argument("--seed-start", type=int, default=1, help="first run number")
    ap.add_argument("--jobs", type=int, default=2, help="parallel worker processes")
    ap.add_argument("--combos", default=",".join(c.name for c in COMBOS), help="comma list of combo names")
    ap.add_argument("--ccs", default=",".join(CCS), help="comma list of newreno,cubic,linuxreno")
    ap.add_argument("--sizes", default=",".join(str(s) for s in SIZES), help="comma list of bytes")
    ap.add_argument("--out", default=os.path.join(here, "results", "ns3_reference.csv"))
    ap.add_argument("--queue-packets", type=int, default=DEFAULTS["queue_packets"])
    ap.add_argument("--delack-timeout-ms", type=float, default=DEFAULTS["delack_timeout_ms"])
    ap.add_argument("--no-hystart", action="store_true", help="turn TcpCubic HyStart off")
    ap.add_argument(
        "--linux-exit",
        action="store_true",
        help="linuxreno/cubic: on the ACK that ends fast recovery, grow cwnd by the segments "
        "that ACK newly delivered (Linux) instead of ns-3's whole cumulative jump; linuxreno "
        "also restarts its increase counter at a reduction (Linux). See README",
    )
    ap.add_argument(
        "--linux-prr",
        action="store_true",
        help="PRR as Linux runs it: no extra segment per duplicate ACK, RecoverFS = cwnd at "
        "entry (ns-3: pipe). See README",
    )
    ap.add_argument(
        "--linux-cwnd",
        action="store_true",
        help="send test in whole segments as Linux tcp_cwnd_test (packets in flight < cwnd): "
        "a short segment needs a whole MSS of room (ns-3: any room >= its length). See README",
    )
    ap.add_argument(
        "--linux-like",
        action="store_true",
        help="--linux-exit and --linux-prr (the committed *_linuxlike.csv files; unchanged)",
    )
    ap.add_argument("--linux-all", action="store_true", help="--linux-like and --linux-cwnd")
    ap.add_argument("--bench", action="store_true", help="only run the packets/s benchmark")
    ap.add_argument("--bench-rate-mbit", type=float, default=20)
    ap.add_argument("--bench-delay-ms", type=float, default=20, help="one-way (RTT = 2x)")
    ap.add_argument("--bench-sim-s", type=float, default=60)
    ap.add_argument(
        "--trace",
        metavar="FILE",
        help="event trace of the sender (cwnd, ssthresh, bytes in flight, congestion state, "
        "srtt, segments sent, random losses, tail drops) as CSV t_ms,kind,value; "
        "runs the first combo, cc and size given, for each seed ({seed} in FILE is "
        "replaced by the seed)",
    )
    ap.add_argument("--dump-config", metavar="FILE", help="write effective ns-3 attributes and exit")
    a = ap.parse_args(argv)

    require_ns3()
    cfg = dict(DEFAULTS)
    cfg["queue_packets"] = a.queue_packets
    cfg["delack_timeout_ms"] = a.delack_timeout_ms
    cfg["hystart"] = not a.no_hystart
    cfg["linux_exit"] = a.linux_exit or a.linux_like or a.linux_all
    cfg["linux_prr"] = a.linux_prr or a.linux_like or a.linux_all
    cfg["linux_cwnd"] = a.linux_cwnd or a.linux_all

    if a.dump_config:
        dump_config(a.dump_config)
        sys.stdout.flush()
        os._exit(0)  # cppyy/ns-3 teardown can segfault after Config::SetDefault; nothing left to do
    if a.bench:
        t0 = time.perf_counter()
        load_ns3()
        print(f"ns-3 import + C++ compile: {time.perf_counter() - t0:.1f} s")
        bench(cfg, a.bench_rate_mbit, a.bench_delay_ms, a.bench_sim_s, a.seed_start)
        return 0

    by_name = {c.name: c for c in COMBOS}
    combos = []
    for n in a.combos.split(","):
        if n not in by_name:
            ap.error(f"unknown combo {n!r}; known: {', '.join(by_name)}")
        combos.append(by_name[n])
    ccs = [c.strip() for c in a.ccs.split(",") if c.strip()]
    for c in ccs:
        if c not in KNOWN_CCS:
            ap.error(f"unknown cc {c!r}; known: {', '.join(KNOWN_CCS)}")
    sizes = [int(s) for s in a.sizes.split(",")]
    seeds = list(range(a.seed_start, a.seed_start + a.seeds))

    if a.trace:
        cppyy, _ = load_ns3()
        if len(seeds) > 1 and "{seed}" not in a.trace:
            ap.error("--trace with several seeds needs {seed} in the file name")
        for seed in seeds:
            P = make_params(cfg, combos[0], ccs[0], sizes[0], seed)
            P.trace_path = a.trace.replace("{seed}", str(seed))
            r = cppyy.gbl.mptlab_ns3.RunTransfer(P)
            print(
                f"{combos[0].name} {ccs[0]} {size_label(sizes[0])} seed {seed}: "
                f"{r.completion_ms:.1f} ms, {r.lost_random} random losses, {r.dropped_queue} tail drops, "
                f"{r.fast_recoveries} recoveries, {r.rto_events} RTOs, {r.retransmissions} retransmissions; "
                f"trace in {P.trace_path}"
            )
        return 0

    tasks = [(cfg, c, cc, s, sd) for c in combos for cc in ccs for s in sizes for sd in seeds]
    # longest first (simulated duration ~ size / rate) for better load balance
    tasks.sort(key=lambda t: -(t[3] / t[1].rate_mbit))
    print(
        f"ns-3 {ns3_version()}: {len(combos)} combos x {len(ccs)} ccs x {len(sizes)} sizes x "
        f"{len(seeds)} seeds = {len(tasks)} runs on {a.jobs} process(es)",
        flush=True,
    )

    t0 = time.perf_counter()
    rows, sim_wall, pkts = [], 0.0, 0
    if a.jobs <= 1:
        load_ns3()
        results = map(run_one, tasks)
        pool = None
    else:
        pool = mp.get_context("fork").Pool(a.jobs, initializer=_worker_init)
        results = pool.imap_unordered(run_one_checked, tasks, chunksize=1)
    for i, (row, wall, npk) in enumerate(results, 1):
        rows.append(row)
        sim_wall += wall
        pkts += npk
        if i % 20 == 0 or i == len(tasks):
            print(f"  {i}/{len(tasks)} runs done, {time.perf_counter() - t0:.0f} s", flush=True)
    if pool is not None:
        pool.close()
        pool.join()
    total = time.perf_counter() - t0

    combo_order = {c.name: i for i, c in enumerate(COMBOS)}
    rows.sort(key=lambda r: (combo_order[r["combo"]], r["cc"], r["size_bytes"], r["seed"]))
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    fields = CSV_FIELDS
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {a.out} ({len(rows)} rows)")
    print()
    print_medians(rows)
    print()
    print(
        f"total wall time: {total:.1f} s ({a.jobs} process(es), incl. ~9 s ns-3 import per process); "
        f"time inside simulations: {sim_wall:.1f} s for {pkts} data packets "
        f"({pkts / sim_wall if sim_wall else 0:,.0f} data pkts/s per core)"
    )
    incomplete = sum(1 for r in rows if not r["completion_ms"])
    if incomplete:
        print(f"WARNING: {incomplete} run(s) did not complete within {cfg['max_sim_s']} s simulated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
