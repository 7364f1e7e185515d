//! gzip-compressed capture files. Kernel captures kept in the repository
//! (`mptlab validate --decisions --compact-kernel`, docs/validation.md) are
//! stored as `*.pcap.gz`: their payload is mostly the agent's zero fill, so
//! gzip shrinks them about 30-fold without dropping a byte, and every
//! reader of captures takes them unchanged (the hello, message headers and
//! DSS options the analysis reads stay where they were).

use std::io::{Read, Write};
use std::path::Path;

/// The two bytes every gzip member starts with (RFC 1952 2.3.1).
const MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The bytes of a capture file, decompressed when it is gzip. A damaged
/// gzip file (cut short, a changed byte: the trailer's CRC-32 and length no
/// longer match) is an error naming the file, never a shorter capture.
pub fn read_file(path: &Path) -> Result<Vec<u8>, String> {
    let raw = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !raw.starts_with(&MAGIC) {
        return Ok(raw);
    }
    let mut out = Vec::with_capacity(raw.len() * 8);
    flate2::read::GzDecoder::new(raw.as_slice())
        .read_to_end(&mut out)
        .map_err(|e| format!("{}: damaged gzip file: {e}", path.display()))?;
    Ok(out)
}

/// `buf` gzip-compressed (best compression; no file name and a zero time in
/// the header, so the same capture always gives the same bytes).
pub fn compress(buf: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(buf).expect("writing to memory");
    e.finish().expect("writing to memory")
}
