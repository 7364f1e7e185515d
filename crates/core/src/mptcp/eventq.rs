//! The connection's application events waiting for `poll_event`, first in,
//! first out: what a `VecDeque<AppEvent>` did, with a push the compiler
//! inlines. With the segment path inlined into `handle_packet`
//! (`connection/segment.rs`), `VecDeque::push_back` of the `Delivered`
//! event that nearly every in-order data segment raises stayed an
//! out-of-line call (`push_back_mut`, 27 instructions a call in the htsim
//! scenario). The ring `OutQueue` is too (`ring.rs`).

use super::ring::Ring;
use crate::endpoint::AppEvent;

/// The connection's application events waiting for `poll_event`
/// (`ring.rs`): over a boxed slice, 24 bytes (`VecDeque` took 32).
pub(super) type EventQueue = Ring<AppEvent>;

#[cfg(test)]
mod tests {
    use super::*;

    /// Events leave in the order they came, across growth and wrap-around.
    #[test]
    fn first_in_first_out_across_growth_and_wrap() {
        let mut q = EventQueue::default();
        let mut model = std::collections::VecDeque::new();
        let mut total = 0;
        for round in 0..200u64 {
            for _ in 0..(round % 11) {
                total += 1;
                let e = AppEvent::Delivered { total };
                q.push_back(e.clone());
                model.push_back(e);
            }
            for _ in 0..(round % 7) {
                assert_eq!(q.pop_front(), model.pop_front());
            }
            assert_eq!(q.len(), model.len());
        }
        assert_eq!(std::mem::size_of::<EventQueue>(), 24);
        while let Some(e) = model.pop_front() {
            assert_eq!(q.pop_front(), Some(e));
        }
        assert_eq!(q.pop_front(), None);
    }
}
