//! Replay of a recorded packet trace, as seed 000 did with D-ITG (4.3.2: "D-ITG
//! is loaded with full trace and it generates packets of exact size and time
//! sequence as seen in the trace file").
//!
//! Two input forms, both parsed from text so the core never touches files
//! (the caller reads the file and passes its name for error messages):
//! * D-ITG's `-Ft` / `-Fs` pair: one inter-departure time in milliseconds per
//!   line, and one packet size in bytes per line. D-ITG sends a packet and then
//!   waits the next inter-departure time, so packet 0 leaves at t = 0 and
//!   packet i at the sum of the first i times.
//! * CSV `time_ms,size_bytes` with absolute times; an optional header line.
//!
//! Blank lines and lines starting with `#` are skipped in both forms.

use super::{Message, MessageSource};
use crate::rng::SimRng;
use crate::time::{ms, Nanos};

/// Latest send time a trace may give, in ms (10^10 ms, about 116 days: the
/// longest run `scenario.duration_s` allows is 10^7 s). Replay adds the
/// traffic's start time to it in u64 nanoseconds; a time near 1.8e13 ms or
/// beyond overflowed that (found by fuzzing: fuzz/fuzz_targets/gaming_trace.rs).
pub const MAX_TIME_MS: f64 = crate::trace::MAX_TIMESTAMP_MS as f64;

/// A parsed trace: absolute send offsets and sizes, in time order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    pub packets: Vec<Message>,
}

fn data_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
}

fn parse_ms(name: &str, line: usize, s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("{name}:{line}: not a number of milliseconds: {s:?}"))?;
    if !v.is_finite() || !(0.0..=MAX_TIME_MS).contains(&v) {
        return Err(format!(
            "{name}:{line}: time must be >= 0 and <= {} ms, got {s:?}",
            crate::trace::MAX_TIMESTAMP_MS
        ));
    }
    Ok(v)
}

fn parse_size(name: &str, line: usize, s: &str) -> Result<u32, String> {
    let v: u32 = s
        .trim()
        .parse()
        .map_err(|_| format!("{name}:{line}: not a packet size in bytes: {s:?}"))?;
    if v == 0 {
        return Err(format!("{name}:{line}: packet size must be > 0"));
    }
    Ok(v)
}

impl Trace {
    /// Parse a D-ITG `-Ft` (inter-departure ms) / `-Fs` (bytes) pair. The two
    /// files must have the same number of entries.
    pub fn from_ditg(
        idt_name: &str,
        idt_text: &str,
        size_name: &str,
        size_text: &str,
    ) -> Result<Trace, String> {
        let idts = data_lines(idt_text)
            .map(|(n, l)| parse_ms(idt_name, n, l))
            .collect::<Result<Vec<_>, _>>()?;
        let sizes = data_lines(size_text)
            .map(|(n, l)| parse_size(size_name, n, l))
            .collect::<Result<Vec<_>, _>>()?;
        if idts.is_empty() {
            return Err(format!("{idt_name}: empty trace"));
        }
        if sizes.is_empty() {
            return Err(format!("{size_name}: empty trace"));
        }
        if idts.len() != sizes.len() {
            return Err(format!(
                "{idt_name} has {} inter-departure times but {size_name} has {} sizes",
                idts.len(),
                sizes.len()
            ));
        }
        // accumulate in f64 ms and round once per packet, so rounding errors
        // do not build up over a long trace
        let mut t_ms = 0.0;
        let mut packets = Vec::with_capacity(sizes.len());
        for (i, &bytes) in sizes.iter().enumerate() {
            if t_ms > MAX_TIME_MS {
                return Err(format!(
                    "{idt_name}: packet {} would be sent at {t_ms} ms, beyond the latest supported time, {MAX_TIME_MS:e} ms",
                    i + 1
                ));
            }
            packets.push(Message {
                at: ms(t_ms),
                bytes,
            });
            t_ms += idts[i];
        }
        Ok(Trace { packets })
    }

    /// Parse a `time_ms,size_bytes` CSV with absolute, non-decreasing times.
    pub fn from_csv(name: &str, text: &str) -> Result<Trace, String> {
        let mut packets = Vec::new();
        for (k, (n, l)) in data_lines(text).enumerate() {
            let mut cols = l.split(',');
            let (t, s) = match (cols.next(), cols.next(), cols.next()) {
                (Some(t), Some(s), None) => (t, s),
                _ => {
                    return Err(format!(
                        "{name}:{n}: expected two columns time_ms,size_bytes: {l:?}"
                    ))
                }
            };
            // a header is allowed only as the first data line
            if k == 0 && t.trim().parse::<f64>().is_err() && s.trim().parse::<u32>().is_err() {
                continue;
            }
            let t_ms = parse_ms(name, n, t)?; // bounded by MAX_TIME_MS
            let at = ms(t_ms);
            let bytes = parse_size(name, n, s)?;
            if packets.last().is_some_and(|p: &Message| at < p.at) {
                return Err(format!("{name}:{n}: time goes backwards"));
            }
            packets.push(Message { at, bytes });
        }
        if packets.is_empty() {
            return Err(format!("{name}: empty trace"));
        }
        Ok(Trace { packets })
    }

    /// Mean inter-departure time (ms) and mean packet size (bytes).
    pub fn means(&self) -> (f64, f64) {
        let n = self.packets.len();
        let span = self.packets[n - 1].at - self.packets[0].at;
        let idt = if n > 1 {
            crate::time::to_ms(span) / (n - 1) as f64
        } else {
            0.0
        };
        let size = self.packets.iter().map(|p| p.bytes as f64).sum::<f64>() / n as f64;
        (idt, size)
    }
}

/// Plays a [`Trace`] once, shifted by `start`.
#[derive(Clone, Debug)]
pub struct TraceSource {
    trace: Trace,
    start: Nanos,
    i: usize,
}

impl TraceSource {
    pub fn new(trace: Trace, start: Nanos) -> Self {
        TraceSource { trace, start, i: 0 }
    }
}

impl MessageSource for TraceSource {
    fn next(&mut self, _rng: &mut SimRng) -> Option<Message> {
        let p = *self.trace.packets.get(self.i)?;
        self.i += 1;
        Some(Message {
            at: self.start.saturating_add(p.at),
            bytes: p.bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    #[test]
    fn ditg_pair() {
        let t = Trace::from_ditg("t.idt", "10\n# c\n\n2.5\n0\n", "t.ps", "100\n1448\n7\n").unwrap();
        let at: Vec<_> = t.packets.iter().map(|p| p.at).collect();
        assert_eq!(at, vec![0, 10 * MS, 12 * MS + MS / 2]);
        assert_eq!(t.packets[1].bytes, 1448);
        let mut s = TraceSource::new(t, 1000);
        let mut rng = SimRng::from_u64(0);
        assert_eq!(s.next(&mut rng).unwrap().at, 1000);
    }

    #[test]
    fn ditg_errors_name_file_and_line() {
        let e = Trace::from_ditg("a.idt", "1\nx\n", "a.ps", "1\n2\n").unwrap_err();
        assert!(e.contains("a.idt:2"), "{e}");
        let e = Trace::from_ditg("a.idt", "1\n2\n", "a.ps", "1\n-2\n").unwrap_err();
        assert!(e.contains("a.ps:2"), "{e}");
        let e = Trace::from_ditg("a.idt", "1\n-2\n", "a.ps", "1\n2\n").unwrap_err();
        assert!(e.contains("a.idt:2"), "{e}");
        assert!(Trace::from_ditg("a.idt", "", "a.ps", "1")
            .unwrap_err()
            .contains("empty"));
        assert!(Trace::from_ditg("a.idt", "1\n2", "a.ps", "1")
            .unwrap_err()
            .contains("a.ps has 1"));
    }

    #[test]
    fn csv_with_and_without_header() {
        let a = Trace::from_csv("g.csv", "time_ms,size_bytes\n0,100\n81.4,142\n").unwrap();
        let b = Trace::from_csv("g.csv", "0,100\n81.4,142\n").unwrap();
        assert_eq!(a, b);
        assert_eq!(
            a.packets[1],
            Message {
                at: 81_400_000,
                bytes: 142
            }
        );
        let (idt, size) = a.means();
        assert!((idt - 81.4).abs() < 1e-9 && (size - 121.0).abs() < 1e-9);
    }

    #[test]
    fn csv_errors() {
        assert!(Trace::from_csv("g.csv", "").unwrap_err().contains("empty"));
        assert!(Trace::from_csv("g.csv", "0,1\n1;2\n")
            .unwrap_err()
            .contains("g.csv:2"));
        assert!(Trace::from_csv("g.csv", "5,1\n1,2\n")
            .unwrap_err()
            .contains("backwards"));
        assert!(Trace::from_csv("g.csv", "0,1\n1,0\n")
            .unwrap_err()
            .contains("g.csv:2"));
        assert!(Trace::from_csv("g.csv", "0,1\nfoo,bar\n")
            .unwrap_err()
            .contains("g.csv:2"));
    }

    /// fuzz/regressions/gaming_trace/: a time of 7.8e55 ms saturated to
    /// u64::MAX ns, and replay's start + time overflowed (a panic in debug
    /// builds, a wrap-around to a near-zero send time in release builds).
    #[test]
    fn times_beyond_the_bound_are_rejected() {
        let e = Trace::from_csv("g.csv", "0,1\n7.8e55,10\n").unwrap_err();
        // parse_ms refuses it first (the bound is the same, MAX_TIME_MS)
        assert!(
            e.starts_with("g.csv:2: time must be >= 0 and <= 10000000000 ms"),
            "{e}"
        );
        let e = Trace::from_ditg("g.idt", "6e9\n6e9\n1\n", "g.ps", "1\n1\n1\n").unwrap_err();
        assert!(
            e.starts_with("g.idt: packet 3 would be sent at 12000000000 ms"),
            "{e}"
        );
        // the bound itself replays without overflow from the latest start
        let t = Trace::from_csv("g.csv", "0,1\n1e10,1\n").unwrap();
        let mut src = TraceSource::new(t, 10_000_000 * 1000 * MS);
        let mut rng = SimRng::from_u64(1);
        assert!(src.next(&mut rng).is_some());
        assert_eq!(src.next(&mut rng).unwrap().at, 2 * 10_000_000_000 * MS);
    }
}
