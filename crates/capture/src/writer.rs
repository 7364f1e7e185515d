//! The pcapng files (pcap-file's writer): one per host, one interface
//! description block per link of the host, enhanced packet blocks with
//! nanosecond timestamps and the direction flag.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::time::Duration;

use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::DataLink;

use mptlab_core::packet::IpVersion;

/// A host and the links it is attached to: (link index, link name, the
/// host's address on it).
#[derive(Clone, Debug)]
pub struct HostIfaces {
    pub host: usize,
    pub name: String,
    pub links: Vec<(usize, String, Option<u32>)>,
}

pub struct Files {
    files: Vec<(String, PcapNgWriter<BufWriter<File>>)>,
    /// (host, link) -> (file, interface id)
    ifaces: HashMap<(usize, usize), (usize, u32)>,
    error: Option<String>,
}

impl Files {
    pub fn create(
        dir: &Path,
        hosts: &[HostIfaces],
        snaplen: u32,
        ip: IpVersion,
    ) -> Result<Files, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("capture: {}: {e}", dir.display()))?;
        let mut files = Vec::new();
        let mut ifaces = HashMap::new();
        for h in hosts {
            let path = crate::Capture::host_file(dir, &h.name);
            let f = File::create(&path).map_err(|e| format!("capture: {}: {e}", path.display()))?;
            let mut w = PcapNgWriter::new(BufWriter::with_capacity(1 << 16, f))
                .map_err(|e| format!("capture: {}: {e}", path.display()))?;
            for (i, (link, name, addr)) in h.links.iter().enumerate() {
                let mut options = vec![
                    InterfaceDescriptionOption::IfName(Cow::Owned(name.clone())),
                    // 10^-9 s: the simulator's nanoseconds, exactly
                    InterfaceDescriptionOption::IfTsResol(9),
                ];
                match (addr, ip) {
                    (Some(a), IpVersion::V4) => {
                        let mut v = a.to_be_bytes().to_vec();
                        v.extend_from_slice(&[255, 255, 255, 255]);
                        options.push(InterfaceDescriptionOption::IfIpv4Addr(Cow::Owned(v)));
                    }
                    (Some(a), IpVersion::V6) => {
                        // if_IPv6addr: address and prefix length (pcapng 4.2).
                        let mut v = crate::ip::v6(*a).to_vec();
                        v.push(128);
                        options.push(InterfaceDescriptionOption::IfIpv6Addr(Cow::Owned(v)));
                    }
                    (None, _) => {}
                }
                let idb = InterfaceDescriptionBlock {
                    linktype: DataLink::RAW,
                    snaplen: if snaplen == 0 { 0 } else { snaplen },
                    options,
                };
                w.write_pcapng_block(idb)
                    .map_err(|e| format!("capture: {}: {e}", path.display()))?;
                ifaces.insert((h.host, *link), (files.len(), i as u32));
            }
            files.push((path.display().to_string(), w));
        }
        Ok(Files {
            files,
            ifaces,
            error: None,
        })
    }

    #[inline]
    pub fn iface(&self, host: usize, link: usize) -> Option<(usize, u32)> {
        self.ifaces.get(&(host, link)).copied()
    }

    pub fn write(
        &mut self,
        (file, id): (usize, u32),
        at: u64,
        outbound: bool,
        data: &[u8],
        len: u32,
    ) {
        if self.error.is_some() {
            return;
        }
        let (name, w) = &mut self.files[file];
        let epb = EnhancedPacketBlock {
            interface_id: id,
            timestamp: Duration::from_nanos(at),
            original_len: len,
            data: Cow::Borrowed(data),
            // epb_flags bits 0-1: 1 inbound, 2 outbound (pcapng section 4.3.1)
            options: vec![EnhancedPacketOption::Flags(if outbound { 2 } else { 1 })],
        };
        if let Err(e) = w.write_pcapng_block(epb) {
            self.error = Some(format!("capture: {name}: {e}"));
        }
    }

    pub fn finish(self) -> Result<(), String> {
        if let Some(e) = self.error {
            return Err(e);
        }
        for (name, w) in self.files {
            use std::io::Write;
            w.into_inner()
                .flush()
                .map_err(|e| format!("capture: {name}: {e}"))?;
        }
        Ok(())
    }
}
