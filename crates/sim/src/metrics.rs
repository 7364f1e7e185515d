//! What a run measures, as rows; `output.rs` turns them into result tables.

use std::collections::VecDeque;

use mptlab_core::{FlowId, Nanos};

/// One application message (a video frame, a game packet).
#[derive(Clone, Debug, PartialEq)]
pub struct MessageRow {
    pub flow: FlowId,
    pub msg_id: u64,
    pub bytes: u32,
    pub send_time: Nanos,
    /// When the last byte was handed to the receiving application in order;
    /// `None` if it never was before the run ended (or was lost, for UDP).
    pub delivery_time: Option<Nanos>,
    /// RFC 3550 interarrival jitter estimate after this message, in ns.
    pub jitter: Option<f64>,
}

/// A finite transfer: a web page or a file.
#[derive(Clone, Debug, PartialEq)]
pub struct TransferRow {
    pub flow: FlowId,
    pub label: String,
    pub kind: &'static str,
    pub objects: u32,
    pub bytes: u64,
    pub start_time: Nanos,
    pub end_time: Option<Nanos>,
}

/// Everything the apps report at the end of a run.
#[derive(Default, Debug)]
pub struct Report {
    pub messages: Vec<MessageRow>,
    pub transfers: Vec<TransferRow>,
}

/// Running interarrival jitter per RFC 3550 section 6.4.1 (and A.8):
/// J(i) = J(i-1) + (|D(i-1,i)| - J(i-1)) / 16, where D is the difference of
/// the transit times (delivery - send) of consecutive messages.
#[derive(Clone, Debug, Default)]
pub struct Jitter {
    last_transit: Option<i128>,
    j: f64,
}

impl Jitter {
    pub fn update(&mut self, send: Nanos, recv: Nanos) -> f64 {
        let transit = recv as i128 - send as i128;
        if let Some(prev) = self.last_transit {
            let d = (transit - prev).abs() as f64;
            self.j += (d - self.j) / 16.0;
        }
        self.last_transit = Some(transit);
        self.j
    }
}

/// Message boundaries in a byte stream: the sender records where each
/// message ends; cumulative in-order delivery resolves them in order.
#[derive(Clone, Debug, Default)]
pub struct StreamMessages {
    flow: FlowId,
    next_offset: u64,
    next_id: u64,
    pending: VecDeque<(u64, u64, u32, Nanos)>, // (id, end offset, bytes, send time)
    jitter: Jitter,
    pub rows: Vec<MessageRow>,
}

impl StreamMessages {
    pub fn new(flow: FlowId) -> Self {
        StreamMessages { flow, ..Default::default() }
    }

    /// A message of `bytes` was generated at `now`.
    pub fn sent(&mut self, now: Nanos, bytes: u32) {
        self.next_offset += bytes as u64;
        self.pending.push_back((self.next_id, self.next_offset, bytes, now));
        self.next_id += 1;
    }

    /// The receiver now has `total` bytes in order.
    pub fn delivered(&mut self, now: Nanos, total: u64) {
        while let Some(&(id, end, bytes, sent)) = self.pending.front() {
            if end > total {
                break;
            }
            self.pending.pop_front();
            let j = self.jitter.update(sent, now);
            self.rows.push(MessageRow { flow: self.flow, msg_id: id, bytes, send_time: sent, delivery_time: Some(now), jitter: Some(j) });
        }
    }

    /// Rows for every message, undelivered ones last with no delivery time.
    pub fn finish(&self) -> Vec<MessageRow> {
        let mut v = self.rows.clone();
        for &(id, _, bytes, sent) in &self.pending {
            v.push(MessageRow { flow: self.flow, msg_id: id, bytes, send_time: sent, delivery_time: None, jitter: None });
        }
        v
    }

    /// True when every message generated so far has been delivered.
    pub fn all_delivered(&self) -> bool {
        self.pending.is_empty()
    }

    pub fn bytes_generated(&self) -> u64 {
        self.next_offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_follows_rfc3550() {
        let mut j = Jitter::default();
        assert_eq!(j.update(0, 100), 0.0);
        // transit 100 -> 132: D = 32, J = 0 + 32/16 = 2
        assert_eq!(j.update(1000, 1132), 2.0);
        // transit 132 -> 132: D = 0, J = 2 + (0 - 2)/16 = 1.875
        assert_eq!(j.update(2000, 2132), 1.875);
    }

    #[test]
    fn stream_messages_resolve_in_order() {
        let mut m = StreamMessages::new(3);
        m.sent(10, 100);
        m.sent(20, 50);
        m.sent(30, 10);
        m.delivered(40, 120); // only the first is complete
        assert_eq!(m.rows.len(), 1);
        m.delivered(50, 160);
        assert_eq!(m.rows.len(), 3);
        assert_eq!(m.rows[2].delivery_time, Some(50));
        assert_eq!(m.finish().len(), 3);
    }
}
