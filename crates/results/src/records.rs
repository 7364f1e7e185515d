//! Raw measurement records both drivers fill before the tables are made
//! (the simulator's applications, the emulator's traffic agent); one
//! definition, so the two cannot drift apart.

use crate::rows::TransferRow;
use mptlab_core::time::Nanos;

/// A finite transfer (a web page, a file), finished or not.
#[derive(Clone, Debug, PartialEq)]
pub struct Transfer {
    pub label: String,
    /// `"file"` or `"page"`.
    pub kind: &'static str,
    pub objects: u32,
    pub bytes: u64,
    /// Start, ns since the start of the run.
    pub start: Nanos,
    /// When its last byte was delivered; `None`: not before the run ended.
    pub end: Option<Nanos>,
}

impl Transfer {
    /// Its row of the transfers table, as flow `flow`.
    pub fn row(&self, flow: u64) -> TransferRow {
        TransferRow::from_times(
            flow,
            self.label.clone(),
            self.kind,
            self.objects as u64,
            self.bytes,
            self.start,
            self.end,
        )
    }
}
