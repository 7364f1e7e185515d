//! File downloads and saturated bulk senders.
//!
//! * A file download is one message of the file's size at `start` (seed 002
//!   measured downloads "from 8 KB to 32 MB").
//! * A saturated sender always has data: the driver asks [`Saturated::top_up`]
//!   how much to write whenever the send buffer has room, so the transport,
//!   not the application, limits the rate. Seed 000 section 4.4's background
//!   TCP flow is such a sender "with frame size of 1460 bytes".

use super::{invalid, Message, MessageSource};
use crate::rng::SimRng;
use crate::time::Nanos;

/// One file transfer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileConfig {
    /// File size in bytes, 1..=u32::MAX.
    pub bytes: u64,
    /// When the application hands the file to the transport. Default 0.
    pub start: Nanos,
}

/// Seed 002's download sizes: powers of two from 8 KiB to 32 MiB (the paper
/// names 8 KB, 16 KB, 4 MB, 8 MB, 16 MB and 32 MB; we fill the range and read
/// KB/MB as KiB/MiB).
pub fn file_presets() -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut b: u64 = 8 * 1024;
    while b <= 32 * 1024 * 1024 {
        let name = if b < 1024 * 1024 {
            format!("file-{}k", b / 1024)
        } else {
            format!("file-{}m", b / (1024 * 1024))
        };
        out.push((name, b));
        b *= 2;
    }
    out
}

impl FileConfig {
    pub fn new(bytes: u64) -> Self {
        FileConfig { bytes, start: 0 }
    }

    /// A preset by name, e.g. `file-8k`, `file-32m`.
    pub fn preset(name: &str) -> Result<Self, String> {
        file_presets()
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| Self::new(b))
            .ok_or_else(|| invalid("file", format!("unknown preset {name:?}")))
    }
}

/// Emits the file as a single message.
#[derive(Clone, Debug)]
pub struct FileSource {
    msg: Option<Message>,
}

impl FileSource {
    pub fn new(cfg: FileConfig) -> Result<Self, String> {
        if cfg.bytes == 0 || cfg.bytes > u32::MAX as u64 {
            return Err(invalid(
                "file",
                format!("size {} not in 1..=u32::MAX bytes", cfg.bytes),
            ));
        }
        Ok(FileSource {
            msg: Some(Message {
                at: cfg.start,
                bytes: cfg.bytes as u32,
            }),
        })
    }
}

impl MessageSource for FileSource {
    fn next(&mut self, _rng: &mut SimRng) -> Option<Message> {
        self.msg.take()
    }
}

/// A sender that always has data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SaturatedConfig {
    /// Bytes per application write. Default 1460 (seed 000 4.4 background TCP).
    pub frame_bytes: u32,
}

impl Default for SaturatedConfig {
    fn default() -> Self {
        SaturatedConfig { frame_bytes: 1460 }
    }
}

impl SaturatedConfig {
    /// Seed 000 section 4.4: "one long TCP flow ... a saturated sender sending
    /// as much data as possible with frame size of 1460 bytes".
    pub fn background_tcp() -> Self {
        Self::default()
    }
}

/// Saturated sender helper.
#[derive(Clone, Debug)]
pub struct Saturated {
    cfg: SaturatedConfig,
    written: u64,
}

impl Saturated {
    pub fn new(cfg: SaturatedConfig) -> Result<Self, String> {
        if cfg.frame_bytes == 0 {
            return Err(invalid("bulk", "frame_bytes must be > 0"));
        }
        Ok(Saturated { cfg, written: 0 })
    }

    /// Bytes to write now so that whole frames fill a send buffer holding
    /// `buffered` of `capacity` bytes. Returns 0 when less than a frame fits.
    pub fn top_up(&mut self, buffered: u64, capacity: u64) -> u64 {
        let room = capacity.saturating_sub(buffered);
        let n = room / self.cfg.frame_bytes as u64 * self.cfg.frame_bytes as u64;
        self.written += n;
        n
    }

    /// Total bytes handed to the transport so far.
    pub fn written(&self) -> u64 {
        self.written
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_is_one_message() {
        let mut f = FileSource::new(FileConfig {
            bytes: 32 << 20,
            start: 7,
        })
        .unwrap();
        let mut rng = SimRng::from_u64(0);
        assert_eq!(
            f.next(&mut rng),
            Some(Message {
                at: 7,
                bytes: 32 << 20
            })
        );
        assert_eq!(f.next(&mut rng), None);
        assert!(FileSource::new(FileConfig::new(0)).is_err());
        assert!(FileSource::new(FileConfig::new(1 << 40)).is_err());
    }

    #[test]
    fn presets_span_8k_to_32m() {
        let p = file_presets();
        assert_eq!(p.first().unwrap(), &("file-8k".to_string(), 8192));
        assert_eq!(p.last().unwrap(), &("file-32m".to_string(), 32 << 20));
        assert_eq!(FileConfig::preset("file-4m").unwrap().bytes, 4 << 20);
        assert!(FileConfig::preset("file-3m").is_err());
    }

    #[test]
    fn saturated_fills_whole_frames() {
        let mut s = Saturated::new(SaturatedConfig::background_tcp()).unwrap();
        assert_eq!(s.top_up(0, 10_000), 8760);
        assert_eq!(s.top_up(9000, 10_000), 0);
        assert_eq!(s.top_up(20_000, 10_000), 0);
        assert_eq!(s.written(), 8760);
        assert!(Saturated::new(SaturatedConfig { frame_bytes: 0 }).is_err());
    }
}
