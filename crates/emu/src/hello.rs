//! The traffic agent's hello and its ACK take no loss draw when the
//! simulated twin has no hello.
//!
//! The emulator draws loss per link direction and per admitted packet from
//! the simulator's own stream (`link_stream`), so the k-th packet of a
//! direction is lost on the kernel exactly when the simulator's k-th packet
//! is. The agent opens every connection with a 16-byte hello
//! (`mptlab_core::traffic::framing`, `b"MPTL"` first), which the scenario
//! does not contain unless it sets `traffic.client_hello_bytes` (message
//! models and files over TCP / MPTCP only). Without that key the hello is one extra
//! packet on the uplink and the server's pure ACK of it one extra packet on
//! the downlink, and every later loss hits the kernel's packet one index
//! earlier than the simulator's (traced on seed 000's NorNet video over
//! WLAN, docs/report.md; measured in docs/emulation.md, "The agent's hello
//! and the loss draws"). The simulator is right about the scenario; the
//! emulator's extra packets are what must not count.
//!
//! So the emulator offers these packets with `LinkModel::offer_without_loss`:
//! - a TCP segment whose payload is exactly a 16-byte hello (the hello and
//!   any retransmission of it), when the scenario has no TCP hello;
//! - the first pure ACK (no payload, flags ACK only) of that connection's
//!   server acknowledging exactly the hello's end, once per direction it
//!   crosses (path and server link);
//! - a UDP datagram of 16 bytes starting with the magic (the UDP agent's
//!   hello, which the simulator never models).
//!
//! The ACK can only be recognised with the hello's sequence number, so one
//! `HelloFilter` is shared by all directions of an emulator.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use mptlab_core::traffic::framing::{HELLO_LEN, MAGIC};

/// A connection whose hello was seen, waiting for the server's pure ACK.
#[derive(Clone, Debug, PartialEq)]
struct Pending {
    client: ([u8; 4], u16),
    server: ([u8; 4], u16),
    /// The sequence number after the hello: what the server's ACK carries.
    ack: u32,
    /// Directions (bit per direction index) that already exempted the ACK.
    done: u64,
}

/// Which packets of the agent's hello exchange to exempt; shared by all
/// directions of one emulator.
#[derive(Debug)]
pub struct HelloFilter {
    /// Exempt TCP hellos and their ACKs (the scenario has no
    /// `client_hello_bytes`). UDP hellos are always exempt.
    tcp: bool,
    /// Any connection pending (skips the lock for ordinary ACKs).
    any: AtomicBool,
    pending: Mutex<Vec<Pending>>,
}

/// What a packet is, as far as the hello exchange goes.
struct Parsed<'a> {
    proto: u8,
    src: [u8; 4],
    dst: [u8; 4],
    sport: u16,
    dport: u16,
    seq: u32,
    ack: u32,
    flags: u8,
    payload: &'a [u8],
}

fn parse(p: &[u8]) -> Option<Parsed<'_>> {
    if p.len() < 20 || p[0] >> 4 != 4 {
        return None;
    }
    let ihl = (p[0] & 0x0f) as usize * 4;
    let total = (u16::from_be_bytes([p[2], p[3]]) as usize).min(p.len());
    // Fragments carry no transport header of their own.
    if ihl < 20 || total < ihl || u16::from_be_bytes([p[6], p[7]]) & 0x3fff != 0 {
        return None;
    }
    let proto = p[9];
    let src = [p[12], p[13], p[14], p[15]];
    let dst = [p[16], p[17], p[18], p[19]];
    let l4 = &p[ihl..total];
    let be16 = |b: &[u8], i: usize| u16::from_be_bytes([b[i], b[i + 1]]);
    let be32 = |b: &[u8], i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    match proto {
        6 if l4.len() >= 20 => {
            let doff = (l4[12] >> 4) as usize * 4;
            (doff >= 20 && doff <= l4.len()).then(|| Parsed {
                proto,
                src,
                dst,
                sport: be16(l4, 0),
                dport: be16(l4, 2),
                seq: be32(l4, 4),
                ack: be32(l4, 8),
                flags: l4[13],
                payload: &l4[doff..],
            })
        }
        17 if l4.len() >= 8 => Some(Parsed {
            proto,
            src,
            dst,
            sport: be16(l4, 0),
            dport: be16(l4, 2),
            seq: 0,
            ack: 0,
            flags: 0,
            payload: &l4[8..],
        }),
        _ => None,
    }
}

const TCP_ACK: u8 = 0x10;

fn is_hello(payload: &[u8]) -> bool {
    payload.len() == HELLO_LEN && &payload[0..4] == MAGIC
}

impl HelloFilter {
    /// `tcp_hello_in_scenario`: the simulated twin sends the hello too
    /// (`traffic.client_hello_bytes` > 0), so TCP hellos count as usual.
    pub fn new(tcp_hello_in_scenario: bool) -> HelloFilter {
        HelloFilter {
            tcp: !tcp_hello_in_scenario,
            any: AtomicBool::new(false),
            pending: Mutex::new(Vec::new()),
        }
    }

    /// Whether direction `dir` (index, below 64) offers `pkt` without a
    /// loss draw.
    pub fn exempt(&self, dir: usize, pkt: &[u8]) -> bool {
        let Some(p) = parse(pkt) else {
            return false;
        };
        match p.proto {
            17 => is_hello(p.payload),
            _ if !self.tcp => false,
            _ if is_hello(p.payload) => {
                let c = Pending {
                    client: (p.src, p.sport),
                    server: (p.dst, p.dport),
                    ack: p.seq.wrapping_add(HELLO_LEN as u32),
                    done: 0,
                };
                let mut v = self.pending.lock().unwrap_or_else(|e| e.into_inner());
                if !v
                    .iter()
                    .any(|x| x.client == c.client && x.server == c.server)
                {
                    v.push(c);
                }
                self.any.store(true, Ordering::Relaxed);
                true
            }
            _ if p.payload.is_empty() && p.flags == TCP_ACK && self.any.load(Ordering::Relaxed) => {
                let bit = 1u64 << (dir % 64);
                let mut v = self.pending.lock().unwrap_or_else(|e| e.into_inner());
                match v.iter_mut().find(|x| {
                    x.server == (p.src, p.sport) && x.client == (p.dst, p.dport) && x.ack == p.ack
                }) {
                    Some(x) if x.done & bit == 0 => {
                        x.done |= bit;
                        true
                    }
                    _ => false,
                }
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mptlab_core::traffic::framing::hello;

    /// An IPv4 TCP segment (20-byte headers, no options).
    fn tcp(
        src: [u8; 4],
        dst: [u8; 4],
        ports: (u16, u16),
        seq: u32,
        ack: u32,
        flags: u8,
        payload: &[u8],
    ) -> Vec<u8> {
        let total = 40 + payload.len();
        let mut p = vec![0u8; total];
        p[0] = 0x45;
        p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        p[9] = 6;
        p[12..16].copy_from_slice(&src);
        p[16..20].copy_from_slice(&dst);
        p[20..22].copy_from_slice(&ports.0.to_be_bytes());
        p[22..24].copy_from_slice(&ports.1.to_be_bytes());
        p[24..28].copy_from_slice(&seq.to_be_bytes());
        p[28..32].copy_from_slice(&ack.to_be_bytes());
        p[32] = 5 << 4;
        p[33] = flags;
        p[40..].copy_from_slice(payload);
        p
    }

    const C: [u8; 4] = [10, 1, 0, 2];
    const S: [u8; 4] = [10, 0, 0, 2];

    #[test]
    fn hello_and_the_first_pure_ack_of_it_are_exempt_once_per_direction() {
        let f = HelloFilter::new(false);
        let h = hello(2, 0, 7);
        let hello_pkt = tcp(C, S, (40000, 8080), 1000, 1, TCP_ACK | 0x08, &h);
        assert!(f.exempt(0, &hello_pkt));
        // The server's ACK of it, on the server link (dir 5) and the path (dir 1).
        let ack = tcp(S, C, (8080, 40000), 1, 1016, TCP_ACK, &[]);
        assert!(f.exempt(5, &ack));
        assert!(f.exempt(1, &ack));
        // A later duplicate of the same ACK is scenario traffic.
        assert!(!f.exempt(1, &ack));
        // Data from the server, also acknowledging the hello: counted.
        let data = tcp(S, C, (8080, 40000), 1, 1016, TCP_ACK, &[0u8; 1400]);
        assert!(!f.exempt(1, &data));
        // An ACK of something else, another connection's, a SYN: counted.
        assert!(!f.exempt(2, &tcp(S, C, (8080, 40000), 1, 1015, TCP_ACK, &[])));
        assert!(!f.exempt(2, &tcp(S, C, (8080, 40001), 1, 1016, TCP_ACK, &[])));
        assert!(!f.exempt(0, &tcp(C, S, (40002, 8080), 5, 0, 0x02, &[])));
        // A 16-byte payload that is not a hello: counted.
        assert!(!f.exempt(0, &tcp(C, S, (40000, 8080), 1016, 1, TCP_ACK, &[0u8; 16])));
    }

    /// With the hello and its ACK offered without a draw, the scenario's
    /// k-th packet gets the draw of a link that never saw them (the
    /// simulator's); offered with a draw (the old emulator) every loss
    /// moves one packet earlier.
    #[test]
    fn exempt_packets_leave_the_scenarios_loss_positions_alone() {
        use crate::emulator::{offer, EmuOptions};
        use mptlab_core::link::{link_stream, LinkModel, LinkParams, QueueLimit, Verdict};
        use mptlab_core::loss::LossModel;
        use mptlab_core::time::MS;
        let mut params = LinkParams::new(10_000_000, 10 * MS, QueueLimit::Packets(10_000));
        params.loss = LossModel::Bernoulli { p: 0.05 };
        let lost = |with_hello: Option<bool>| -> Vec<usize> {
            let mut m = LinkModel::new(params.clone(), link_stream(3, "path1", false));
            let opts = EmuOptions {
                hello: with_hello.map(|t| std::sync::Arc::new(HelloFilter::new(t))),
                ..EmuOptions::default()
            };
            let mut t = 0;
            if with_hello.is_some() {
                // The agent's hello (up, index 0) then the server's ACK of it (down, index 1).
                let h = tcp(C, S, (40000, 8080), 1000, 1, TCP_ACK, &hello(2, 0, 7));
                let _ = offer(&mut m, &opts, 0, t, &h);
                let a = tcp(S, C, (8080, 40000), 1, 1016, TCP_ACK, &[]);
                let _ = offer(&mut m, &opts, 1, t, &a);
            }
            (0..400)
                .filter(|&k| {
                    t += MS;
                    let d = tcp(
                        S,
                        C,
                        (8080, 40000),
                        1 + 1400 * k as u32,
                        1016,
                        TCP_ACK,
                        &[0; 1400],
                    );
                    matches!(offer(&mut m, &opts, 1, t, &d), Verdict::DropLoss)
                })
                .collect()
        };
        let sim = lost(None);
        assert!(sim.len() >= 5, "{sim:?}");
        // The scenario has no hello: the emulator's hello packets are exempt.
        assert_eq!(lost(Some(false)), sim);
        // Counted (the scenario has the hello, or the old emulator): shifted.
        let counted = lost(Some(true));
        assert_ne!(counted, sim);
    }

    #[test]
    fn a_scenario_with_the_hello_counts_tcp_hellos_but_never_udp_ones() {
        let f = HelloFilter::new(true);
        let h = hello(1, 0, 7);
        assert!(!f.exempt(0, &tcp(C, S, (40000, 8080), 1000, 1, TCP_ACK, &h)));
        assert!(!f.exempt(1, &tcp(S, C, (8080, 40000), 1, 1016, TCP_ACK, &[])));
        // UDP: 20-byte IP header, 8-byte UDP header, the hello.
        let mut u = vec![0u8; 28 + HELLO_LEN];
        u[0] = 0x45;
        u[2..4].copy_from_slice(&((28 + HELLO_LEN) as u16).to_be_bytes());
        u[9] = 17;
        u[28..].copy_from_slice(&h);
        assert!(f.exempt(0, &u));
        u[28] = b'X';
        assert!(!f.exempt(0, &u));
    }
}
