//! pcapng captures of the simulator's packets.
//!
//! The models exchange decoded packets (`mptlab_core::packet`), never bytes;
//! this crate gives them their real wire encodings (IPv4, TCP with its
//! options, MPTCP as RFC 8684 version 1 specifies, SCTP with CRC32c, UDP)
//! and writes them as pcapng, so a simulated run can be opened in
//! Wireshark/tshark or read back by `mptlab analyze`.
//!
//! Layout (docs/captures.md): one file per host, `<host>.pcapng`, with one
//! interface block per link attached to the host (named after the link), as
//! `tcpdump -i any` on that host would see: a packet the host sends is
//! recorded when the host hands it to its interface (before the link's
//! queue and loss, so a packet the network drops still appears, as at the
//! sending socket), a packet it receives when it arrives. Link type raw
//! IP (LINKTYPE_RAW: IPv4 or IPv6 as `transport.ip_version` says, IPv6
//! addresses mapped from the IPv4 plan by [`ip::v6`]), nanosecond
//! timestamps since the start of the run.
//!
//! Payload bytes are zeros, except that the traffic agent's 24-byte framing
//! header is written at each message start (see [`messages`]); with a snap
//! length, frames are cut after that many bytes (checksums stay those of
//! the whole packet).

pub mod ip;
pub mod keys;
pub mod messages;
pub mod mptcp;
pub mod sctp;
pub mod tcp;
mod udp;
mod writer;

use std::path::{Path, PathBuf};

use mptlab_core::packet::{IpVersion, Packet, Payload};
use mptlab_core::Nanos;

pub use messages::Messages;
pub use writer::HostIfaces;

/// What to capture and where.
#[derive(Clone, Debug)]
pub struct Options {
    /// Directory of the run's files (created if missing).
    pub dir: PathBuf,
    /// Bytes kept of each frame (0 = whole frames).
    pub snaplen: u32,
    /// The run's seed: keys, nonces and ISNs are drawn from it.
    pub seed: u64,
    /// The IP version the packets are written in (the model's).
    pub ip: IpVersion,
}

/// Counts of what was written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub packets: u64,
    pub bytes: u64,
    /// DSS mappings left out because the options were full (should be 0).
    pub dss_left_out: u64,
}

/// The capture of one run: one pcapng file per host.
pub struct Capture {
    seed: u64,
    ip: IpVersion,
    snaplen: u32,
    files: writer::Files,
    tcp: tcp::TcpState,
    /// Message starts announced by the applications.
    pub messages: Messages,
    buf: Vec<u8>,
    stats: Stats,
}

impl Capture {
    /// Create the files of `hosts` in `opts.dir`.
    pub fn create(opts: &Options, hosts: &[HostIfaces]) -> Result<Capture, String> {
        let files = writer::Files::create(&opts.dir, hosts, opts.snaplen, opts.ip)?;
        Ok(Capture {
            seed: opts.seed,
            ip: opts.ip,
            snaplen: opts.snaplen,
            files,
            tcp: tcp::TcpState::new(opts.ip),
            messages: Messages::default(),
            buf: Vec::with_capacity(2048),
            stats: Stats::default(),
        })
    }

    /// Record packet `p` at `host` on its interface to link `link` at time
    /// `at`: `outbound` if the host sends it; `from_client` if its sender is
    /// the client side of its flow.
    pub fn packet(
        &mut self,
        at: Nanos,
        host: usize,
        link: usize,
        outbound: bool,
        from_client: bool,
        p: &Packet,
    ) {
        let Some(iface) = self.files.iface(host, link) else {
            return;
        };
        match &p.payload {
            Payload::Tcp(s) => tcp::encode(
                &mut self.tcp,
                &self.messages,
                self.seed,
                from_client,
                p,
                s,
                &mut self.buf,
            ),
            Payload::Sctp(s) => sctp::encode(
                self.ip,
                &self.messages,
                self.seed,
                from_client,
                p,
                s,
                &mut self.buf,
            ),
            Payload::Udp(d) => {
                udp::encode(self.ip, &self.messages, from_client, p, d, &mut self.buf)
            }
        }
        let cut = if self.snaplen > 0 {
            self.buf.len().min(self.snaplen as usize)
        } else {
            self.buf.len()
        };
        self.stats.packets += 1;
        self.stats.bytes += self.buf.len() as u64;
        self.files
            .write(iface, at, outbound, &self.buf[..cut], self.buf.len() as u32);
    }

    /// Flush and close the files; the first write error, if any.
    pub fn finish(mut self) -> Result<Stats, String> {
        self.stats.dss_left_out = self.tcp.dss_left_out;
        self.files.finish()?;
        Ok(self.stats)
    }

    /// The file of a host in a capture directory.
    pub fn host_file(dir: &Path, host: &str) -> PathBuf {
        dir.join(format!("{host}.pcapng"))
    }
}
