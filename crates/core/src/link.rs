//! The link model: one direction of a link, a drop-tail queue in front of a
//! serialiser (fixed rate or a Mahimahi capacity trace), random loss on the
//! wire, propagation delay, and scheduled outages.
//!
//! The model is sans-IO and decides a packet's fate the moment it is offered:
//! because the queue is FIFO and the service process is known in advance, the
//! time each packet starts and finishes serialisation follows from the
//! previous packet's finish time (start_i = max(arrival_i, finish_{i-1})). The
//! simulator therefore needs one event per packet (its arrival at the far end)
//! instead of one per queue operation, and the emulator uses the very same
//! object to decide when to release real packets.
//!
//! Simplifications (documented in docs/models.md): loss is applied on the wire
//! after serialisation (the packet uses capacity, as a frame lost after
//! link-layer retries would), a packet whose serialisation would overlap an
//! outage is dropped (an access point going down loses its queue), and the
//! queue limit counts packets waiting, not the one being serialised (as a
//! qdisc's limit does).

use std::sync::Arc;

use crate::fifo::Fifo;
use crate::loss::{LossModel, LossProcess};
use crate::rng::SimRng;
use crate::time::{tx_time, Nanos};
use crate::trace::{Trace, TraceCursor, OPPORTUNITY_BYTES};

/// Drop-tail queue limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

/// A scheduled outage: the link is down in [start, end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outage {
    pub start: Nanos,
    pub end: Nanos,
}

/// Parameters of one direction of a link, with every random choice already
/// drawn (ranges in a scenario are sampled per run before this is built).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkParams {
    /// Serialisation rate in bit/s (ignored when `trace` is set).
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay: Nanos,
    pub queue: QueueLimit,
    pub loss: LossModel,
    pub trace: Option<Arc<Trace>>,
    /// Sorted, non-overlapping outages.
    pub outages: Vec<Outage>,
}

impl LinkParams {
    pub fn new(rate_bps: u64, delay: Nanos, queue: QueueLimit) -> Self {
        LinkParams {
            rate_bps,
            delay,
            queue,
            loss: LossModel::None,
            trace: None,
            outages: Vec::new(),
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.trace.is_none() && self.rate_bps == 0 {
            return Err("rate must be > 0".into());
        }
        match self.queue {
            QueueLimit::Packets(0) | QueueLimit::Bytes(0) => {
                return Err("queue limit must be > 0".into())
            }
            _ => {}
        }
        self.loss.validate()?;
        for w in self.outages.windows(2) {
            if w[1].start < w[0].end {
                return Err("outages must be sorted and must not overlap".into());
            }
        }
        for o in &self.outages {
            if o.end <= o.start {
                return Err("an outage must end after it starts".into());
            }
        }
        Ok(())
    }

    /// True if the link is down at `t`.
    #[inline]
    pub fn is_down(&self, t: Nanos) -> bool {
        self.outage_overlapping(t, t + 1).is_some()
    }

    /// The first outage overlapping [from, to).
    #[inline]
    fn outage_overlapping(&self, from: Nanos, to: Nanos) -> Option<&Outage> {
        self.outages.iter().find(|o| o.start < to && from < o.end)
    }
}

/// What happens to an offered packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Delivered to the far end at `at`.
    Deliver { at: Nanos },
    /// Dropped at the tail of a full queue.
    DropQueue,
    /// Serialised and then lost on the wire (random loss).
    DropLoss,
    /// Dropped because the link is (or will be, before the packet is sent) down.
    DropOutage,
}

/// Per-direction counters; part of the result schema (links table).
///
/// A packet's two counters of one kind are not neighbours: with
/// `packets_offered` beside `bytes_offered` (and the delivered pair
/// likewise) the compiler added each pair as one two-lane vector, built
/// from the size in a register and a constant, spilled to the stack and
/// reloaded for the delivered pair: 10 instructions an offer where four
/// scalar adds do (docs/performance.md "Session 29 pass"). Users name the
/// fields; the order is not part of the schema.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    pub packets_offered: u64,
    pub packets_delivered: u64,
    pub bytes_offered: u64,
    pub bytes_delivered: u64,
    pub drops_queue: u64,
    pub drops_loss: u64,
    pub drops_outage: u64,
    pub max_queue_packets: u64,
    pub max_queue_bytes: u64,
    /// Sum of queueing delays (arrival to start of serialisation) of the
    /// packets that were sent, for the mean.
    pub queue_delay_sum: u128,
}

/// One direction of a link.
///
/// Laid out by hand (`repr(C)`, 64-byte aligned): the fields `offer_plain`
/// touches on every packet come first and fill exactly three cache lines
/// (queue, serialiser state, the copies of `params.queue` and
/// `params.delay`, statistics); the parameters, loss process and trace
/// cursor follow. With thousands of links in a run most hops miss the cache
/// on their link (docs/performance.md "Scale"), and the compiler's own
/// order had spread the hot fields over more lines.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct LinkModel {
    /// (start of serialisation, size) of accepted packets that have not yet
    /// started serialising at the time of the latest offer: the queue. (A
    /// `Fifo`, a vector with a head index, not a `VecDeque`: the same
    /// 32 bytes, cheaper ends; docs/performance.md "Session 29 pass".)
    waiting: Fifo<(Nanos, u32)>,
    /// When the serialiser is next free.
    free_at: Nanos,
    waiting_bytes: u64,
    /// The last packet size serialised and its serialisation time: most
    /// packets on a direction have the size of the previous one (full data
    /// segments one way, ACKs the other), and this spares the division.
    last_tx: (u32, Nanos),
    /// `params.queue` and `params.delay` (the parameters do not change after
    /// `new`), beside the state they are used with.
    queue: QueueLimit,
    delay: Nanos,
    /// A fixed rate, no outages and no random loss: `offer_packet` takes
    /// the short path (the same arithmetic without the checks that cannot
    /// fire; the htsim-style bench links and most scenario links).
    plain: bool,
    /// `params.outages` is empty: the general path skips the outage checks
    /// without reading the parameters' line (most lossy links, the phones'
    /// Wi-Fi in the scale scenarios).
    outage_free: bool,
    /// `params.trace` is set (the serialiser follows a capacity trace).
    traced: bool,
    stats: LinkStats,
    /// The loss process right after the hot lines: the general path of a
    /// fixed-rate link without outages reads these and the first line of
    /// the loss process (its draw, `LossProcess::DRAW_BYTES`), nothing of
    /// `params` (`hot_lines`).
    loss: LossProcess,
    params: LinkParams,
    cursor: TraceCursor,
    /// Bytes left in the trace opportunity at `cursor` (partly used by the
    /// previous packet), Mahimahi style.
    opp_left: u32,
}

impl LinkModel {
    pub fn new(params: LinkParams, rng: SimRng) -> Self {
        let loss = LossProcess::new(params.loss.clone(), rng);
        let plain = params.trace.is_none()
            && params.outages.is_empty()
            && matches!(params.loss, crate::loss::LossModel::None);
        LinkModel {
            plain,
            outage_free: params.outages.is_empty(),
            traced: params.trace.is_some(),
            last_tx: (0, 0),
            queue: params.queue,
            delay: params.delay,
            params,
            loss,
            waiting: Fifo::new(),
            waiting_bytes: 0,
            free_at: 0,
            cursor: TraceCursor::new(),
            opp_left: OPPORTUNITY_BYTES,
            stats: LinkStats::default(),
        }
    }

    pub fn params(&self) -> &LinkParams {
        &self.params
    }

    /// Whether `offer_packet` takes the short path, which reads only the
    /// model's first three cache lines (the general one also reads the
    /// parameters and the loss process behind them).
    pub fn is_plain(&self) -> bool {
        self.plain
    }

    /// The cache lines from the model's start that `offer_packet` reads:
    /// three on the plain path; four on the general path of a fixed-rate
    /// link without outages and a random loss model (it reads the hot
    /// copies, not `params`, and the loss draw's line); all of them
    /// otherwise. The engine prefetches these
    /// for a link a packet is expected to take.
    pub fn hot_lines(&self) -> usize {
        if self.plain {
            3
        } else if self.outage_free && !self.traced && !self.loss.is_train() {
            (std::mem::offset_of!(LinkModel, loss) + LossProcess::DRAW_BYTES).div_ceil(64)
        } else {
            std::mem::size_of::<LinkModel>().div_ceil(64)
        }
    }

    pub fn stats(&self) -> &LinkStats {
        &self.stats
    }

    /// Packets waiting in the queue at `now` (not counting the one in service).
    pub fn queue_len(&mut self, now: Nanos) -> usize {
        self.expire(now);
        self.waiting.len()
    }

    #[inline]
    fn expire(&mut self, now: Nanos) {
        while let Some((_, size)) = self.waiting.pop_front_if(|&(start, _)| start <= now) {
            self.waiting_bytes -= size as u64;
        }
    }

    /// Finish time of a packet of `size` bytes whose serialisation may start at `start`.
    fn serialise(&mut self, start: Nanos, size: u32) -> (Nanos, Nanos) {
        match self.params.trace.clone() {
            None => (start, start + tx_time(size as u64, self.params.rate_bps)),
            Some(tr) => {
                // Consume opportunities at or after `start` until `size` bytes
                // are covered; leftover bytes of the last one stay available to
                // a packet already waiting (Mahimahi's LinkQueue does the same).
                let mut need = size;
                if self.cursor.time(&tr) < start {
                    self.cursor.seek(&tr, start);
                    self.opp_left = OPPORTUNITY_BYTES;
                }
                let first = self.cursor.time(&tr);
                loop {
                    let take = need.min(self.opp_left);
                    need -= take;
                    self.opp_left -= take;
                    if need == 0 {
                        let done = self.cursor.time(&tr);
                        if self.opp_left == 0 {
                            self.cursor.advance(&tr);
                            self.opp_left = OPPORTUNITY_BYTES;
                        }
                        return (first, done);
                    }
                    self.cursor.advance(&tr);
                    self.opp_left = OPPORTUNITY_BYTES;
                }
            }
        }
    }

    /// Offer a packet of `size` bytes to the link at `now`.
    pub fn offer(&mut self, now: Nanos, size: u32) -> Verdict {
        self.offer_packet(now, size, size)
    }

    /// Offer a packet of `size` bytes carrying `payload` bytes of
    /// application data (0 for pure control packets; the `Train` loss model
    /// counts data packets only).
    ///
    /// The plain path (`offer_plain`, every packet of a fixed-rate link
    /// without outages or random loss) is inlined into the engine's two
    /// callers, which spares a call with six saved registers per hop; the
    /// general path stays a call.
    #[inline(always)]
    pub fn offer_packet(&mut self, now: Nanos, size: u32, payload: u32) -> Verdict {
        if self.plain {
            return self.offer_plain(now, size);
        }
        self.offer_general(now, size, payload)
    }

    /// `offer_packet` for a link that is not `plain`.
    #[inline(never)]
    fn offer_general(&mut self, now: Nanos, size: u32, payload: u32) -> Verdict {
        self.offer_general_draw::<true>(now, size, payload)
    }

    /// Offer a packet that is not part of the scenario's traffic: queued,
    /// serialised, delayed and subject to outages like any other, but it
    /// takes no loss decision, so the random stream stays where it was and
    /// the scenario's k-th packet keeps the simulator's k-th draw. The
    /// emulator uses it for the traffic agent's own hello and its ACK when
    /// the simulated twin has no hello (crates/emu/src/hello.rs).
    pub fn offer_without_loss(&mut self, now: Nanos, size: u32) -> Verdict {
        if self.plain {
            return self.offer_plain(now, size);
        }
        self.offer_general_draw::<false>(now, size, size)
    }

    #[inline(always)]
    fn offer_general_draw<const DRAW: bool>(
        &mut self,
        now: Nanos,
        size: u32,
        payload: u32,
    ) -> Verdict {
        self.stats.packets_offered += 1;
        self.stats.bytes_offered += size as u64;
        // `outage_free`, `traced`, `queue`, `delay` and `last_tx` are the
        // hot copies of `params`: a fixed-rate link without outages takes
        // its decision from the hot lines and the loss process alone.
        if !self.outage_free && self.params.is_down(now) {
            self.stats.drops_outage += 1;
            return Verdict::DropOutage;
        }
        self.expire(now);
        let full = match self.queue {
            QueueLimit::Packets(n) => self.waiting.len() as u64 >= n as u64 && self.free_at > now,
            QueueLimit::Bytes(b) => self.waiting_bytes + size as u64 > b && self.free_at > now,
        };
        if full {
            self.stats.drops_queue += 1;
            return Verdict::DropQueue;
        }
        let earliest = now.max(self.free_at);
        let (start, finish) = if self.traced {
            // With a trace the next opportunity may lie in an outage; check
            // after computing the schedule. Save the cursor to roll back.
            let saved = (self.cursor.clone(), self.opp_left);
            let (s, f) = self.serialise(earliest, size);
            if self.params.outage_overlapping(s, f + 1).is_some() {
                self.cursor = saved.0;
                self.opp_left = saved.1;
                self.stats.drops_outage += 1;
                return Verdict::DropOutage;
            }
            (s, f)
        } else {
            // fixed rate, inline: `serialise` clones the trace handle, which
            // costs more than the arithmetic on this per-packet path
            if self.last_tx.0 != size {
                self.last_tx = (size, tx_time(size as u64, self.params.rate_bps));
            }
            let (s, f) = (earliest, earliest + self.last_tx.1);
            if !self.outage_free && self.params.outage_overlapping(s, f).is_some() {
                self.stats.drops_outage += 1;
                return Verdict::DropOutage;
            }
            (s, f)
        };
        self.free_at = finish;
        if start > now {
            self.waiting.push_back((start, size));
            self.waiting_bytes += size as u64;
            let q = self.waiting.len() as u64;
            if q > self.stats.max_queue_packets {
                self.stats.max_queue_packets = q;
            }
            if self.waiting_bytes > self.stats.max_queue_bytes {
                self.stats.max_queue_bytes = self.waiting_bytes;
            }
        }
        self.stats.queue_delay_sum += (start - now) as u128;
        if DRAW && self.loss.lose_packet(now, payload) {
            self.stats.drops_loss += 1;
            return Verdict::DropLoss;
        }
        self.stats.packets_delivered += 1;
        self.stats.bytes_delivered += size as u64;
        Verdict::Deliver {
            at: finish + self.delay,
        }
    }
}

impl LinkModel {
    /// `offer_packet` for a `plain` link: the steps of the general path that
    /// can act on it, in the same order (no outage can drop the packet and
    /// `LossModel::None` draws nothing, so the random stream is untouched).
    #[inline(always)]
    fn offer_plain(&mut self, now: Nanos, size: u32) -> Verdict {
        self.stats.packets_offered += 1;
        self.stats.bytes_offered += size as u64;
        self.expire(now);
        let full = match self.queue {
            QueueLimit::Packets(n) => self.waiting.len() as u64 >= n as u64 && self.free_at > now,
            QueueLimit::Bytes(b) => self.waiting_bytes + size as u64 > b && self.free_at > now,
        };
        if full {
            self.stats.drops_queue += 1;
            return Verdict::DropQueue;
        }
        let start = now.max(self.free_at);
        if self.last_tx.0 != size {
            self.last_tx = (size, tx_time(size as u64, self.params.rate_bps));
        }
        let finish = start + self.last_tx.1;
        self.free_at = finish;
        if start > now {
            self.waiting.push_back((start, size));
            self.waiting_bytes += size as u64;
            let q = self.waiting.len() as u64;
            if q > self.stats.max_queue_packets {
                self.stats.max_queue_packets = q;
            }
            if self.waiting_bytes > self.stats.max_queue_bytes {
                self.stats.max_queue_bytes = self.waiting_bytes;
            }
        }
        self.stats.queue_delay_sum += (start - now) as u128;
        self.stats.packets_delivered += 1;
        self.stats.bytes_delivered += size as u64;
        Verdict::Deliver {
            at: finish + self.delay,
        }
    }
}

/// The random stream of link `name`'s direction from its client-side end
/// (`up`, "ab" in `mptlab_sim::network`) or towards it, for run seed `seed`.
/// The simulator and the emulator both seed a direction's `LinkModel` with
/// it, so one run seed realizes the same loss draws in both: the k-th packet
/// a direction admits past its queue gets the k-th draw (docs/validation.md,
/// decision-level comparison).
pub fn link_stream(seed: u64, name: &str, up: bool) -> SimRng {
    let dir = if up { "ab" } else { "ba" };
    SimRng::stream(seed, &format!("link/{name}/{dir}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{MS, US};

    /// The fields `offer_plain` touches end within the first three cache
    /// lines of a (64-byte aligned) `LinkModel`.
    #[test]
    fn hot_fields_fill_three_cache_lines() {
        assert_eq!(std::mem::align_of::<LinkModel>(), 64);
        let hot_end = std::mem::offset_of!(LinkModel, stats) + std::mem::size_of::<LinkStats>();
        assert!(hot_end <= 3 * 64, "hot part ends at byte {hot_end}");
        assert!(std::mem::offset_of!(LinkModel, plain) < std::mem::offset_of!(LinkModel, stats));
        assert!(std::mem::offset_of!(LinkModel, traced) < std::mem::offset_of!(LinkModel, stats));
        // the loss process starts on the fourth line, right after them
        assert_eq!(std::mem::offset_of!(LinkModel, loss), 3 * 64);
        // and a draw of a random model reads that one line only
        const { assert!(LossProcess::DRAW_BYTES <= 64) };
    }

    #[test]
    fn a_lossy_link_without_outages_reads_fewer_lines() {
        let all = std::mem::size_of::<LinkModel>().div_ceil(64);
        assert_eq!(link(10, 20, 100).hot_lines(), 3);
        let mut p = LinkParams::new(10_000_000, 20 * MS, QueueLimit::Packets(100));
        p.loss = LossModel::Bernoulli { p: 0.01 };
        let lossy = LinkModel::new(p.clone(), SimRng::from_u64(1)).hot_lines();
        assert!(lossy > 3 && lossy < all, "{lossy} of {all}");
        // the three hot lines and the loss draw's one
        assert_eq!(lossy, 4);
        p.outages = vec![Outage {
            start: MS,
            end: 2 * MS,
        }];
        assert_eq!(LinkModel::new(p, SimRng::from_u64(1)).hot_lines(), all);
    }

    fn link(rate_mbit: u64, delay_ms: u64, q: u32) -> LinkModel {
        LinkModel::new(
            LinkParams::new(rate_mbit * 1_000_000, delay_ms * MS, QueueLimit::Packets(q)),
            SimRng::from_u64(1),
        )
    }

    #[test]
    fn single_packet_gets_serialisation_plus_propagation() {
        let mut l = link(10, 20, 100);
        // 1500 B at 10 Mbit/s = 1.2 ms, + 20 ms
        assert_eq!(l.offer(0, 1500), Verdict::Deliver { at: 21_200 * US });
    }

    #[test]
    fn back_to_back_packets_queue() {
        let mut l = link(10, 0, 100);
        assert_eq!(l.offer(0, 1500), Verdict::Deliver { at: 1200 * US });
        assert_eq!(l.offer(0, 1500), Verdict::Deliver { at: 2400 * US });
        assert_eq!(l.offer(0, 1500), Verdict::Deliver { at: 3600 * US });
        assert_eq!(l.queue_len(0), 2);
        assert_eq!(l.queue_len(1300 * US), 1);
        // idle gap: a later packet starts at its arrival
        assert_eq!(l.offer(10 * MS, 1500), Verdict::Deliver { at: 11_200 * US });
    }

    #[test]
    fn drop_tail_in_packets() {
        let mut l = link(1, 0, 2);
        assert!(matches!(l.offer(0, 1500), Verdict::Deliver { .. })); // in service
        assert!(matches!(l.offer(0, 1500), Verdict::Deliver { .. })); // queued 1
        assert!(matches!(l.offer(0, 1500), Verdict::Deliver { .. })); // queued 2
        assert_eq!(l.offer(0, 1500), Verdict::DropQueue);
        assert_eq!(l.stats().drops_queue, 1);
        assert_eq!(l.stats().max_queue_packets, 2);
    }

    #[test]
    fn byte_limited_queue() {
        let mut p = LinkParams::new(1_000_000, 0, QueueLimit::Bytes(2000));
        p.loss = LossModel::None;
        let mut l = LinkModel::new(p, SimRng::from_u64(1));
        assert!(matches!(l.offer(0, 1500), Verdict::Deliver { .. }));
        assert!(matches!(l.offer(0, 1500), Verdict::Deliver { .. }));
        assert_eq!(l.offer(0, 1000), Verdict::DropQueue);
        assert!(matches!(l.offer(0, 400), Verdict::Deliver { .. }));
    }

    #[test]
    fn outage_drops_and_recovers() {
        let mut p = LinkParams::new(10_000_000, MS, QueueLimit::Packets(100));
        p.outages = vec![Outage {
            start: 10 * MS,
            end: 20 * MS,
        }];
        let mut l = LinkModel::new(p, SimRng::from_u64(1));
        assert!(matches!(l.offer(0, 1500), Verdict::Deliver { .. }));
        assert_eq!(l.offer(15 * MS, 1500), Verdict::DropOutage);
        // would still be serialising when the outage starts
        assert_eq!(l.offer(10 * MS - 100 * US, 1500), Verdict::DropOutage);
        assert!(matches!(l.offer(20 * MS, 1500), Verdict::Deliver { .. }));
        assert_eq!(l.stats().drops_outage, 2);
    }

    #[test]
    fn random_loss_uses_capacity() {
        let mut p = LinkParams::new(10_000_000, 0, QueueLimit::Packets(1000));
        p.loss = LossModel::Bernoulli { p: 1.0 };
        let mut l = LinkModel::new(p, SimRng::from_u64(1));
        assert_eq!(l.offer(0, 1500), Verdict::DropLoss);
        p = l.params().clone();
        let _ = p;
        // the serialiser stayed busy for the lost packet
        assert_eq!(l.queue_len(0), 0);
        assert_eq!(l.offer(0, 1500), Verdict::DropLoss);
        assert_eq!(l.queue_len(0), 1);
    }

    /// `offer_plain` (a plain link) against the general path of the same
    /// link made non-plain by an outage after the test's horizon: the same
    /// verdicts, queue and counters for a random mix of sizes and times.
    #[test]
    fn plain_path_matches_the_general_path() {
        for queue in [QueueLimit::Packets(8), QueueLimit::Bytes(6000)] {
            let p = LinkParams::new(10_000_000, 3 * MS, queue);
            let mut general = p.clone();
            general.outages = vec![Outage {
                start: 1_000_000 * MS,
                end: 1_000_001 * MS,
            }];
            let mut a = LinkModel::new(p, SimRng::from_u64(3));
            let mut b = LinkModel::new(general, SimRng::from_u64(3));
            assert!(a.plain && !b.plain);
            let mut rng = SimRng::from_u64(9);
            let mut now = 0;
            for _ in 0..20_000 {
                now += (rng.below(1500)) * US;
                let size = [52, 60, 1500, 1500, 700][rng.below(5) as usize];
                assert_eq!(a.offer(now, size), b.offer(now, size));
                assert_eq!(a.queue_len(now), b.queue_len(now));
            }
            assert_eq!(a.stats(), b.stats());
            assert!(
                a.stats().drops_queue > 0,
                "the queue must fill for the test to bite"
            );
        }
    }

    #[test]
    fn trace_delivery_opportunities() {
        // Opportunities at 1, 1, 3 ms, period 3 ms.
        let tr = Arc::new(Trace::parse("1\n1\n3\n", "t").unwrap());
        let mut p = LinkParams::new(0, 0, QueueLimit::Packets(100));
        p.trace = Some(tr);
        let mut l = LinkModel::new(p, SimRng::from_u64(1));
        assert_eq!(l.offer(0, 1500), Verdict::Deliver { at: MS });
        assert_eq!(l.offer(0, 1500), Verdict::Deliver { at: MS });
        assert_eq!(l.offer(0, 1500), Verdict::Deliver { at: 3 * MS });
        // next cycle: 4, 4, 6
        assert_eq!(l.offer(0, 1500), Verdict::Deliver { at: 4 * MS });
        // small packets share the second opportunity at 4 ms; the third
        // spills over into the one at 6 ms
        assert_eq!(l.offer(0, 700), Verdict::Deliver { at: 4 * MS });
        assert_eq!(l.offer(0, 700), Verdict::Deliver { at: 4 * MS });
        assert_eq!(l.offer(0, 700), Verdict::Deliver { at: 6 * MS });
        // idle until 100 ms: next opportunity at or after 100 ms is 100 (cycle 33: 99+1)
        assert_eq!(l.offer(100 * MS, 100), Verdict::Deliver { at: 100 * MS });
    }

    #[test]
    fn trace_rate_matches_mean() {
        let tr = Arc::new(Trace::constant(2, 10)); // 2 x 1500 B per ms = 24 Mbit/s
        let mut p = LinkParams::new(0, 0, QueueLimit::Packets(1_000_000));
        p.trace = Some(tr);
        let mut l = LinkModel::new(p, SimRng::from_u64(1));
        let mut last = 0;
        for _ in 0..2000 {
            if let Verdict::Deliver { at } = l.offer(0, 1500) {
                last = at;
            }
        }
        assert_eq!(last, 1000 * MS);
    }
}
