//! Messages larger than the SCTP send buffer, found before running.
//!
//! SCTP refuses a message larger than its send buffer at the send call
//! (Linux `sctp_sendmsg_parse`, net/sctp/socket.c: `msg_len >
//! sk->sk_sndbuf` -> `-EMSGSIZE`), and the simulator models it so: the
//! message is never sent and is counted in `messages_refused`. When the
//! traffic model's message size is known in advance (CBR video frames,
//! bursts) `mptlab check` says so up front. It is a warning, not an error:
//! the scenario is valid and the run reports what a real stack would do
//! (e.g. a sweep over `transport.sndbuf_kib` may well include buffers too
//! small for the frames); but a user who did not mean it learns before
//! waiting for the results.

use crate::registry::Protocol;
use crate::{Scenario, TrafficModel};

/// (smallest, largest) message size in bytes of a traffic model whose
/// sizes are fixed by its keys, and those keys; None for models with
/// random or trace-driven sizes, or that write byte streams (file, web,
/// bulk: written in pieces as the buffer has room).
fn message_sizes(m: &TrafficModel) -> Option<(u64, u64, String)> {
    match m {
        TrafficModel::Video { bitrate_kbit, fps } => {
            // as the simulator builds its video source (mptlab-sim
            // runner.rs) and as VideoSource cuts frames: frame n has
            // floor((n+1)R/8f) - floor(nR/8f) bytes, i.e. floor or ceil of
            // R/8f (the simulator adds no framing)
            let bps = (bitrate_kbit * 1000.0).round() as u64;
            let f = fps.round() as u64;
            if f == 0 || bps < 8 * f {
                return None;
            }
            let lo = bps / (8 * f);
            let hi = bps.div_ceil(8 * f);
            Some((
                lo,
                hi,
                format!(
                    "video frames of traffic.bitrate_kbit = {bitrate_kbit} at traffic.fps = {fps}"
                ),
            ))
        }
        TrafficModel::Bursts { size_bytes, .. } => Some((
            *size_bytes,
            *size_bytes,
            format!("bursts of traffic.size_bytes = {size_bytes}"),
        )),
        _ => None,
    }
}

/// The warning for a scenario whose SCTP messages (of a model with fixed
/// sizes) are larger than the send buffer, naming the file and keys; None
/// when they fit or the protocol is not SCTP.
pub fn sctp_send_buffer_warning(s: &Scenario) -> Option<String> {
    if !matches!(s.transport.protocol, Protocol::Sctp | Protocol::CmtSctp) {
        return None;
    }
    let (lo, hi, what) = message_sizes(&s.traffic.model)?;
    let sndbuf = s.transport.sndbuf_kib as u64 * 1024;
    if hi <= sndbuf {
        return None;
    }
    let (which, size) = if lo > sndbuf {
        (
            "every message",
            if lo == hi {
                format!("{hi} bytes")
            } else {
                format!("{lo}-{hi} bytes")
            },
        )
    } else {
        ("the messages", format!("{hi} bytes"))
    };
    Some(format!(
        "{}: {which} ({what}: {size}) is larger than the {} send buffer of {sndbuf} bytes \
         (transport.sndbuf_kib = {}); SCTP refuses such a send (EMSGSIZE, as Linux), so these \
         messages will never be sent: they count as undelivered and in `messages_refused`. \
         Set transport.sndbuf_kib >= {} to send them",
        s.origin,
        s.transport.protocol,
        s.transport.sndbuf_kib,
        hi.div_ceil(1024),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(protocol: &str, sndbuf_kib: u32, traffic: &str) -> Scenario {
        let text = format!(
            "[scenario]\nname = \"m\"\nduration_s = 10\n[topology]\npreset = \"two-path\"\npaths = [\"wlan\", \"3g\"]\n\
             [transport]\nprotocol = \"{protocol}\"\nsndbuf_kib = {sndbuf_kib}\n[traffic]\n{traffic}\n"
        );
        Scenario::from_str(&text, "m.toml").unwrap()
    }

    #[test]
    fn video_frames_larger_than_the_send_buffer_are_flagged() {
        // 2000 kbit/s at 30 fps: frames of 8333 or 8334 bytes
        let v = "model = \"video\"\nbitrate_kbit = 2000\nfps = 30";
        let w = sctp_send_buffer_warning(&scenario("sctp", 4, v)).unwrap();
        assert!(w.starts_with("m.toml: every message"), "{w}");
        for part in [
            "8333-8334 bytes",
            "traffic.bitrate_kbit = 2000",
            "transport.sndbuf_kib = 4",
            "sndbuf_kib >= 9",
        ] {
            assert!(w.contains(part), "{part}: {w}");
        }
        assert!(sctp_send_buffer_warning(&scenario("cmt-sctp", 8, v)).is_some());
        // 8 KiB = 8192 < 8333; 9 KiB holds every frame
        assert!(sctp_send_buffer_warning(&scenario("sctp", 9, v)).is_none());
        // byte streams take any message in pieces
        for p in ["tcp", "mptcp", "udp"] {
            assert!(
                sctp_send_buffer_warning(&scenario(p, 4, v)).is_none(),
                "{p}"
            );
        }
    }

    #[test]
    fn frames_just_over_the_buffer_are_told_apart() {
        let v = |kbit: &str| format!("model = \"video\"\nbitrate_kbit = {kbit}\nfps = 3");
        // 196,620 bit/s at 3 fps = 8192.5 bytes: frames of 8192 (fit the
        // 8 KiB buffer) and 8193 (refused)
        let w = sctp_send_buffer_warning(&scenario("sctp", 8, &v("196.62"))).unwrap();
        assert!(w.starts_with("m.toml: the messages"), "{w}");
        assert!(w.contains("8193 bytes"), "{w}");
        // 196,608 / 24 = 8192 exactly: every frame fits (Linux refuses only
        // msg_len > sk_sndbuf)
        assert!(sctp_send_buffer_warning(&scenario("sctp", 8, &v("196.608"))).is_none());
    }

    #[test]
    fn bursts_larger_than_the_send_buffer_are_flagged() {
        let b = "model = \"bursts\"\ncount = 3\nsize_bytes = 100000\ninterval_s = 1";
        let w = sctp_send_buffer_warning(&scenario("sctp", 64, b)).unwrap();
        assert!(w.contains("traffic.size_bytes = 100000"), "{w}");
        assert!(w.contains("100000 bytes"), "{w}");
        assert!(sctp_send_buffer_warning(&scenario("sctp", 98, b)).is_none());
        // file transfers are written in pieces: never refused
        let f = "model = \"file\"\nsize_bytes = 10000000";
        assert!(sctp_send_buffer_warning(&scenario("sctp", 4, f)).is_none());
    }
}
