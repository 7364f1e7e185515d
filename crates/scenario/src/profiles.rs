//! Built-in link profiles.

use crate::types::{LinkParams, LossModel};
use crate::value::Range;

/// A named built-in link profile.
pub struct Builtin {
    pub name: &'static str,
    pub description: &'static str,
    pub params: fn() -> LinkParams,
}

fn r(lo: f64, hi: f64) -> Option<Range> {
    Some(if lo == hi {
        Range::Fixed(lo)
    } else {
        Range::Uniform { lo, hi }
    })
}

/// Built-in profiles: `wlan` and `3g` from seed 000 Table 3, plus common ones.
pub const BUILTIN: &[Builtin] = &[
    Builtin {
        name: "wlan",
        description: "WLAN: 20-30 Mbit/s, 20-25 ms, 1-2 % Bernoulli loss, 100-packet queue (seed 000 Table 3)",
        params: || LinkParams {
            rate_mbit: r(20.0, 30.0),
            delay_ms: r(20.0, 25.0),
            queue_packets: Some(100),
            loss: Some(LossModel::Bernoulli { percent: Range::Uniform { lo: 1.0, hi: 2.0 } }),
            ..Default::default()
        },
    },
    Builtin {
        name: "3g",
        description: "3G: 3-5 Mbit/s, 65-75 ms, no loss, 3750-packet queue (seed 000 Table 3)",
        params: || LinkParams {
            rate_mbit: r(3.0, 5.0),
            delay_ms: r(65.0, 75.0),
            queue_packets: Some(3750),
            loss: Some(LossModel::None),
            ..Default::default()
        },
    },
    Builtin {
        name: "lte",
        description: "LTE: 10-20 Mbit/s, 30-40 ms, no loss, 1000-packet queue",
        params: || LinkParams {
            rate_mbit: r(10.0, 20.0),
            delay_ms: r(30.0, 40.0),
            queue_packets: Some(1000),
            loss: Some(LossModel::None),
            ..Default::default()
        },
    },
    Builtin {
        name: "ethernet",
        description: "Fast Ethernet: 100 Mbit/s, 1 ms, no loss, 1000-packet queue",
        params: || LinkParams {
            rate_mbit: r(100.0, 100.0),
            delay_ms: r(1.0, 1.0),
            queue_packets: Some(1000),
            loss: Some(LossModel::None),
            ..Default::default()
        },
    },
    Builtin {
        name: "gigabit",
        description: "Gigabit Ethernet: 1000 Mbit/s, 0.1 ms, no loss, 1000-packet queue",
        params: || LinkParams {
            rate_mbit: r(1000.0, 1000.0),
            delay_ms: r(0.1, 0.1),
            queue_packets: Some(1000),
            loss: Some(LossModel::None),
            ..Default::default()
        },
    },
];

/// Look a built-in profile up by name.
pub fn builtin(name: &str) -> Option<LinkParams> {
    BUILTIN
        .iter()
        .find(|b| b.name == name)
        .map(|b| (b.params)())
}
