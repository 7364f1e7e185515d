//! Receiver-side TSN bookkeeping (RFC 9260 sections 6.2, 6.7): cumulative
//! TSN, out-of-order TSNs reported as gap ack blocks, duplicate TSNs, and the
//! NR gap blocks of NR-SACK (draft-natarajan-tsvwg-sctp-nrsack section 4).

use std::collections::BTreeSet;

use super::chunk::SackChunk;

/// Most gap blocks + duplicates we put in one SACK: what fits in a 1500-byte
/// packet after IP (20), common (12) and NR-SACK (20) headers, 4 bytes each.
pub const MAX_SACK_ENTRIES: usize = (1500 - 20 - 12 - 20) / 4;

#[derive(Clone, Debug, Default)]
pub struct TsnTracker {
    /// Highest TSN such that all TSNs up to it arrived.
    pub cum: Option<u64>,
    /// TSNs above `cum` that arrived.
    above: BTreeSet<u64>,
    /// Duplicates since the last SACK.
    dups: Vec<u64>,
}

impl TsnTracker {
    /// Record an arriving TSN. Returns false for a duplicate.
    pub fn on_tsn(&mut self, tsn: u64) -> bool {
        if self.cum.is_some_and(|c| tsn <= c) || self.above.contains(&tsn) {
            if self.dups.len() < MAX_SACK_ENTRIES / 2 {
                self.dups.push(tsn);
            }
            return false;
        }
        self.above.insert(tsn);
        let mut next = self.cum.map_or(0, |c| c + 1);
        while self.above.remove(&next) {
            self.cum = Some(next);
            next += 1;
        }
        true
    }

    /// True if TSNs above the cumulative point are missing (a gap exists).
    pub fn has_gaps(&self) -> bool {
        !self.above.is_empty()
    }

    /// Gap ack blocks as absolute inclusive ranges, lowest first.
    pub fn gaps(&self) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::new();
        for &t in &self.above {
            match out.last_mut() {
                Some(last) if last.1 + 1 == t => last.1 = t,
                _ => out.push((t, t)),
            }
        }
        out
    }

    /// Build a SACK (or NR-SACK) and clear the duplicate list. mptlab
    /// receivers never renege, so with NR-SACK every out-of-order TSN is
    /// also reported non-renegable; gap blocks keep listing all of them so
    /// the sender's SACK processing is the same for both chunk types.
    pub fn make_sack(&mut self, a_rwnd: u64, nr: bool, dac_packets: u8) -> SackChunk {
        let mut gaps = self.gaps();
        let room = if nr {
            MAX_SACK_ENTRIES / 2
        } else {
            MAX_SACK_ENTRIES
        };
        gaps.truncate(room);
        let nr_gaps = if nr { gaps.clone() } else { Vec::new() };
        let dup_room = MAX_SACK_ENTRIES.saturating_sub(gaps.len() + nr_gaps.len());
        let mut dups = std::mem::take(&mut self.dups);
        dups.truncate(dup_room);
        SackChunk {
            cum_tsn: self.cum,
            a_rwnd,
            gaps,
            nr_gaps,
            dups,
            nr,
            dac_packets,
        }
    }
}
