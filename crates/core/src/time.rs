//! Integer time. Every model and the engine count nanoseconds in a `u64`
//! (584 years of range), so arithmetic is exact and runs are reproducible.

/// A point in time or a duration, in nanoseconds since the start of a run.
pub type Nanos = u64;

pub const NS: Nanos = 1;
pub const US: Nanos = 1_000;
pub const MS: Nanos = 1_000_000;
pub const SEC: Nanos = 1_000_000_000;

/// Milliseconds (possibly fractional) to nanoseconds, rounded to the nearest ns.
pub fn ms(v: f64) -> Nanos {
    (v * MS as f64).round().max(0.0) as Nanos
}

/// Seconds (possibly fractional) to nanoseconds, rounded to the nearest ns.
pub fn secs(v: f64) -> Nanos {
    (v * SEC as f64).round().max(0.0) as Nanos
}

/// Nanoseconds to (fractional) milliseconds, for reporting.
pub fn to_ms(t: Nanos) -> f64 {
    t as f64 / MS as f64
}

/// Nanoseconds to (fractional) seconds, for reporting.
pub fn to_secs(t: Nanos) -> f64 {
    t as f64 / SEC as f64
}

/// Time to serialise `bytes` at `rate_bps` bits per second, rounded up so a
/// link never runs faster than configured.
pub fn tx_time(bytes: u64, rate_bps: u64) -> Nanos {
    debug_assert!(rate_bps > 0);
    // Every packet fits in u64 arithmetic (up to ~2.3 GB), which gives the
    // same exact quotient as u128 without a software 128-bit division (this
    // runs for every packet on every link).
    if let Some(bits) = bytes.checked_mul(8 * SEC) {
        return bits.div_ceil(rate_bps);
    }
    let bits = bytes as u128 * 8 * SEC as u128;
    bits.div_ceil(rate_bps as u128) as Nanos
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialisation_time_of_a_full_packet() {
        // 1500 bytes at 10 Mbit/s = 1.2 ms
        assert_eq!(tx_time(1500, 10_000_000), 1_200_000);
        // never rounds down
        assert_eq!(tx_time(1, 3), 2_666_666_667);
        // the u64 shortcut and the u128 fallback agree
        let wide = |b: u64, r: u64| (b as u128 * 8 * SEC as u128).div_ceil(r as u128) as Nanos;
        for (b, r) in [
            (52, 3_000_001),
            (1500, 7),
            (65_535, 999_999_937),
            (2_000_000_000, 1_000_000_007),
            (3_000_000_000, 1 << 40),
        ] {
            assert_eq!(tx_time(b, r), wide(b, r), "{b} B at {r} bit/s");
        }
    }

    #[test]
    fn conversions_round_trip() {
        assert_eq!(ms(20.5), 20_500_000);
        assert_eq!(to_ms(ms(3.25)), 3.25);
        assert_eq!(secs(1.5), 1_500_000_000);
    }
}
