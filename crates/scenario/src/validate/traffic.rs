//! `[traffic]`: the foreground application, typed per model.

use super::{err, num, VResult, INF};
use crate::files::Files;
use crate::limits::*;
use crate::registry::*;
use crate::types::*;
use crate::*;

pub(super) fn resolve(
    file: &ScenarioFile,
    npaths: usize,
    base_dir: &std::path::Path,
    files: &mut Files,
) -> VResult<Traffic> {
    let m = &file.scenario;
    let tf = &file.traffic;
    let dur = m.duration_s;
    num(
        "traffic.start_s",
        tf.start_s,
        0.0,
        false,
        INF,
        "a start time in s",
    )?;
    if tf.start_s >= dur {
        return err(
            "traffic.start_s",
            format!(
                "expected a start time before the end of the run ({dur} s), found {}",
                tf.start_s
            ),
        );
    }
    if let Some(s) = tf.stop_s {
        if s.partial_cmp(&tf.start_s) != Some(std::cmp::Ordering::Greater) {
            return err(
                "traffic.stop_s",
                format!(
                    "expected a stop time after start_s = {}, found {s}",
                    tf.start_s
                ),
            );
        }
    }
    let keys = [
        ("bitrate_kbit", tf.bitrate_kbit.is_some()),
        ("fps", tf.fps.is_some()),
        ("trace", tf.trace.is_some()),
        ("site", tf.site.is_some()),
        ("objects_bytes", tf.objects_bytes.is_some()),
        ("max_connections", tf.max_connections.is_some()),
        ("size_bytes", tf.size_bytes.is_some()),
        ("count", tf.count.is_some()),
        ("interval_s", tf.interval_s.is_some()),
        ("failover_path", tf.failover_path.is_some()),
        ("failover_after_s", tf.failover_after_s.is_some()),
        ("client_hello_bytes", tf.client_hello_bytes.is_some()),
    ];
    let allowed: &[&str] = match tf.model {
        TrafficModelName::Video => &["bitrate_kbit", "fps", "client_hello_bytes"],
        TrafficModelName::Gaming => &["trace", "client_hello_bytes"],
        TrafficModelName::Web => &["site", "objects_bytes", "max_connections"],
        TrafficModelName::File => &["size_bytes", "client_hello_bytes"],
        TrafficModelName::Bursts => &["count", "size_bytes", "interval_s", "client_hello_bytes"],
        TrafficModelName::Bulk => &["failover_path", "failover_after_s", "client_hello_bytes"],
    };
    for (k, present) in keys {
        if present && !allowed.contains(&k) {
            let exp = if allowed.is_empty() {
                "no model-specific keys".to_string()
            } else {
                format!("keys {}", allowed.join(", "))
            };
            return err(
                format!("traffic.{k}"),
                format!(
                    "key `{k}` does not apply to model \"{}\" (expected {exp})",
                    tf.model
                ),
            );
        }
    }
    let model = match tf.model {
        TrafficModelName::Video => {
            let bitrate_kbit = tf.bitrate_kbit.unwrap_or(950.0);
            let fps = tf.fps.unwrap_or(30.0);
            num(
                "traffic.bitrate_kbit",
                bitrate_kbit,
                0.0,
                true,
                1e7,
                "a bitrate in kbit/s",
            )?;
            // the simulator sends round(fps) frames per second
            num("traffic.fps", fps, 1.0, false, 1000.0, "a frame rate")?;
            // ... of round(bitrate) bit/s, and every frame carries >= 1 byte
            // (mptlab_core::traffic::video::VideoSource::new)
            let (bps, frames) = ((bitrate_kbit * 1000.0).round(), fps.round());
            if bps < 8.0 * frames {
                return err(
                    "traffic.bitrate_kbit",
                    format!(
                        "expected a bitrate of at least one byte per frame ({} kbit/s at {frames} frames/s), found {}",
                        8.0 * frames / 1000.0,
                        super::show(bitrate_kbit)
                    ),
                );
            }
            TrafficModel::Video { bitrate_kbit, fps }
        }
        TrafficModelName::Gaming => {
            let t = tf.trace.clone().ok_or_else(|| {
                (
                    "traffic".to_string(),
                    "missing key `trace` (t1, t2, t3 or a trace file)".to_string(),
                )
            })?;
            let trace = if GAMING_TRACES.iter().any(|(n, _)| *n == t) {
                GamingTrace::Builtin(t)
            } else {
                let p = base_dir.join(&t);
                if !p.is_file() {
                    let names: Vec<_> = GAMING_TRACES.iter().map(|(n, _)| *n).collect();
                    return err(
                        "traffic.trace",
                        format!(
                            "expected a built-in trace ({}) or an existing file, found \"{t}\" (no file {}){}",
                            names.join(", "),
                            p.display(),
                            crate::suggest::hint(&t, names.iter().copied())
                        ),
                    );
                }
                // read and parsed as the simulator will (crate::files)
                files.check_gaming_trace(&p).map_err(|e| {
                    (
                        "traffic.trace".to_string(),
                        format!("expected a gaming trace: {e}"),
                    )
                })?;
                GamingTrace::File(p)
            };
            TrafficModel::Gaming { trace }
        }
        TrafficModelName::Web => {
            let page = match (&tf.site, &tf.objects_bytes) {
                (Some(_), Some(_)) => {
                    return err(
                        "traffic.objects_bytes",
                        "expected either `site` or `objects_bytes`, found both",
                    )
                }
                (None, None) => {
                    return err(
                        "traffic",
                        "missing key `site` or `objects_bytes` for model \"web\"",
                    )
                }
                (Some(s), None) => {
                    if !WEB_SITES.iter().any(|(n, _)| n == s) {
                        let names: Vec<_> = WEB_SITES.iter().map(|(n, _)| *n).collect();
                        return err(
                            "traffic.site",
                            format!(
                                "expected a web site name (one of {}), found \"{s}\"{}",
                                names.join(", "),
                                crate::suggest::hint(s, names.iter().copied())
                            ),
                        );
                    }
                    WebPage::Site(s.clone())
                }
                (None, Some(o)) => {
                    if o.is_empty() {
                        return err(
                            "traffic.objects_bytes",
                            "expected a non-empty list of object sizes >= 1 byte",
                        );
                    }
                    // objects are u32 in the browser model (core Page::from_sizes)
                    for (i, &b) in o.iter().enumerate() {
                        if b == 0 || b > u32::MAX as u64 {
                            return err(
                                format!("traffic.objects_bytes[{i}]"),
                                format!(
                                    "expected an object size from 1 to {} bytes (4 GiB - 1), found {b}",
                                    u32::MAX
                                ),
                            );
                        }
                    }
                    WebPage::Objects(o.clone())
                }
            };
            let max_connections = tf.max_connections.unwrap_or(6);
            num(
                "traffic.max_connections",
                max_connections as f64,
                1.0,
                false,
                1000.0,
                "a connection count",
            )?;
            TrafficModel::Web {
                page,
                max_connections,
            }
        }
        TrafficModelName::File => {
            let size_bytes = tf.size_bytes.ok_or_else(|| {
                (
                    "traffic".to_string(),
                    "missing key `size_bytes` for model \"file\"".to_string(),
                )
            })?;
            if size_bytes == 0 || size_bytes > MAX_TRANSFER_BYTES {
                return err(
                    "traffic.size_bytes",
                    format!("expected a file size from 1 to {MAX_TRANSFER_BYTES} bytes (2^53, docs/scenario.md, limits), found {size_bytes}"),
                );
            }
            TrafficModel::File { size_bytes }
        }
        TrafficModelName::Bursts => {
            let missing = |k: &str| {
                (
                    "traffic".to_string(),
                    format!("missing key `{k}` for model \"bursts\""),
                )
            };
            let count = tf.count.ok_or_else(|| missing("count"))?;
            let size_bytes = tf.size_bytes.ok_or_else(|| missing("size_bytes"))?;
            let interval_s = tf.interval_s.ok_or_else(|| missing("interval_s"))?;
            num(
                "traffic.count",
                count as f64,
                1.0,
                false,
                1e7,
                "a burst count",
            )?;
            num(
                "traffic.size_bytes",
                size_bytes as f64,
                1.0,
                false,
                u32::MAX as f64,
                "a burst size in bytes",
            )?;
            num(
                "traffic.interval_s",
                interval_s,
                0.0,
                true,
                1e6,
                "an interval in s",
            )?;
            TrafficModel::Bursts {
                count,
                size_bytes,
                interval_s,
            }
        }
        TrafficModelName::Bulk => TrafficModel::Bulk,
    };
    if !file.transport.protocol.is_reliable()
        && matches!(
            model,
            TrafficModel::Web { .. }
                | TrafficModel::File { .. }
                | TrafficModel::Bursts { .. }
                | TrafficModel::Bulk
        )
    {
        return err(
            "transport.protocol",
            format!(
                "traffic model \"{}\" needs a reliable protocol, found \"udp\"",
                tf.model
            ),
        );
    }
    let failover = match (tf.failover_path, tf.failover_after_s) {
        (None, None) => None,
        (None, Some(_)) => {
            return err(
                "traffic.failover_after_s",
                "needs `traffic.failover_path` (the client path to reconnect on)",
            )
        }
        (Some(p), after) => {
            if file.transport.protocol != Protocol::Tcp {
                return err(
                    "traffic.failover_path",
                    format!(
                        "application failover reconnects single-path TCP; found protocol \"{}\"",
                        file.transport.protocol
                    ),
                );
            }
            if p == 0 || p as usize > npaths {
                return err(
                    "traffic.failover_path",
                    format!("expected a client path number from 1 to {npaths}, found {p}"),
                );
            }
            if p == file.transport.path || file.transport.random_path {
                return err(
                    "traffic.failover_path",
                    format!("must differ from the initial path transport.path = {} (and transport.random_path must be off)", file.transport.path),
                );
            }
            let after_s = after.unwrap_or(2.0);
            num(
                "traffic.failover_after_s",
                after_s,
                0.0,
                true,
                1e6,
                "a stall time in s",
            )?;
            Some(Failover { path: p, after_s })
        }
    };
    let client_hello_bytes = tf.client_hello_bytes.unwrap_or(0);
    if client_hello_bytes > 0 {
        if !matches!(file.transport.protocol, Protocol::Tcp | Protocol::Mptcp) {
            return err(
                "traffic.client_hello_bytes",
                format!(
                    "a client hello is written into a TCP or MPTCP byte stream; found protocol \"{}\"",
                    file.transport.protocol
                ),
            );
        }
        if client_hello_bytes > 1 << 20 {
            return err(
                "traffic.client_hello_bytes",
                format!("expected at most 1048576 bytes, found {client_hello_bytes}"),
            );
        }
    }
    Ok(Traffic {
        model,
        direction: tf.direction,
        start_s: tf.start_s,
        stop_s: tf.stop_s,
        failover,
        client_hello_bytes,
    })
}
