//! Application-level message metrics, sans-IO.
//!
//! Seed 000 measures "application message delay": the time from the
//! application handing a message to the transport until the receiver can read
//! it completely. Over a byte stream (TCP, MPTCP) a message occupies a range of
//! stream offsets and is complete when the in-order delivered byte count
//! reaches its end; [`MessageLog`] keeps the pending messages in a queue and
//! pops them as the count advances, so each message costs O(1) amortised.
//! Jitter is the RFC 3550 interarrival jitter (section 6.4.1, code in A.8).

use std::collections::VecDeque;
use std::ops::Range;

use crate::time::Nanos;

/// A message that has been completely delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub id: u64,
    /// Stream offsets [start, end).
    pub start: u64,
    pub end: u64,
    pub sent_at: Nanos,
    pub delivered_at: Nanos,
}

impl Delivery {
    /// One-way application delay.
    pub fn delay(&self) -> Nanos {
        self.delivered_at.saturating_sub(self.sent_at)
    }
}

#[derive(Clone, Copy, Debug)]
struct Pending {
    id: u64,
    start: u64,
    end: u64,
    sent_at: Nanos,
}

/// Sender-side record of messages written to a byte stream, resolved against
/// the receiver's in-order delivered byte count.
#[derive(Clone, Debug, Default)]
pub struct MessageLog {
    pending: VecDeque<Pending>,
    next_offset: u64,
    delivered: u64,
    jitter: Jitter,
}

impl MessageLog {
    pub fn new() -> Self {
        Self::default()
    }

    /// Record that message `id` of `bytes` was written at `sent_at`; returns
    /// its stream offset range. Messages occupy the stream back to back in
    /// the order recorded.
    pub fn record(&mut self, id: u64, bytes: u64, sent_at: Nanos) -> Result<Range<u64>, String> {
        if bytes == 0 {
            return Err(format!(
                "message {id}: empty messages cannot be delimited in a byte stream"
            ));
        }
        let start = self.next_offset;
        self.next_offset += bytes;
        self.pending.push_back(Pending {
            id,
            start,
            end: self.next_offset,
            sent_at,
        });
        Ok(start..self.next_offset)
    }

    /// The receiver has `cumulative` in-order bytes at `now`. Returns the
    /// messages this completes, in stream order, and updates the jitter.
    /// A count lower than an earlier one is ignored.
    pub fn on_delivered(&mut self, cumulative: u64, now: Nanos) -> Vec<Delivery> {
        let mut out = Vec::new();
        if cumulative <= self.delivered {
            return out;
        }
        self.delivered = cumulative;
        while let Some(p) = self.pending.front() {
            if p.end > cumulative {
                break;
            }
            let p = self.pending.pop_front().unwrap_or_else(|| unreachable!());
            self.jitter.update(p.sent_at, now);
            out.push(Delivery {
                id: p.id,
                start: p.start,
                end: p.end,
                sent_at: p.sent_at,
                delivered_at: now,
            });
        }
        out
    }

    /// Messages written but not yet delivered.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Messages written but not yet delivered: (id, bytes, sent_at), in order.
    pub fn pending_messages(&self) -> impl Iterator<Item = (u64, u64, Nanos)> + '_ {
        self.pending
            .iter()
            .map(|p| (p.id, p.end - p.start, p.sent_at))
    }

    /// Bytes recorded so far (the next message's start offset).
    pub fn recorded_bytes(&self) -> u64 {
        self.next_offset
    }

    pub fn jitter(&self) -> &Jitter {
        &self.jitter
    }
}

/// RFC 3550 interarrival jitter estimator:
/// D(i-1,i) = (R_i - R_{i-1}) - (S_i - S_{i-1}),  J += (|D| - J) / 16.
/// Kept in f64 nanoseconds (the RFC's integer version scales by 16 instead).
#[derive(Clone, Copy, Debug, Default)]
pub struct Jitter {
    last: Option<(Nanos, Nanos)>,
    j: f64,
}

impl Jitter {
    /// Feed one message: its send and receive times, in delivery order.
    pub fn update(&mut self, sent: Nanos, received: Nanos) {
        if let Some((s0, r0)) = self.last {
            let d = (received as f64 - r0 as f64) - (sent as f64 - s0 as f64);
            self.j += (d.abs() - self.j) / 16.0;
        }
        self.last = Some((sent, received));
    }

    /// Current estimate, ns.
    pub fn ns(&self) -> f64 {
        self.j
    }
}

/// Nearest-rank percentile (`p` in [0, 100]) of `values`; sorts in place.
/// `None` for an empty slice or a `p` out of range; NaNs sort last.
pub fn percentile(values: &mut [f64], p: f64) -> Option<f64> {
    if values.is_empty() || !(0.0..=100.0).contains(&p) {
        return None;
    }
    values.sort_by(|a, b| a.total_cmp(b));
    let rank = ((p / 100.0) * values.len() as f64).ceil() as usize;
    Some(values[rank.clamp(1, values.len()) - 1])
}

/// Arithmetic mean, `None` when empty.
pub fn mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        None
    } else {
        Some(values.iter().sum::<f64>() / values.len() as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_messages_in_order() {
        let mut log = MessageLog::new();
        assert_eq!(log.record(1, 100, 0).unwrap(), 0..100);
        assert_eq!(log.record(2, 50, 10).unwrap(), 100..150);
        assert_eq!(log.record(3, 10, 20).unwrap(), 150..160);
        assert!(log.on_delivered(99, 30).is_empty());
        let d = log.on_delivered(155, 40);
        assert_eq!(d.iter().map(|d| d.id).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(d[0].delay(), 40);
        assert_eq!(d[1].delay(), 30);
        assert!(log.on_delivered(150, 50).is_empty());
        let d = log.on_delivered(160, 60);
        assert_eq!((d[0].id, d[0].delay()), (3, 40));
        assert_eq!(log.pending(), 0);
        assert!(log.record(4, 0, 0).is_err());
    }

    #[test]
    fn jitter_follows_rfc3550() {
        let mut j = Jitter::default();
        j.update(0, 100);
        assert_eq!(j.ns(), 0.0);
        // transit 100 then 132: |D| = 32, J = 32/16 = 2
        j.update(20, 152);
        assert_eq!(j.ns(), 2.0);
        // transit 132 then 132: J = 2 + (0 - 2)/16
        j.update(40, 172);
        assert!((j.ns() - 1.875).abs() < 1e-12);
        // constant transit keeps jitter decaying to zero
        let mut k = Jitter::default();
        for i in 0..100 {
            k.update(i * 33, i * 33 + 50);
        }
        assert_eq!(k.ns(), 0.0);
    }

    #[test]
    fn many_messages_are_linear() {
        let mut log = MessageLog::new();
        for i in 0..100_000u64 {
            log.record(i, 1000, i).unwrap();
        }
        let mut n = 0;
        for k in 1..=1000u64 {
            n += log.on_delivered(k * 100_000, 1_000_000 + k).len();
        }
        assert_eq!(n, 100_000);
    }

    #[test]
    fn percentiles() {
        let mut v = vec![5.0, 1.0, 3.0, 2.0, 4.0];
        assert_eq!(percentile(&mut v, 50.0), Some(3.0));
        assert_eq!(percentile(&mut v, 100.0), Some(5.0));
        assert_eq!(percentile(&mut v, 0.0), Some(1.0));
        assert_eq!(percentile(&mut v, 90.0), Some(5.0));
        assert_eq!(percentile(&mut [], 50.0), None);
        assert_eq!(percentile(&mut v, 101.0), None);
        assert_eq!(mean(&[1.0, 2.0]), Some(1.5));
    }
}
