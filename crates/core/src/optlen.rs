//! TCP option space as Linux 6.18 fills it: which options a segment carries on
//! the wire and how many bytes they take, alignment included.
//!
//! Linux builds every option 4-byte aligned (`net/ipv4/tcp_output.c`
//! `tcp_options_write`: `NOP NOP TS`, `NOP WS`, `NOP NOP SACK`; MPTCP
//! suboptions `ALIGN`ed in `net/mptcp/options.c`), so a segment's option
//! length is the sum of aligned pieces, never packed. The same [`Layout`]
//! sizes the simulated packet (`TcpSegment::options_len`) and tells the
//! capture writer which options to write, so Wireshark shows the header
//! lengths the simulated links serialised.
//!
//! Sizing order, as `tcp_established_options`: timestamps, then MPTCP
//! (`mptcp_established_options`: MP_CAPABLE/MP_JOIN third ACK *or* DSS, then
//! ADD_ADDR *or* REMOVE_ADDR, then MP_PRIO), then SACK blocks in what
//! remains ("MPTCP options have precedence over SACK"). SYNs follow
//! `tcp_syn_options` / `tcp_synack_options` with `mptcp_syn_options` /
//! `mptcp_synack_options`.

use crate::packet::{flags, IpVersion, MptcpOptions, TcpSegment, MAX_SACK_BLOCKS};

/// `MAX_TCP_OPTION_SPACE`.
pub const MAX_OPTION_SPACE: u32 = 40;

// include/net/tcp.h
const MSS_LEN: u32 = 4; // TCPOLEN_MSS
const TS_ALIGNED: u32 = 12; // TCPOLEN_TSTAMP_ALIGNED (NOP NOP TS, or SACKPERM TS)
const WSCALE_ALIGNED: u32 = 4; // TCPOLEN_WSCALE_ALIGNED
const SACKPERM_ALIGNED: u32 = 4; // TCPOLEN_SACKPERM_ALIGNED
const SACK_BASE_ALIGNED: u32 = 4; // TCPOLEN_SACK_BASE_ALIGNED
const SACK_PERBLOCK: u32 = 8; // TCPOLEN_SACK_PERBLOCK

// net/mptcp/protocol.h
pub const MPC_SYN: u32 = 4; // TCPOLEN_MPTCP_MPC_SYN
pub const MPC_SYNACK: u32 = 12; // TCPOLEN_MPTCP_MPC_SYNACK
pub const MPC_ACK: u32 = 20; // TCPOLEN_MPTCP_MPC_ACK
pub const MPC_ACK_DATA: u32 = 22; // TCPOLEN_MPTCP_MPC_ACK_DATA
pub const MPJ_SYN: u32 = 12; // TCPOLEN_MPTCP_MPJ_SYN
pub const MPJ_SYNACK: u32 = 16; // TCPOLEN_MPTCP_MPJ_SYNACK
pub const MPJ_ACK: u32 = 24; // TCPOLEN_MPTCP_MPJ_ACK
const DSS_BASE: u32 = 4; // TCPOLEN_MPTCP_DSS_BASE
const DSS_ACK32: u32 = 4; // TCPOLEN_MPTCP_DSS_ACK32
const DSS_ACK64: u32 = 8; // TCPOLEN_MPTCP_DSS_ACK64
const DSS_MAP64: u32 = 14; // TCPOLEN_MPTCP_DSS_MAP64 (Linux sends only 64-bit DSNs)
const DSS_CHECKSUM: u32 = 2; // TCPOLEN_MPTCP_DSS_CHECKSUM
const PRIO_ALIGN: u32 = 4; // TCPOLEN_MPTCP_PRIO_ALIGN
const RM_ADDR_BASE: u32 = 3; // TCPOLEN_MPTCP_RM_ADDR_BASE
const FASTCLOSE: u32 = 12; // TCPOLEN_MPTCP_FASTCLOSE
pub const MP_RST: u32 = 4; // TCPOLEN_MPTCP_RST

fn align4(x: u32) -> u32 {
    (x + 3) & !3
}

/// Which MPTCP suboption leads the MPTCP part of a segment (they are
/// mutually exclusive, `mptcp_write_options`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MpMain {
    #[default]
    None,
    /// The DSS (DATA_ACK and/or mapping).
    Dss,
    /// MP_CAPABLE (SYN, SYN/ACK, third ACK or first data).
    Capable,
    /// MP_JOIN (SYN, SYN/ACK or third ACK).
    Join,
    /// ADD_ADDR on a pure ACK, other suboptions dropped.
    AddAddr,
    /// MP_FASTCLOSE on a RST (followed by MP_RST).
    Fastclose,
    /// MP_RST alone on a RST.
    Rst,
}

/// What one segment carries on the wire and its option bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// Total option bytes (a multiple of 4, at most 40).
    pub len: u32,
    /// SACK blocks that fit (the first `sack_blocks` of the segment's).
    pub sack_blocks: usize,
    pub main: MpMain,
    /// MP_RST follows MP_FASTCLOSE (RST segments, room permitting).
    pub rst_after_fastclose: bool,
    /// ADD_ADDR beside the DSS (a segment that is not a pure ACK, room
    /// permitting).
    pub add_addr_beside: bool,
    pub rm_addr: bool,
    pub prio: bool,
}

/// Bytes of an ADD_ADDR (`mptcp_add_addr_len`: the port comes with two
/// trailing NOPs).
pub fn add_addr_len(ip: IpVersion, echo: bool, port: bool) -> u32 {
    let mut len = if ip == IpVersion::V6 { 20 } else { 8 }; // ADD_ADDR(6)_BASE
    if !echo {
        len += 8; // MPTCPOPT_THMAC_LEN
    }
    if port {
        len += 2 + 2; // TCPOLEN_MPTCP_PORT_LEN + TCPOLEN_MPTCP_PORT_ALIGN
    }
    len
}

/// Bytes of a DSS (`mptcp_established_options_dss`): a 64-bit mapping
/// (+ checksum) and/or a DATA_ACK of 4 or 8 bytes, aligned.
pub fn dss_len(map: bool, csum: bool, ack: Option<bool>) -> u32 {
    let mut n = 0;
    if map {
        n = DSS_BASE + DSS_MAP64 + if csum { DSS_CHECKSUM } else { 0 };
    }
    if let Some(ack64) = ack {
        n += if ack64 { DSS_ACK64 } else { DSS_ACK32 };
        if !map {
            n += DSS_BASE;
        }
    }
    align4(n)
}

/// What `tcp_current_mss` takes off a subflow's MSS for MPTCP beyond the
/// timestamps: the DSS estimated without an skb (`mptcp_established_options_dss`
/// with `skb == NULL`: a mapping without checksum, since there is no
/// extension, plus the DATA_ACK at its current width), aligned: 24 with a
/// 32-bit DATA_ACK, 28 with a 64-bit one. The checksum's 2 bytes fit in the
/// same alignment either way.
pub fn dss_mss_overhead(ack64: bool) -> u32 {
    dss_len(true, false, Some(ack64))
}

/// SACK blocks that fit in `remaining` option bytes (`tcp_established_options`).
pub fn sack_fit(remaining: u32, wanted: usize) -> usize {
    if remaining < SACK_BASE_ALIGNED + SACK_PERBLOCK {
        return 0;
    }
    wanted.min(((remaining - SACK_BASE_ALIGNED) / SACK_PERBLOCK) as usize)
}

/// Option bytes `n` SACK blocks add (`TCPOLEN_SACK_BASE_ALIGNED` + 8 per block).
pub fn sack_len(n: usize) -> u32 {
    if n == 0 {
        0
    } else {
        SACK_BASE_ALIGNED + SACK_PERBLOCK * n as u32
    }
}

/// MPTCP part of an established segment (`mptcp_established_options`).
/// Inlined for the data path's segments, which carry neither a control
/// option nor RST: of all the suboptions only the DSS can then be there
/// (every other one below needs `control`), so the answer is
/// `dss_part`'s, as the general form would give it. The general form stays
/// out of line (docs/performance.md "Session 23 pass: the htsim scenario's
/// per-packet path": the call was 41 instructions on each of 241,614
/// segments built in the htsim scenario).
#[inline]
fn mptcp_established(s: &TcpSegment, m: &MptcpOptions, remaining: u32, l: &mut Layout) -> u32 {
    if m.control.is_none() && !s.has(flags::RST) {
        return dss_part(m, l);
    }
    mptcp_established_general(s, m, remaining, l)
}

/// The DSS's bytes (`mptcp_established_options_dss`), `l.main` set if any.
#[inline(always)]
fn dss_part(m: &MptcpOptions, l: &mut Layout) -> u32 {
    let Some(d) = &m.dss else { return 0 };
    let n = dss_len(d.dsn().is_some(), d.csum, d.data_ack().map(|_| d.ack64()));
    if n > 0 {
        l.main = MpMain::Dss;
    }
    n
}

/// `mptcp_established` with control options or RST.
#[inline(never)]
fn mptcp_established_general(
    s: &TcpSegment,
    m: &MptcpOptions,
    remaining: u32,
    l: &mut Layout,
) -> u32 {
    let c = m.control.as_deref();
    if s.has(flags::RST) {
        // MP_FASTCLOSE, then MP_RST if there is room.
        let mut n = 0;
        if c.is_some_and(|c| c.fastclose) && remaining >= FASTCLOSE {
            n = FASTCLOSE;
            l.main = MpMain::Fastclose;
        }
        if remaining - n >= MP_RST {
            if l.main == MpMain::Fastclose {
                l.rst_after_fastclose = true;
            } else {
                l.main = MpMain::Rst;
            }
            n += MP_RST;
        }
        return n;
    }
    let mut n;
    // `mptcp_established_options_mp`: the third ACK (or first data) of
    // MP_CAPABLE / MP_JOIN replaces the DSS.
    if c.is_some_and(|c| c.capable.is_some()) {
        l.main = MpMain::Capable;
        n = if s.len > 0 {
            let csum = m.dss.is_some_and(|d| d.csum);
            align4(MPC_ACK_DATA + if csum { DSS_CHECKSUM } else { 0 })
        } else {
            MPC_ACK
        };
    } else if c.is_some_and(|c| c.join.is_some()) {
        l.main = MpMain::Join;
        n = MPJ_ACK;
    } else {
        n = dss_part(m, l);
    }
    let pure_ack = s.len == 0 && s.flags & (flags::SYN | flags::FIN | flags::RST) == 0;
    if let Some(a) = c.and_then(|c| c.add_addr) {
        // `mptcp_established_options_add_addr`: not beside MPC/MPJ; on a
        // pure ACK every other suboption is dropped (`mptcp_pm_add_addr_signal`).
        let len = add_addr_len(a.ip, a.echo, a.port.is_some());
        if !matches!(l.main, MpMain::Capable | MpMain::Join) {
            if pure_ack {
                l.main = MpMain::AddAddr;
                n = len;
            } else if remaining >= n + len {
                l.add_addr_beside = true;
                n += len;
            }
        }
    } else if c.is_some_and(|c| c.remove_addr.is_some()) {
        // `mptcp_rm_addr_len` for one id: 3 + 1.
        let len = align4(RM_ADDR_BASE + 1);
        if remaining >= n + len {
            l.rm_addr = true;
            n += len;
        }
    }
    // `mptcp_established_options_mp_prio`: not with MP_CAPABLE.
    if c.is_some_and(|c| c.prio_backup.is_some())
        && l.main != MpMain::Capable
        && remaining >= n + PRIO_ALIGN
    {
        l.prio = true;
        n += PRIO_ALIGN;
    }
    n
}

/// The wire layout of `s`.
#[inline]
pub fn layout(s: &TcpSegment) -> Layout {
    layout_with(s, s.mptcp.as_ref())
}

/// The wire layout of `s` if it carried the MPTCP options `mptcp`.
pub fn layout_with(s: &TcpSegment, mptcp: Option<&MptcpOptions>) -> Layout {
    let mut l = Layout::default();
    let ts = s.ts().is_some();
    if s.has(flags::SYN) {
        // `tcp_syn_options` / `tcp_synack_options`: MSS, timestamps (with
        // SACK-permitted in their first word), window scale, SACK-permitted
        // alone, then MPTCP.
        let mut n = 0;
        if s.mss().is_some() {
            n += MSS_LEN;
        }
        if ts {
            n += TS_ALIGNED;
        }
        if s.wscale.is_some() {
            n += WSCALE_ALIGNED;
        }
        if s.sack_permitted && !ts {
            n += SACKPERM_ALIGNED;
        }
        if let Some(c) = mptcp.and_then(|m| m.control.as_deref()) {
            let ack = s.has(flags::ACK);
            if c.capable.is_some() {
                l.main = MpMain::Capable;
                n += if ack { MPC_SYNACK } else { MPC_SYN };
            } else if c.join.is_some() {
                l.main = MpMain::Join;
                n += if ack { MPJ_SYNACK } else { MPJ_SYN };
            }
        }
        l.len = n.min(MAX_OPTION_SPACE);
        return l;
    }
    let mut n = if ts { TS_ALIGNED } else { 0 };
    if let Some(m) = mptcp {
        n += mptcp_established(s, m, MAX_OPTION_SPACE - n, &mut l);
    }
    let want = s.sack_len().min(MAX_SACK_BLOCKS);
    if want > 0 {
        l.sack_blocks = sack_fit(MAX_OPTION_SPACE.saturating_sub(n), want);
        n += sack_len(l.sack_blocks);
    }
    l.len = n.min(MAX_OPTION_SPACE);
    l
}

/// SACK blocks an established segment may carry beside its other options
/// (`tcp_established_options`): what the 40 bytes leave after timestamps
/// (`ts`) and the segment's MPTCP options.
pub fn sack_room(s: &TcpSegment, ts: bool) -> usize {
    Established::of(s, ts).sack_room()
}

/// The option bytes of an established (not SYN) segment before its SACK
/// blocks: timestamps, then the MPTCP options (`tcp_established_options`
/// sizes them in this order). Computed once per built segment, it gives both
/// the SACK room and, once the blocks are filled in, the segment's option
/// length, so the builders need not lay the segment out a second time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Established {
    base: u32,
}

impl Established {
    /// `s` must not be a SYN, and carry timestamps iff `ts` once built.
    #[inline]
    pub fn of(s: &TcpSegment, ts: bool) -> Established {
        let mut n = if ts { TS_ALIGNED } else { 0 };
        if let Some(m) = &s.mptcp {
            let mut l = Layout::default();
            n += mptcp_established(s, m, MAX_OPTION_SPACE - n, &mut l);
        }
        Established { base: n }
    }

    /// SACK blocks that fit beside the other options.
    #[inline]
    pub fn sack_room(self) -> usize {
        sack_fit(MAX_OPTION_SPACE.saturating_sub(self.base), MAX_SACK_BLOCKS)
    }

    /// Total option bytes with `sack_blocks` (at most `sack_room`) blocks:
    /// `layout(s).len` of the finished segment.
    #[inline]
    pub fn len(self, sack_blocks: usize) -> u32 {
        (self.base + sack_len(sack_blocks)).min(MAX_OPTION_SPACE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{AddAddr, Dss, MpCapable, MpJoin, MptcpControl, SackBlock};

    fn seg(f: u8, ts: bool) -> TcpSegment {
        let mut s = TcpSegment::new(1, 2);
        s.flags = f;
        if ts {
            s.set_ts(Some((1, 1)));
        }
        s
    }

    fn dss(map: bool, ack64: bool) -> MptcpOptions {
        let mut d = Dss::with_data_ack(1);
        d.set_ack64(ack64);
        if map {
            d.set_dsn(Some(1));
            d.map_len = 1000;
        }
        MptcpOptions {
            dss: Some(d),
            control: None,
        }
    }

    #[test]
    fn syns_as_linux_writes_them() {
        // MSS 4 + SACKPERM/TS 12 + WS 4 = 20 (+ MP_CAPABLE 4 in the SYN,
        // 12 in the SYN/ACK; MP_JOIN 12 / 16), as in a 6.18 capture.
        let mut s = seg(flags::SYN, true);
        s.set_mss(Some(1460));
        s.wscale = Some(7);
        s.sack_permitted = true;
        assert_eq!(layout(&s).len, 20);
        let cap = MptcpControl {
            capable: Some(MpCapable::default()),
            ..Default::default()
        };
        s.mptcp = Some(MptcpOptions::with_control(cap));
        assert_eq!(layout(&s).len, 24);
        s.flags |= flags::ACK;
        assert_eq!(layout(&s).len, 32);
        let join = MptcpControl {
            join: Some(MpJoin::default()),
            ..Default::default()
        };
        s.mptcp = Some(MptcpOptions::with_control(join));
        assert_eq!(layout(&s).len, 36);
        s.flags = flags::SYN;
        assert_eq!(layout(&s).len, 32);
        // no timestamps: NOP NOP SACKPERM
        let mut s = seg(flags::SYN, false);
        s.set_mss(Some(1460));
        s.wscale = Some(7);
        s.sack_permitted = true;
        assert_eq!(layout(&s).len, 12);
    }

    #[test]
    fn data_segments_and_data_acks() {
        // TS 12 + DSS 26 (mapping + 64-bit DATA_ACK) aligned to 28 = 40:
        // the kernel's 1420-byte payload; with a 32-bit DATA_ACK 22 -> 24.
        let mut s = seg(flags::ACK, true);
        s.len = 1000;
        s.mptcp = Some(dss(true, true));
        assert_eq!(layout(&s).len, 40);
        s.mptcp = Some(dss(true, false));
        assert_eq!(layout(&s).len, 36);
        let mut s = seg(flags::ACK, true);
        s.mptcp = Some(dss(false, true));
        assert_eq!(layout(&s).len, 24);
        s.mptcp = Some(dss(false, false));
        assert_eq!(layout(&s).len, 20);
        assert_eq!(dss_mss_overhead(true), 28);
        assert_eq!(dss_mss_overhead(false), 24);
        // checksum: 28 either way
        assert_eq!(dss_len(true, true, Some(true)), 28);
        assert_eq!(dss_len(true, true, Some(false)), 24);
    }

    #[test]
    fn sack_takes_what_mptcp_leaves() {
        // plain TCP: TS 12 + NOP NOP SACK 2+8n; three blocks = 40
        let mut s = seg(flags::ACK, true);
        for i in 0..3 {
            s.set_sack_block(
                i,
                SackBlock {
                    start: 10 * i as u64 + 5,
                    end: 10 * i as u64 + 8,
                },
            );
        }
        s.set_sack_len(1);
        assert_eq!(layout(&s).len, 24);
        s.set_sack_len(3);
        assert_eq!(layout(&s).len, 40);
        // MPTCP pure ACK with a 64-bit DATA_ACK: 12 + 12 leave 16, one
        // block (the kernel capture's 56-byte SACK ACKs)
        s.mptcp = Some(dss(false, true));
        assert_eq!(layout(&s).sack_blocks, 1);
        assert_eq!(layout(&s).len, 36);
        assert_eq!(sack_room(&s, true), 1);
        // a data segment has no room left
        s.len = 100;
        s.mptcp = Some(dss(true, true));
        assert_eq!(layout(&s).sack_blocks, 0);
    }

    #[test]
    fn third_acks_replace_the_dss() {
        let mut s = seg(flags::ACK, true);
        let mut m = dss(false, false);
        m.control_mut().capable = Some(MpCapable {
            receiver_key: Some(1),
            ..Default::default()
        });
        s.mptcp = Some(m.clone());
        assert_eq!(layout(&s).len, 32);
        assert_eq!(layout(&s).main, MpMain::Capable);
        s.len = 16; // first data: MPC 22 + NOP NOP
        assert_eq!(layout(&s).len, 36);
        let mut m = dss(false, false);
        m.control_mut().join = Some(MpJoin::default());
        s.len = 0;
        s.mptcp = Some(m);
        assert_eq!(layout(&s).len, 36);
    }

    #[test]
    fn add_addr_drops_the_dss_on_a_pure_ack() {
        let mut s = seg(flags::ACK, true);
        let mut m = dss(false, true);
        m.control_mut().add_addr = Some(AddAddr::default());
        s.mptcp = Some(m.clone());
        assert_eq!(layout(&s).len, 12 + 16);
        assert_eq!(layout(&s).main, MpMain::AddAddr);
        m.control_mut().add_addr.as_mut().unwrap().echo = true;
        s.mptcp = Some(m.clone());
        assert_eq!(layout(&s).len, 12 + 8);
        m.control_mut().add_addr.as_mut().unwrap().port = Some(80);
        s.mptcp = Some(m.clone());
        assert_eq!(layout(&s).len, 12 + 12);
        m.control_mut().add_addr.as_mut().unwrap().ip = IpVersion::V6;
        m.control_mut().add_addr.as_mut().unwrap().echo = false;
        s.mptcp = Some(m.clone());
        assert_eq!(layout(&s).len, 12 + 32 - 4); // 32 does not fit beside TS 12 -> capped
        assert_eq!(add_addr_len(IpVersion::V6, false, true), 32);
    }

    #[test]
    fn rst_with_fastclose_and_mp_rst() {
        let mut s = seg(flags::RST | flags::ACK, true);
        let mut m = dss(false, true);
        m.control_mut().fastclose = true;
        s.mptcp = Some(m);
        let l = layout(&s);
        assert_eq!(l.len, 12 + 12 + 4);
        assert!(l.rst_after_fastclose);
    }
}
