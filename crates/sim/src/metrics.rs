//! What a run measures, as raw records (not the result tables' rows:
//! `mptlab_results::rows` has those); `output.rs` turns them into tables.

use mptlab_core::traffic::metrics::MessageLog;
use mptlab_core::{FlowId, Nanos};
use mptlab_results::records::Transfer;

/// One application message (a video frame, a game packet).
#[derive(Clone, Debug, PartialEq)]
pub struct MessageRecord {
    pub flow: FlowId,
    pub msg_id: u64,
    pub bytes: u32,
    pub send_time: Nanos,
    /// When the last byte was handed to the receiving application in order;
    /// `None` if it never was before the run ended (or was lost, for UDP).
    pub delivery_time: Option<Nanos>,
    /// RFC 3550 interarrival jitter estimate after this message, in ns.
    pub jitter: Option<f64>,
    /// The send call refused the message (SCTP: larger than the send
    /// buffer, `EMSGSIZE`): it never entered the transport.
    pub refused: bool,
}

/// A finite transfer (a web page or a file) of a flow; the record is the
/// emulator's too (`mptlab_results::records`).
pub type TransferRecord = (FlowId, Transfer);

/// Everything the apps report at the end of a run.
#[derive(Default, Debug)]
pub struct Report {
    pub messages: Vec<MessageRecord>,
    pub transfers: Vec<TransferRecord>,
}

pub use mptlab_core::traffic::metrics::Jitter;

/// Message boundaries in a byte stream, measured: wraps the traffic models'
/// `MessageLog` and keeps a row per delivered message.
#[derive(Clone, Debug, Default)]
pub struct StreamMessages {
    flow: FlowId,
    next_id: u64,
    log: MessageLog,
    pub rows: Vec<MessageRecord>,
    /// Messages the send call refused: (id, bytes, generation time).
    refused: Vec<(u64, u32, Nanos)>,
}

impl StreamMessages {
    pub fn new(flow: FlowId) -> Self {
        StreamMessages {
            flow,
            ..Default::default()
        }
    }

    /// A message of `bytes` (> 0) was generated at `now`.
    pub fn sent(&mut self, now: Nanos, bytes: u32) {
        // Zero-byte messages cannot be delimited in a stream; models never emit them.
        if self.log.record(self.next_id, bytes as u64, now).is_ok() {
            self.next_id += 1;
        }
    }

    /// A message of `bytes` generated at `now` was refused by the send call
    /// (it takes a message id but no place in the byte stream).
    pub fn refused(&mut self, now: Nanos, bytes: u32) {
        self.refused.push((self.next_id, bytes, now));
        self.next_id += 1;
    }

    /// Messages refused so far.
    pub fn refused_count(&self) -> usize {
        self.refused.len()
    }

    /// The receiver now has `total` bytes in order.
    pub fn delivered(&mut self, now: Nanos, total: u64) {
        for d in self.log.on_delivered(total, now) {
            self.rows.push(MessageRecord {
                flow: self.flow,
                msg_id: d.id,
                bytes: (d.end - d.start) as u32,
                send_time: d.sent_at,
                delivery_time: Some(now),
                jitter: None,
                refused: false,
            });
        }
        // Jitter after the latest message (the log updates it in delivery order).
        if let Some(last) = self.rows.last_mut() {
            last.jitter = Some(self.log.jitter().ns());
        }
    }

    /// Rows for every message, undelivered ones last with no delivery time
    /// (those still pending, then the refused ones).
    pub fn finish(&self) -> Vec<MessageRecord> {
        let mut v = self.rows.clone();
        for (id, bytes, sent) in self.log.pending_messages() {
            v.push(MessageRecord {
                flow: self.flow,
                msg_id: id,
                bytes: bytes as u32,
                send_time: sent,
                delivery_time: None,
                jitter: None,
                refused: false,
            });
        }
        for &(id, bytes, sent) in &self.refused {
            v.push(MessageRecord {
                flow: self.flow,
                msg_id: id,
                bytes,
                send_time: sent,
                delivery_time: None,
                jitter: None,
                refused: true,
            });
        }
        v
    }

    /// True when every message generated so far has been delivered.
    pub fn all_delivered(&self) -> bool {
        self.log.pending() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
