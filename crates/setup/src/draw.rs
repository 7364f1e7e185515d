//! Per-run values drawn from scenario ranges. Both drivers draw through
//! here, so a simulated run and its emulated twin get the same values.

use mptlab_core::SimRng;
use mptlab_scenario as sc;

/// Draws per-run values from scenario ranges. A value is drawn from a stream
/// named by its key, so the up and down direction of a link that share a
/// range get the same value, and adding a key never changes another's draw.
pub struct Draw<'a> {
    seed: u64,
    log: &'a mut Vec<(String, f64)>,
}

impl<'a> Draw<'a> {
    /// Draws for the run with `seed`; every drawn key is logged once into
    /// `log` (the `drawn` values the results report), in drawing order.
    pub fn new(seed: u64, log: &'a mut Vec<(String, f64)>) -> Self {
        Draw { seed, log }
    }
}

impl Draw<'_> {
    pub fn value(&mut self, key: &str, r: &sc::Range) -> f64 {
        let v = match *r {
            sc::Range::Fixed(v) => v,
            sc::Range::Uniform { lo, hi } => {
                SimRng::stream(self.seed, &format!("draw/{key}")).uniform_range(lo, hi)
            }
        };
        if !self.log.iter().any(|(k, _)| k == key) {
            self.log.push((key.to_string(), v));
        }
        v
    }
}

/// The client access path (1-based) the foreground flow starts on for the
/// run with `seed` (`transport.path`, or the draw of `transport.random_path`,
/// [`sc::Scenario::client_path`]); a drawn path is logged as `initial_path`.
pub fn initial_path(
    s: &sc::Scenario,
    seed: u64,
    npaths: usize,
    drawn: &mut Vec<(String, f64)>,
) -> u32 {
    let path = s.client_path(seed, npaths);
    if s.transport.random_path {
        drawn.push(("initial_path".to_string(), path as f64));
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_drawn_from_its_own_stream_and_logged_once() {
        let r = sc::Range::Uniform { lo: 1.0, hi: 2.0 };
        let mut log = Vec::new();
        let mut d = Draw::new(7, &mut log);
        let a = d.value("path1.up.rate_mbit", &r);
        let b = d.value("path1.up.rate_mbit", &r);
        let c = d.value("path1.delay_ms", &r);
        assert_eq!(a, b, "the same key draws the same value");
        assert!((1.0..2.0).contains(&a) && (1.0..2.0).contains(&c));
        assert_ne!(a, c, "another key draws from another stream");
        assert_eq!(log.len(), 2);
        // adding a key does not change another's draw
        let mut log2 = Vec::new();
        let mut d2 = Draw::new(7, &mut log2);
        assert_eq!(d2.value("path1.delay_ms", &r), c);
        let mut log3 = Vec::new();
        assert_eq!(
            Draw::new(7, &mut log3).value("k", &sc::Range::Fixed(3.5)),
            3.5
        );
    }
}
