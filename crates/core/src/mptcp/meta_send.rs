//! Connection-level ("meta") send side: the application's byte stream in
//! data sequence numbers (DSN), the send buffer, what was handed to which
//! subflow, the DATA_ACK, and the reinjection queue (Linux v0.9x
//! `mptcp_output.c`: the meta write queue and `mpcb->reinject_queue`).
//!
//! DSNs are 64-bit offsets with the first data byte at 1 (RFC 8684 3.3.1:
//! IDSN + 1; the IDSN derived from the key is irrelevant here). A DATA_FIN
//! occupies one DSN after the last byte (RFC 8684 3.3.3).

use std::collections::{BTreeSet, VecDeque};

use crate::time::Nanos;

use super::seqmap::SeqMap;

/// A connection-level segment handed to at least one subflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sent {
    pub len: u32,
    /// Subflow ids it was sent on (bit `1 << id`).
    pub sent_on: u64,
}

/// Laid out by hand (`repr(C)`): what a DATA_ACK (`on_data_ack`,
/// `note_announced`) and a segment handed out (`mark_sent`) read comes
/// first and together, the sequence numbers, edges and flags in one
/// 64-byte block, then the in-flight map and the fragments, the write
/// path's counters and the two queues; the compiler's order had spread
/// them over more cache lines, each a miss per ACK at 10,000 connections
/// (docs/performance.md "Session 18"). Same size as before: 304 bytes.
/// Whether the two queues hold anything is a byte of the head (`queued`),
/// so without reinjection nothing behind the write path's counters is
/// read per packet ("Session 22").
#[derive(Debug, Default)]
#[repr(C)]
pub struct MetaSend {
    /// Oldest DSN not covered by a DATA_ACK.
    pub una: u64,
    /// Next DSN never handed to a subflow.
    pub nxt: u64,
    /// End of the application's data (next DSN to write).
    pub write_seq: u64,
    /// Peer's connection-level window (RFC 8684 3.3.5: relative to DATA_ACK).
    pub peer_wnd: u64,
    /// Linux 6.18's send edge `msk->wnd_end` (`with_kernel_wnd_edge`);
    /// `None`: the edge is the last DATA_ACK plus the last window.
    kernel_wnd_end: Option<u64>,
    /// The largest right edge the peer announced, DATA_ACK plus the ACK's
    /// own window, over the DATA_ACKs received (`note_announced`): the
    /// peer's `msk->rcv_wnd_sent` as far as its ACKs arrived. Data handed
    /// out beyond it overshoots the receiver's window (`overshoots`).
    announced_end: u64,
    /// The application closed: DATA_FIN at `write_seq` once all data is sent.
    pub fin_queued: bool,
    /// DATA_FIN acknowledged (DATA_ACK = write_seq + 1).
    pub fin_acked: bool,
    /// Copy writes in page fragments (upstream `mptcp_sendmsg`).
    pub page_frag_copy: bool,
    /// Which of the two queues at the end hold entries (`REINJECT`,
    /// `RESEND` bits), kept in the head's padding so that the tests every
    /// segment and DATA_ACK makes of them (`pass_if_any`, `next_reinject`,
    /// `on_new_data_ack`) read the head line, not the queues' two lines
    /// behind the in-flight map (docs/performance.md "Session 22"). Set
    /// where an entry is queued, recomputed where one leaves.
    queued: u8,
    /// Segments handed to subflows and not yet DATA_ACKed, by DSN.
    pub inflight: SeqMap<Sent>,
    /// Live data fragments (`msk->rtx_queue`): start DSN and the bytes
    /// charged beside the data (`dfrag->overhead`), oldest first.
    dfrags: VecDeque<(u64, u64)>,
    /// Send buffer size in bytes (unacked + unsent, Linux sk_sndbuf of the meta socket).
    pub sndbuf: u64,
    /// Sum of the live fragments' `overhead`, part of `sk_wmem_queued`.
    frag_overhead: u64,
    /// Offset in the current page fragment (`msk->sk.sk_frag.offset`);
    /// `None` before the first copy.
    pfrag_off: Option<u64>,
    /// Segments to send again through the scheduler (RTO on a subflow).
    reinject: ReinjectQueue,
    /// Unacknowledged data pushed again as if unsent after a subflow turned
    /// stale (upstream `__mptcp_retransmit_pending_data`: `first_pending`
    /// back to the retransmission queue's head, `already_sent` cleared), so
    /// it goes through `mptcp_subflow_get_send` like new data, ahead of the
    /// data never sent.
    resend: ReinjectQueue,
    pub fin_sent_at: Option<Nanos>,
}

/// `MetaSend::queued`: the reinjection queue holds entries.
const REINJECT: u8 = 1;
/// `MetaSend::queued`: the re-push queue holds entries.
const RESEND: u8 = 2;

/// `SKB_FRAG_PAGE_ORDER` pages: 32 KB (`skb_page_frag_refill`).
pub const PAGE_FRAG_SIZE: u64 = 32_768;
/// `sizeof(struct mptcp_data_frag)` on 64-bit Linux (list_head, data_seq,
/// four u16, page pointer), carved into the page ahead of its data
/// (`mptcp_carve_data_frag`): a fresh page holds 32728 data bytes, the
/// `data_len` of the kernel's first `mptcp_sendmsg_frag` in a download.
pub const DFRAG_HDR: u64 = 40;
/// `mptcp_page_frag_refill` asks `skb_page_frag_refill` for room for
/// 32 bytes of data besides the header.
const FRAG_REFILL_MIN: u64 = 32 + DFRAG_HDR;

/// The reinjection queue: (DSN, length) in the order they were queued.
///
/// An RTO on a subflow queues everything it has unacknowledged, which on a
/// slow path with a deep buffer is thousands of segments, and the queue can
/// stay that long for many DATA_ACKs. Two side structures keep the common
/// operations off the whole queue without changing its contents or order:
/// the set of queued DSNs (the "already queued?" test of every new entry)
/// and a lower bound of the entries' end DSNs (a DATA_ACK below it cannot
/// remove anything, so most DATA_ACKs skip the scan).
///
/// `repr(C)`: `min_end` and `q`, which every DATA_ACK reads
/// (`remove_acked`), first; the set, read only when an entry is queued,
/// after them.
#[derive(Debug, Default)]
#[repr(C)]
pub struct ReinjectQueue {
    /// <= the smallest `dsn + len` in `q` (u64::MAX when empty).
    min_end: u64,
    q: VecDeque<(u64, u32)>,
    dsns: BTreeSet<u64>,
}

impl ReinjectQueue {
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn front(&self) -> Option<(u64, u32)> {
        self.q.front().copied()
    }

    pub fn contains(&self, dsn: u64) -> bool {
        self.dsns.contains(&dsn)
    }

    pub fn push_back(&mut self, dsn: u64, len: u32) {
        if self.q.is_empty() {
            self.min_end = u64::MAX;
        }
        self.q.push_back((dsn, len));
        self.dsns.insert(dsn);
        self.min_end = self.min_end.min(dsn + len as u64);
    }

    pub fn pop_front(&mut self) -> Option<(u64, u32)> {
        // min_end stays a valid lower bound when an entry leaves.
        let e = self.q.pop_front()?;
        self.dsns.remove(&e.0);
        Some(e)
    }

    /// The first entry not wholly acknowledged at `una`, dropping the
    /// acknowledged ones before it.
    pub fn front_unacked(&mut self, una: u64) -> Option<(u64, u32)> {
        while let Some((d, l)) = self.front() {
            if d + l as u64 > una {
                return Some((d, l));
            }
            self.pop_front();
        }
        None
    }

    /// Drop every entry that ends at or below `ack`, keeping the order.
    /// Called only with entries queued (`MetaSend::queued`); the bound's
    /// test is inlined, the removal is not.
    #[inline(always)]
    pub fn remove_acked(&mut self, ack: u64) {
        if self.q.is_empty() || ack < self.min_end {
            return;
        }
        self.drop_acked(ack);
    }

    #[inline(never)]
    fn drop_acked(&mut self, ack: u64) {
        let dsns = &mut self.dsns;
        let mut min_end = u64::MAX;
        self.q.retain(|&(d, l)| {
            let end = d + l as u64;
            if end > ack {
                min_end = min_end.min(end);
                true
            } else {
                dsns.remove(&d);
                false
            }
        });
        self.min_end = min_end;
    }
}

impl MetaSend {
    /// With the upstream scheduler's send-buffer model: copy application
    /// data in page fragments as `mptcp_sendmsg` does (see `write`).
    pub fn with_page_frags(mut self) -> Self {
        self.page_frag_copy = true;
        self
    }

    /// With Linux 6.18's send edge (`net/mptcp/options.c:
    /// ack_update_msk`): `msk->wnd_end` only moves forward, to the DATA_ACK
    /// plus the `snd_wnd` of the subflow the ACK came on, which TCP keeps
    /// under `tcp_may_update_window` (`crate::tcp::sndwnd`). A DATA_ACK
    /// that moved on can so pair with an older, larger window and put the
    /// edge past the one the receiver announced; the receiver then drops
    /// what lands out of order beyond it (`MetaRecv::with_window_drop`).
    /// Starts at `snd_nxt + snd_wnd` (`mptcp_finish_connect`).
    pub fn with_kernel_wnd_edge(mut self) -> Self {
        self.kernel_wnd_end = Some(self.nxt + self.peer_wnd);
        self.announced_end = self.nxt + self.peer_wnd;
        self
    }

    pub fn new(sndbuf: u64) -> Self {
        MetaSend {
            una: 1,
            nxt: 1,
            write_seq: 1,
            sndbuf,
            peer_wnd: 65535,
            ..Default::default()
        }
    }

    pub fn buffered(&self) -> u64 {
        self.write_seq - self.una.min(self.write_seq)
    }

    /// The meta socket's `sk_wmem_queued`: unacknowledged data plus the
    /// live data fragments' headers (`dfrag_uncharge`/`dfrag_clear`).
    pub fn wmem_queued(&self) -> u64 {
        self.buffered() + self.frag_overhead
    }

    pub fn space(&self) -> u64 {
        self.sndbuf.saturating_sub(self.wmem_queued())
    }

    pub fn write(&mut self, len: u64) -> u64 {
        if self.fin_queued {
            return 0;
        }
        if self.page_frag_copy {
            return self.write_page_frags(len);
        }
        let n = len.min(self.space());
        self.write_seq += n;
        n
    }

    /// Upstream Linux `mptcp_sendmsg` (net/mptcp/protocol.c): each pass of
    /// its copy loop tests the buffer first (`mptcp_send_limit`:
    /// `sk_wmem_queued >= sk_sndbuf` waits) and then copies up to the end
    /// of the current page fragment (`psize = pfrag->size - offset`, pages
    /// of 32 KB from `skb_page_frag_refill`), so the connection can hold up
    /// to one fragment more than its buffer. The copy extends the pending
    /// tail fragment when `mptcp_frag_can_collapse_to` allows (data not yet
    /// handed to a subflow, room left in the page); otherwise
    /// `mptcp_page_frag_refill` keeps the page if 72 bytes are left (or
    /// rewinds it when nothing else holds it: all data acknowledged) and
    /// `mptcp_carve_data_frag` puts a 40-byte header at the next 8-byte
    /// aligned offset, charged to `sk_wmem_queued` with the alignment
    /// (`frag_truesize = dfrag->overhead`). So fragment ends drift off the
    /// application's write boundaries and a blocked writer stops mid-write.
    /// Simplification: the page is shared with nothing else.
    fn write_page_frags(&mut self, len: u64) -> u64 {
        let mut n = 0;
        while n < len && self.wmem_queued() < self.sndbuf {
            let collapse = self.unsent() > 0
                && !self.dfrags.is_empty()
                && self.pfrag_off.is_some_and(|o| o < PAGE_FRAG_SIZE);
            if !collapse {
                // skb_page_frag_refill: `page_ref_count == 1` -> offset 0;
                // room for `sz` -> keep; else a new page.
                let off = match self.pfrag_off {
                    Some(o)
                        if self.una < self.write_seq && o + FRAG_REFILL_MIN <= PAGE_FRAG_SIZE =>
                    {
                        o
                    }
                    _ => 0,
                };
                let aligned = off.next_multiple_of(8);
                let overhead = aligned - off + DFRAG_HDR;
                self.dfrags.push_back((self.write_seq, overhead));
                self.frag_overhead += overhead;
                self.pfrag_off = Some(aligned + DFRAG_HDR);
            }
            let off = self.pfrag_off.unwrap_or(0);
            let chunk = (PAGE_FRAG_SIZE - off).min(len - n);
            self.write_seq += chunk;
            self.pfrag_off = Some(off + chunk);
            n += chunk;
        }
        n
    }

    /// Whether new data [dsn, dsn + len) reaches into a page fragment
    /// (`mptcp_data_frag`) other than the one holding byte `dsn - 1`, with
    /// fragments laid out as `write_page_frags` copies them. Without page
    /// fragments every segment counts as its own fragment.
    pub fn enters_new_frag(&self, dsn: u64, len: u32) -> bool {
        if !self.page_frag_copy || dsn <= 1 || len == 0 {
            return true;
        }
        let last = dsn + len as u64 - 1;
        self.dfrags.iter().any(|&(s, _)| dsn <= s && s <= last)
    }

    /// The first page fragment start strictly inside new data [dsn, dsn +
    /// len), if any: `__subflow_push_pending` (net/mptcp/protocol.c) hands
    /// the fragment before it to one subflow to its end and tests the
    /// burst and the subflow's memory only there. `None` without page
    /// fragments.
    pub fn frag_start_within(&self, dsn: u64, len: u32) -> Option<u64> {
        if !self.page_frag_copy {
            return None;
        }
        let end = dsn + len as u64;
        self.dfrags
            .iter()
            .map(|&(s, _)| s)
            .find(|&s| dsn < s && s < end)
    }

    /// The live data fragments' start DSNs (connection tests).
    #[cfg(test)]
    pub fn frag_starts(&self) -> impl Iterator<Item = u64> + '_ {
        self.dfrags.iter().map(|&(s, _)| s)
    }

    pub fn unsent(&self) -> u64 {
        self.write_seq - self.nxt
    }

    /// What a connection-level timer expiry re-sends (`__mptcp_retrans`):
    /// the DSN range [start, end) of the retransmission queue's head
    /// (`mptcp_rtx_head`), the data fragment holding the DATA_ACK, from the
    /// DATA_ACK on (`__mptcp_clean_una` trims the head to `snd_una`) up to
    /// the bytes of it already handed to a subflow (`info.limit =
    /// dfrag->already_sent`). `None` when nothing of it was sent. Without
    /// page fragments: `max_bytes` from the DATA_ACK.
    pub fn rtx_head(&self, max_bytes: u64) -> Option<(u64, u64)> {
        let end = if self.page_frag_copy && !self.dfrags.is_empty() {
            self.dfrags.get(1).map_or(self.write_seq, |d| d.0)
        } else {
            self.una + max_bytes
        };
        let end = end.min(self.nxt);
        (end > self.una).then_some((self.una, end))
    }

    /// The bytes an expiry re-sends, [start, end) from `rtx_head`, as
    /// pieces of the segments handed out before: (the segment's DSN in
    /// `inflight`, piece start, piece length). `__mptcp_retrans` copies
    /// exactly `[snd_una, snd_una + info.limit)` of the head fragment into
    /// new mappings on the picked subflow (`mptcp_sendmsg_frag` stops at
    /// `info.limit`), whatever segments first carried those bytes: a
    /// segment that straddles the fragment's end or the DATA_ACK is cut
    /// there, so the bytes past the fragment's end still wait for their
    /// first carrier and their DATA_ACK.
    pub fn rtx_pieces(&self, start: u64, end: u64) -> Vec<(u64, u64, u32)> {
        self.inflight
            .iter()
            .take_while(|&(d, _)| d < end)
            .filter(|&(d, s)| d + s.len as u64 > start)
            .map(|(d, s)| {
                let (a, b) = (d.max(start), (d + s.len as u64).min(end));
                (d, a, (b - a) as u32)
            })
            .collect()
    }

    /// Part of the segment at `dsn` (a key of `inflight`) was sent again
    /// on subflow `id`.
    pub fn mark_resent(&mut self, dsn: u64, id: usize) {
        if let Some(s) = self.inflight.get_mut(dsn) {
            s.sent_on |= 1u64 << id;
        }
    }

    /// Right edge of the peer's receive window.
    pub fn wnd_end(&self) -> u64 {
        self.kernel_wnd_end.unwrap_or(self.una + self.peer_wnd)
    }

    /// A DATA_ACK `ack` arrived with the ACK's own window `wnd` (not the
    /// subflow's kept `snd_wnd`): the edge the receiver announced with it.
    pub fn note_announced(&mut self, ack: u64, wnd: u64) {
        self.announced_end = self.announced_end.max(ack.min(self.write_seq) + wnd);
    }

    /// Whether new data ending at `end` lies past every edge the receiver
    /// announced (only with `with_kernel_wnd_edge`: otherwise the send edge
    /// is the last announced one and nothing passes it). ntnu13's
    /// `overedge.py` counts the same on the kernel's captures.
    pub fn overshoots(&self, end: u64) -> bool {
        self.kernel_wnd_end.is_some() && end > self.announced_end
    }

    /// Whether `wnd` of `on_data_ack` is to be the subflow's TCP `snd_wnd`
    /// (`with_kernel_wnd_edge`) rather than the ACK's window.
    pub fn kernel_wnd_edge(&self) -> bool {
        self.kernel_wnd_end.is_some()
    }

    /// Take the next new segment of at most `mss` bytes (not yet committed).
    pub fn peek_new(&self, mss: u32) -> Option<(u64, u32)> {
        let n = self.unsent().min(mss as u64) as u32;
        (n > 0).then_some((self.nxt, n))
    }

    /// The segment at `dsn` was handed to subflow `id`. Inlined into its
    /// one per-segment caller, `queue_on`.
    #[inline]
    pub fn mark_sent(&mut self, dsn: u64, len: u32, id: usize) {
        let (e, _) = self
            .inflight
            .get_or_insert_with(dsn, || Sent { len, sent_on: 0 });
        e.sent_on |= 1u64 << id;
        if dsn == self.nxt {
            self.nxt += len as u64;
        }
    }

    /// The oldest unacknowledged segment that was sent.
    pub fn head(&self) -> Option<(u64, Sent)> {
        self.inflight.first().map(|(d, &s)| (d, s))
    }

    /// A DATA_ACK and window arrived (RFC 8684 3.3.2). Returns bytes newly acked.
    ///
    /// A DATA_ACK at `una` (the receiving end of a transfer, on every data
    /// segment; a sender's duplicate ACKs) acknowledges nothing new: it
    /// takes the window, and the send edge (`ack_update_msk`), and returns,
    /// without the scans of the slow path, which would find nothing to
    /// drop. (Linux 6.18 net/mptcp/options.c `ack_update_msk` has the same
    /// shape: the clean-up, `__mptcp_data_acked`, runs only
    /// `if (after64(new_snd_una, old_snd_una))`.) When `una` was set every queue was cleaned up to it, and what
    /// joins them later ends above it: `mark_sent` takes new data at `nxt`,
    /// the reinjection and re-push queues' fronts above `una`, or a copy of
    /// an in-flight segment; `queue_reinject` and `retransmit_pending`
    /// refuse acknowledged data; a page fragment's end only grows (the
    /// next fragment's start, or `write_seq`). So the slow path's
    /// `fin_acked` test (`ack > write_seq` is impossible at `una`) and its
    /// loops change nothing; builds with invariants check the loops'
    /// queues (`check_clean_at`). Inlined into `on_segment`: the test
    /// replaces a call for every data segment received.
    #[inline(always)]
    pub fn on_data_ack(&mut self, ack: u64, wnd: u64) -> u64 {
        if ack == self.una {
            if let Some(end) = &mut self.kernel_wnd_end {
                // (`ack <= nxt`: the DATA_ACK offers its own edge)
                *end = (*end).max(ack + wnd);
            }
            self.peer_wnd = wnd;
            #[cfg(any(debug_assertions, feature = "invariants"))]
            self.check_clean_at(ack);
            return 0;
        }
        self.on_new_data_ack(ack, wnd)
    }

    /// Builds with invariants: nothing the slow path of `on_data_ack` drops
    /// at `ack` is queued (the fast path's premise).
    #[cfg(any(debug_assertions, feature = "invariants"))]
    fn check_clean_at(&self, ack: u64) {
        assert!(self.una <= self.write_seq && self.nxt >= self.una);
        if let Some((d, s)) = self.inflight.first() {
            assert!(
                d + s.len as u64 > ack,
                "in flight [{d}, +{}) at {ack}",
                s.len
            );
        }
        if !self.dfrags.is_empty() {
            let end = self.dfrags.get(1).map_or(self.write_seq, |d| d.0);
            assert!(end > ack, "fragment ending at {end} at {ack}");
        }
        assert_eq!(
            (self.queued & REINJECT != 0, self.queued & RESEND != 0),
            (!self.reinject.is_empty(), !self.resend.is_empty()),
            "queued bits"
        );
        for q in [&self.reinject, &self.resend] {
            assert!(
                q.q.iter().all(|&(d, l)| d + l as u64 > ack),
                "{q:?} at {ack}"
            );
        }
    }

    /// `on_data_ack` of a DATA_ACK other than `una`.
    #[inline(never)]
    fn on_new_data_ack(&mut self, ack: u64, wnd: u64) -> u64 {
        let fin_dsn = self.write_seq + 1;
        if self.fin_queued && ack >= fin_dsn {
            self.fin_acked = true;
        }
        let ack = ack.min(self.write_seq);
        if let Some(end) = &mut self.kernel_wnd_end {
            // ack_update_msk: a DATA_ACK beyond snd_nxt counts as snd_una;
            // an older DATA_ACK still offers its edge, kept if it is later.
            let base = if ack > self.nxt { self.una } else { ack };
            *end = (*end).max(base + wnd);
        }
        if ack < self.una {
            return 0;
        }
        // Window updates from older ACKs are ignored (ack < una above).
        self.peer_wnd = wnd;
        let newly = ack - self.una;
        self.una = ack;
        if self.nxt < self.una {
            self.nxt = self.una;
        }
        while let Some((d, s)) = self.inflight.first() {
            if d + s.len as u64 <= ack {
                self.inflight.pop_first();
            } else {
                break;
            }
        }
        // `__mptcp_clean_una` -> `dfrag_clear`: a fully acknowledged data
        // fragment gives back its header too.
        while let Some(&(_, overhead)) = self.dfrags.front() {
            let end = self.dfrags.get(1).map_or(self.write_seq, |d| d.0);
            if end > ack {
                break;
            }
            self.frag_overhead -= overhead;
            self.dfrags.pop_front();
        }
        if self.queued != 0 {
            self.repeat_remove_acked(ack);
        }
        newly
    }

    /// `on_new_data_ack` with entries queued: drop the acknowledged ones.
    #[inline(never)]
    fn repeat_remove_acked(&mut self, ack: u64) {
        self.reinject.remove_acked(ack);
        // `__mptcp_clean_una`: acked fragments leave, `first_pending` moves on.
        self.resend.remove_acked(ack);
        self.sync_queued();
    }

    /// Recompute `queued` from the queues (after entries left them).
    fn sync_queued(&mut self) {
        self.queued = if self.reinject.is_empty() {
            0
        } else {
            REINJECT
        } | if self.resend.is_empty() { 0 } else { RESEND };
    }

    /// Anything in the reinjection or the re-push queue (acknowledged
    /// entries not yet dropped included, as the queues' own emptiness).
    #[inline]
    pub fn repeat_queued(&self) -> bool {
        self.queued != 0
    }

    /// Anything in the re-push queue.
    #[inline]
    pub fn resend_queued(&self) -> bool {
        self.queued & RESEND != 0
    }

    /// The scheduler handed out the reinjection queue's front.
    pub fn pop_reinject(&mut self) {
        self.reinject.pop_front();
        self.sync_queued();
    }

    /// The scheduler handed out the re-push queue's front.
    pub fn pop_resend(&mut self) {
        self.resend.pop_front();
        self.sync_queued();
    }

    /// Queue a segment for reinjection unless acked or already queued.
    pub fn queue_reinject(&mut self, dsn: u64, len: u32) -> bool {
        if dsn + len as u64 <= self.una || self.reinject.contains(dsn) {
            return false;
        }
        self.reinject.push_back(dsn, len);
        self.queued |= REINJECT;
        true
    }

    /// Front of the reinjection queue, dropping acked entries (asked on
    /// every scheduler pass, so inlined).
    #[inline]
    pub fn next_reinject(&mut self) -> Option<(u64, u32)> {
        if self.queued & REINJECT == 0 {
            return None;
        }
        self.next_queued(false)
    }

    /// `next_reinject` or `next_resend` with entries queued.
    #[inline(never)]
    fn next_queued(&mut self, resend: bool) -> Option<(u64, u32)> {
        let q = if resend {
            &mut self.resend
        } else {
            &mut self.reinject
        };
        let front = q.front_unacked(self.una);
        self.sync_queued();
        front
    }

    /// Queue every unacknowledged segment to be pushed again
    /// (`__mptcp_retransmit_pending_data`); false when nothing is unacked.
    pub fn retransmit_pending(&mut self) -> bool {
        let segs: Vec<(u64, u32)> = self.inflight.iter().map(|(d, s)| (d, s.len)).collect();
        let mut any = false;
        for (d, l) in segs {
            if d + l as u64 > self.una && !self.resend.contains(d) {
                self.resend.push_back(d, l);
                self.queued |= RESEND;
                any = true;
            }
        }
        any
    }

    /// Front of the re-push queue (`retransmit_pending`), dropping acked
    /// entries (asked on every scheduler pass, so inlined).
    #[inline]
    pub fn next_resend(&mut self) -> Option<(u64, u32)> {
        if self.queued & RESEND == 0 {
            return None;
        }
        self.next_queued(true)
    }

    pub fn sent_on(&self, dsn: u64) -> u64 {
        self.inflight.get(dsn).map_or(0, |s| s.sent_on)
    }

    /// Everything written is handed out and the DATA_FIN may go.
    pub fn fin_ready(&self) -> bool {
        self.fin_queued && self.nxt >= self.write_seq && !self.fin_acked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ack_fields_fill_the_first_64_bytes() {
        use std::mem::{offset_of, size_of};
        // sequence numbers, edges and flags in one block, the in-flight map
        // right after it; no larger than the fields' 299 bytes padded to 8
        assert!(offset_of!(MetaSend, fin_queued) < 64);
        assert!(offset_of!(MetaSend, page_frag_copy) < 64);
        assert_eq!(offset_of!(MetaSend, inflight), 64);
        assert_eq!(size_of::<MetaSend>(), 304);
        assert_eq!(offset_of!(ReinjectQueue, q), 8);
    }

    /// docs/performance.md "Session 22": whether anything waits for
    /// reinjection or a re-push is a byte of the 64-byte head, so a packet
    /// without either reads neither queue's line; the byte follows the
    /// queues through queueing, the scheduler's pops and DATA_ACKs.
    #[test]
    fn the_repeat_queues_are_tested_in_the_head() {
        use std::mem::{offset_of, size_of};
        assert!(offset_of!(MetaSend, queued) < 64);
        assert_eq!(size_of::<MetaSend>(), 304);
        let mut m = MetaSend::new(1 << 20);
        m.write(10_000);
        for d in [1, 1001, 2001] {
            m.mark_sent(d, 1000, 0);
        }
        assert!(!m.repeat_queued());
        assert_eq!(m.next_reinject(), None);
        assert!(m.queue_reinject(1, 1000) && m.queue_reinject(1001, 1000));
        assert!(m.repeat_queued() && !m.resend_queued());
        assert_eq!(m.next_reinject(), Some((1, 1000)));
        m.pop_reinject();
        assert!(m.repeat_queued(), "one entry left");
        assert!(m.retransmit_pending() && m.resend_queued());
        // a DATA_ACK past everything empties both queues
        m.on_data_ack(3001, 1 << 20);
        assert!(!m.repeat_queued() && !m.resend_queued());
        assert_eq!((m.next_reinject(), m.next_resend()), (None, None));
        // an entry acknowledged before the scheduler asks is dropped there
        m.write(2000);
        m.mark_sent(3001, 1000, 1);
        m.mark_sent(4001, 1000, 1);
        assert!(m.queue_reinject(3001, 1000));
        m.una = 4001;
        assert_eq!(m.next_reinject(), None);
        assert!(!m.repeat_queued());
    }

    #[test]
    fn page_frag_copy_overshoots_the_buffer_by_at_most_one_fragment() {
        let mut m = MetaSend::new(100_000).with_page_frags();
        // Pages of 40 header + 32728 data bytes: 3 of them (98 304 B of
        // sk_wmem_queued) leave the buffer below 100 000, so a 4th is copied.
        assert_eq!(m.write(1 << 20), 4 * 32_728);
        assert_eq!(m.wmem_queued(), 131_072);
        assert_eq!(m.write(10), 0, "full: mptcp_send_limit returns 0");
        // A DATA_ACK frees 40 000 B and the first fragment (its header
        // too): 91 032 queued < 100 000, so one more page and no more.
        m.nxt = m.write_seq;
        m.on_data_ack(40_001, 1 << 20);
        assert_eq!(m.wmem_queued(), 130_913 - 40_001 + 3 * 40);
        assert_eq!(m.write(1 << 20), 32_728);
        // Without page fragments the write stops at the buffer.
        let mut p = MetaSend::new(100_000);
        assert_eq!(p.write(1 << 20), 100_000);
    }

    #[test]
    fn fragment_headers_stop_a_blocked_writer_mid_write() {
        // 64 KiB writes into a 512 KiB buffer: the 40-byte headers make the
        // 16th page end 640 bytes before the 8th write does (the kernel's
        // writer in the lossy 8 MB Wi-Fi + 3G cell stopped 2240 bytes short
        // of a write, docs/validation.md), where 32768-byte pages without
        // headers would end exactly on it.
        let mut m = MetaSend::new(524_288).with_page_frags();
        let mut written = 0;
        for _ in 0..9 {
            written += m.write(65_536);
        }
        assert_eq!(written, 16 * 32_728);
        assert_eq!(m.wmem_queued(), 524_288);
        assert_ne!(written % 65_536, 0, "blocked mid-write");
    }

    /// `__mptcp_retrans` re-sends the retransmission queue's head fragment
    /// from the DATA_ACK up to what of it was handed out, not a fixed 32 KB:
    /// the kernel's connection-level re-sends in the lossy 8 MB Wi-Fi + 3G
    /// cell carry 31476, 10568, 21996, 6768, ... 68 bytes (docs/validation.md).
    #[test]
    fn connection_level_resend_is_the_head_fragment_from_the_data_ack() {
        let mut m = MetaSend::new(1 << 20).with_page_frags();
        // Two pages: [1, 32729) and [32729, 65457).
        assert_eq!(m.write(2 * 32_728), 2 * 32_728);
        assert_eq!(m.rtx_head(32_768), None, "nothing handed out yet");
        m.nxt = 20_001;
        assert_eq!(m.rtx_head(32_768), Some((1, 20_001)), "already_sent only");
        m.nxt = m.write_seq;
        m.on_data_ack(30_001, 1 << 20);
        // The head is trimmed to the DATA_ACK and ends with its fragment.
        assert_eq!(m.rtx_head(32_768), Some((30_001, 32_729)));
        m.on_data_ack(32_729, 1 << 20);
        assert_eq!(m.rtx_head(32_768), Some((32_729, 65_457)));
        // Without page fragments: `max_bytes` from the DATA_ACK.
        let mut p = MetaSend::new(1 << 20);
        p.write(100_000);
        p.nxt = p.write_seq;
        assert_eq!(p.rtx_head(32_768), Some((1, 32_769)));
    }

    /// Issue 15, lossy 8 MB Wi-Fi + 3G run 0 (docs/validation.md, session
    /// 11): the kernel's timer re-sends DSN 753556-785032, exactly from the
    /// DATA_ACK to the head fragment's end, although the 3G segment that
    /// first carried 784796-786216 straddles that end. Re-sending the
    /// model's whole straddling segment (784976-786400) let the DATA_ACK
    /// pass the fragment's end without the 3G path, so the timer fired a
    /// second time where the kernel's was re-armed.
    #[test]
    fn connection_level_resend_stops_at_the_fragment_end_inside_a_segment() {
        let mut m = MetaSend::new(1 << 20).with_page_frags();
        // Two fragments: [1, 32729) and [32729, 65457).
        m.write(2 * 32_728);
        // Segments of 1424 bytes from DSN 1 (the 23rd, [31329, 32753),
        // straddles the fragment end 32729).
        let mut d = 1;
        while d < m.write_seq {
            let l = 1424.min(m.write_seq - d) as u32;
            m.mark_sent(d, l, 1);
            d += l as u64;
        }
        // The DATA_ACK stops inside the second segment.
        m.on_data_ack(2001, 1 << 20);
        let (start, end) = m.rtx_head(32_768).expect("sent");
        assert_eq!((start, end), (2001, 32_729));
        let pieces = m.rtx_pieces(start, end);
        // cut at the DATA_ACK ...
        assert_eq!(pieces[0], (1425, 2001, 848));
        // ... whole segments between ...
        assert_eq!(pieces[1], (2849, 2849, 1424));
        // ... and cut at the fragment's end: 31329 + 1400 = 32729, not the
        // segment's end 32753
        assert_eq!(*pieces.last().expect("pieces"), (31_329, 31_329, 1400));
        let bytes: u64 = pieces.iter().map(|p| p.2 as u64).sum();
        assert_eq!(bytes, 32_729 - 2001, "exactly [snd_una, fragment end)");
        // the re-sent segments record their second carrier; the segment
        // past the fragment end does not
        for &(key, _, _) in &pieces {
            m.mark_resent(key, 0);
        }
        assert_eq!(m.sent_on(31_329), 0b11);
        assert_eq!(m.sent_on(32_753), 0b10);
    }

    #[test]
    fn a_write_after_everything_was_pushed_starts_a_new_fragment() {
        let mut m = MetaSend::new(1 << 20).with_page_frags();
        assert_eq!(m.write(1000), 1000);
        // Nothing pushed yet: the next write extends the pending tail.
        assert_eq!(m.write(1000), 1000);
        assert_eq!(m.wmem_queued(), 2040);
        assert!(!m.enters_new_frag(1001, 1000));
        // All handed to subflows: `mptcp_pending_tail` is NULL, so a new
        // fragment is carved in the same page at the next 8-byte boundary
        // (offset 40 + 2000 = 2040, aligned already: 40 bytes of overhead).
        m.nxt = m.write_seq;
        assert_eq!(m.write(500), 500);
        assert_eq!(m.wmem_queued(), 2500 + 80);
        assert!(m.enters_new_frag(2001, 500), "starts the new fragment");
        assert!(m.enters_new_frag(1500, 1000), "reaches into it");
        assert!(!m.enters_new_frag(2002, 400));
        // Once acknowledged, each fragment gives its header back.
        m.nxt = m.write_seq;
        m.on_data_ack(2001, 1 << 20);
        assert_eq!(m.wmem_queued(), 500 + 40);
        m.on_data_ack(2501, 1 << 20);
        assert_eq!(m.wmem_queued(), 0);
        // Without page fragments every segment is tested.
        assert!(MetaSend::new(100_000).enters_new_frag(1425, 1424));
    }

    /// Session 10, "the 40-byte boundary" (docs/validation.md): in the
    /// 1 MB Wi-Fi + 3G download the kernel's second subflow starts at
    /// relative DSN 719616, a page end reached only when each of the first
    /// eleven 64 KiB writes carved its own fragment (`mptcp_sendmsg`:
    /// `mptcp_pending_tail` NULL, so no `mptcp_frag_can_collapse_to`, and
    /// `mptcp_carve_data_frag` puts 40 bytes of header first). The
    /// simulator's page ends 40 bytes later, at 719656, because its push of
    /// the 10th write left 1456 bytes pending (the subflow's send buffer
    /// was full), so the 11th write extended that fragment: the layout
    /// arithmetic is the kernel's; the push state at the write differs.
    #[test]
    fn wifi_3g_page_end_follows_from_which_writes_collapse() {
        let page_starts = |pending_before: &[usize]| {
            let mut m = MetaSend::new(1 << 30).with_page_frags();
            for w in 0..12 {
                if !pending_before.contains(&w) {
                    m.nxt = m.write_seq; // __mptcp_push_pending handed all out
                }
                assert_eq!(m.write(65_536), 65_536);
            }
            // relative DSNs (the first data byte is DSN 1)
            m.dfrags.iter().map(|d| d.0 - 1).collect::<Vec<_>>()
        };
        let all_carve = page_starts(&[]);
        assert!(all_carve.contains(&719_616), "kernel: {all_carve:?}");
        assert!(all_carve.contains(&655_360), "the 11th write carves");
        let sim = page_starts(&[10]);
        assert!(sim.contains(&719_656), "simulator: {sim:?}");
        assert!(!sim.contains(&655_360), "the 11th write collapsed");
    }

    /// Issue 15, NTNU->HiN fullmesh (docs/report.md, session 13): the
    /// kernel's `ack_update_msk` keeps `msk->wnd_end` as a maximum of
    /// DATA_ACK + the subflow's `snd_wnd`, which TCP did not shrink for an
    /// ACK that left the subflow where it was; the edge so passes the one
    /// the receiver announced (DATA_ACK + the ACK's window).
    #[test]
    fn kernel_send_edge_pairs_a_new_data_ack_with_the_kept_window() {
        use crate::tcp::sndwnd::SndWnd;
        let mut m = MetaSend::new(1 << 30).with_kernel_wnd_edge();
        m.write(1 << 20);
        m.nxt = m.write_seq;
        let mut sf = SndWnd::default();
        // subflow ACK 1001 (new), DATA_ACK 1, window 100 000: edge 100 001
        sf.on_ack(1001, 1, 1, 100_000);
        m.on_data_ack(1, sf.wnd);
        assert_eq!(m.wnd_end(), 100_001);
        // the receiver moved its DATA_ACK to 50 001 (data of another
        // subflow) and announced the same edge (window 50 000) on this
        // subflow's ACK, which acknowledges nothing new here: TCP keeps
        // snd_wnd 100 000, the edge moves to 150 001
        assert!(!sf.on_ack(1001, 1001, 1, 50_000));
        m.on_data_ack(50_001, sf.wnd);
        assert_eq!(m.wnd_end(), 150_001, "past the announced 100 001");
        // an older DATA_ACK never pulls the edge back
        m.on_data_ack(40_001, 10_000);
        assert_eq!(m.wnd_end(), 150_001);
        // without the kernel's edge: the last DATA_ACK plus its window
        let mut p = MetaSend::new(1 << 30);
        p.write(1 << 20);
        p.nxt = p.write_seq;
        p.on_data_ack(1, 100_000);
        p.on_data_ack(50_001, 50_000);
        assert_eq!(p.wnd_end(), 100_001);
    }

    /// Issue 15, uib14: what the sender sends past every edge the receiver
    /// announced is counted (`wnd_overshoots`); the announced edge is the
    /// DATA_ACK plus the ACK's own window, not the kept `snd_wnd`.
    #[test]
    fn data_past_every_announced_edge_overshoots() {
        let mut m = MetaSend::new(1 << 30).with_kernel_wnd_edge();
        m.write(1 << 20);
        m.nxt = m.write_seq;
        m.note_announced(1, 100_000);
        m.on_data_ack(1, 100_000);
        // the ACK of the example above: DATA_ACK 50 001, window 50 000,
        // the subflow's kept snd_wnd 100 000
        m.note_announced(50_001, 50_000);
        m.on_data_ack(50_001, 100_000);
        assert_eq!(m.wnd_end(), 150_001);
        assert!(!m.overshoots(100_001), "ends on the announced edge");
        assert!(m.overshoots(100_002), "within wnd_end, past the edge");
        // a later ACK announcing a larger edge covers it
        m.note_announced(60_001, 90_000);
        assert!(!m.overshoots(150_001));
        // an older DATA_ACK's smaller edge does not pull it back
        m.note_announced(40_001, 10_000);
        assert!(!m.overshoots(150_001));
        // without the kernel's edge nothing overshoots
        let mut p = MetaSend::new(1 << 30);
        p.note_announced(1, 1000);
        assert!(!p.overshoots(1 << 20));
    }

    #[test]
    fn data_ack_frees_buffer_and_inflight() {
        let mut m = MetaSend::new(10_000);
        assert_eq!(m.write(12_000), 10_000);
        let (d, l) = m.peek_new(1000).unwrap();
        assert_eq!((d, l), (1, 1000));
        m.mark_sent(d, l, 0);
        m.mark_sent(1001, 1000, 1);
        assert_eq!(m.head().unwrap().0, 1);
        m.on_data_ack(1001, 5000);
        assert_eq!(m.head().unwrap().0, 1001);
        assert_eq!(m.space(), 1000);
        assert_eq!(m.wnd_end(), 6001);
        assert!(m.queue_reinject(1001, 1000));
        assert!(!m.queue_reinject(1001, 1000));
        assert!(!m.queue_reinject(1, 1000), "acked data is never reinjected");
        m.on_data_ack(2001, 5000);
        assert_eq!(m.next_reinject(), None);
    }
}
