//! Where the traffic agent's messages start in each byte stream, so the
//! writer can put the agent's 24-byte framing header (crates/emu/src/agent.rs,
//! docs/emulation.md) at each message start: message id u64, generation time
//! u64 ns, chunk u16, chunks u16, message length u32, big endian.
//!
//! The simulator's applications announce each message as they generate it
//! (`Capture::message`), before its bytes are written, so every segment
//! finds its messages here when it is encoded.

use std::collections::HashMap;

use mptlab_core::{FlowId, Nanos};

/// Bytes of the agent's message header.
pub const HDR_LEN: usize = 24;

/// The agent header of chunk `chunk` of `chunks` of a message.
pub fn header(id: u64, gen: Nanos, chunk: u16, chunks: u16, len: u32) -> [u8; HDR_LEN] {
    let mut h = [0u8; HDR_LEN];
    h[..8].copy_from_slice(&id.to_be_bytes());
    h[8..16].copy_from_slice(&gen.to_be_bytes());
    h[16..18].copy_from_slice(&chunk.to_be_bytes());
    h[18..20].copy_from_slice(&chunks.to_be_bytes());
    h[20..24].copy_from_slice(&len.to_be_bytes());
    h
}

#[derive(Clone, Copy, Debug)]
struct Msg {
    /// Stream offset (byte streams) or first datagram number (UDP).
    at: u64,
    id: u64,
    gen: Nanos,
    len: u32,
    /// Datagrams of the message (UDP), 1 for streams.
    chunks: u32,
}

#[derive(Default, Debug)]
struct Log {
    msgs: Vec<Msg>,
    next_id: u64,
    /// Next free stream offset / datagram number.
    next_at: u64,
}

/// Messages per (flow, sender is the client).
#[derive(Default, Debug)]
pub struct Messages {
    logs: HashMap<(FlowId, bool), Log>,
}

impl Messages {
    /// A message of `len` bytes generated at `gen` was written into a byte
    /// stream (TCP, MPTCP, SCTP): it starts where the previous one ended.
    pub fn stream(&mut self, flow: FlowId, from_client: bool, gen: Nanos, len: u32) {
        let l = self.logs.entry((flow, from_client)).or_default();
        l.msgs.push(Msg {
            at: l.next_at,
            id: l.next_id,
            gen,
            len,
            chunks: 1,
        });
        l.next_id += 1;
        l.next_at += len as u64;
    }

    /// A message the send call refused: it takes an id, no bytes.
    pub fn refused(&mut self, flow: FlowId, from_client: bool) {
        self.logs.entry((flow, from_client)).or_default().next_id += 1;
    }

    /// A message sent as `chunks` datagrams (UDP).
    pub fn datagrams(
        &mut self,
        flow: FlowId,
        from_client: bool,
        gen: Nanos,
        len: u32,
        chunks: u32,
    ) {
        let l = self.logs.entry((flow, from_client)).or_default();
        l.msgs.push(Msg {
            at: l.next_at,
            id: l.next_id,
            gen,
            len,
            chunks,
        });
        l.next_id += 1;
        l.next_at += chunks as u64;
    }

    /// Write the headers of the messages overlapping stream bytes
    /// `[off, off + buf.len())` into `buf` (a header cut by the segment
    /// boundary is written in part, the rest goes with the next segment).
    pub fn frame_stream(&self, flow: FlowId, from_client: bool, off: u64, buf: &mut [u8]) {
        let Some(l) = self.logs.get(&(flow, from_client)) else {
            return;
        };
        let end = off + buf.len() as u64;
        // first message whose header may reach into the range
        let mut i = l.msgs.partition_point(|m| m.at + (HDR_LEN as u64) <= off);
        while let Some(m) = l.msgs.get(i) {
            if m.at >= end {
                break;
            }
            let h = header(m.id, m.gen, 0, 1, m.len);
            let hlen = (HDR_LEN as u64).min(m.len as u64);
            // copy h[a..b] to buf at m.at + a - off
            let a = off.saturating_sub(m.at);
            let b = hlen.min(end - m.at);
            if a < b {
                let dst = (m.at + a - off) as usize;
                buf[dst..dst + (b - a) as usize].copy_from_slice(&h[a as usize..b as usize]);
            }
            i += 1;
        }
    }

    /// Write the header of datagram `seq` of a flow into `buf`, if it belongs
    /// to an announced message (every datagram of a message carries one).
    pub fn frame_datagram(&self, flow: FlowId, from_client: bool, seq: u64, buf: &mut [u8]) {
        let Some(l) = self.logs.get(&(flow, from_client)) else {
            return;
        };
        let i = l.msgs.partition_point(|m| m.at + m.chunks as u64 <= seq);
        if let Some(m) = l.msgs.get(i).filter(|m| m.at <= seq) {
            let h = header(m.id, m.gen, (seq - m.at) as u16, m.chunks as u16, m.len);
            let n = buf.len().min(HDR_LEN);
            buf[..n].copy_from_slice(&h[..n]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_land_at_message_starts_even_across_segments() {
        let mut m = Messages::default();
        m.stream(3, true, 7, 30);
        m.stream(3, true, 9, 100);
        // one segment of the whole 130 bytes
        let mut all = vec![0u8; 130];
        m.frame_stream(3, true, 0, &mut all);
        assert_eq!(all[..24], header(0, 7, 0, 1, 30));
        assert_eq!(all[30..54], header(1, 9, 0, 1, 100));
        // the same bytes in segments of 10: identical stream
        let mut pieces = vec![0u8; 130];
        for off in (0..130).step_by(10) {
            m.frame_stream(3, true, off as u64, &mut pieces[off..off + 10]);
        }
        assert_eq!(all, pieces);
        // the other direction has no messages
        let mut other = vec![0u8; 40];
        m.frame_stream(3, false, 0, &mut other);
        assert!(other.iter().all(|&b| b == 0));
    }

    #[test]
    fn short_messages_get_a_cut_header_and_refusals_take_ids() {
        let mut m = Messages::default();
        m.refused(1, false);
        m.stream(1, false, 5, 10);
        let mut b = vec![0u8; 10];
        m.frame_stream(1, false, 0, &mut b);
        assert_eq!(b, header(1, 5, 0, 1, 10)[..10]);
    }

    #[test]
    fn every_datagram_carries_its_chunk_number() {
        let mut m = Messages::default();
        m.datagrams(0, true, 1, 3000, 3);
        m.datagrams(0, true, 2, 10, 1);
        let mut b = [0u8; 24];
        m.frame_datagram(0, true, 2, &mut b);
        assert_eq!(b, header(0, 1, 2, 3, 3000));
        m.frame_datagram(0, true, 3, &mut b);
        assert_eq!(b, header(1, 2, 0, 1, 10));
    }
}
