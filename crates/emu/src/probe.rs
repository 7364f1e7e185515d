//! Measurement probes that keep user-space scheduling out of the numbers.
//!
//! A receiving thread may wake milliseconds after its packet arrived when the
//! host is busy, so probes read the kernel's receive timestamp
//! (SO_TIMESTAMPNS, taken when the packet entered the stack: for an emulated
//! link, the moment the emulator wrote it to the TUN device) instead of the
//! time `recv` returned. The ping uses ICMP echo, answered by the far kernel
//! in softirq context, so no user-space echo server sits in the path either.
//! Timestamps are CLOCK_REALTIME (what SO_TIMESTAMPNS reports); sender and
//! receiver are on the same host, so they compare directly.

use std::io;
use std::mem::{size_of, zeroed};
use std::net::{Ipv4Addr, UdpSocket};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use crate::netns::{err, in_netns};

/// CLOCK_REALTIME in ns (the clock of SO_TIMESTAMPNS).
pub fn realtime_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn enable_timestamps(fd: RawFd) -> io::Result<()> {
    let one: libc::c_int = 1;
    // SAFETY: valid option pointer and length.
    let r = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_TIMESTAMPNS,
            &one as *const _ as *const libc::c_void,
            size_of::<libc::c_int>() as u32,
        )
    };
    if r != 0 {
        return Err(err(format!(
            "setsockopt SO_TIMESTAMPNS: {}",
            io::Error::last_os_error()
        )));
    }
    Ok(())
}

fn set_rcv_timeout(fd: RawFd, timeout_ns: u64) -> io::Result<()> {
    let tv = libc::timeval {
        tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
        tv_usec: ((timeout_ns % 1_000_000_000) / 1000) as libc::suseconds_t,
    };
    // SAFETY: valid option pointer and length.
    let r = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_RCVTIMEO,
            &tv as *const _ as *const libc::c_void,
            size_of::<libc::timeval>() as u32,
        )
    };
    if r != 0 {
        return Err(err(format!(
            "setsockopt SO_RCVTIMEO: {}",
            io::Error::last_os_error()
        )));
    }
    Ok(())
}

/// Receive one datagram with its kernel receive timestamp (CLOCK_REALTIME
/// ns). `Ok(None)` on timeout.
pub fn recv_timestamped(fd: RawFd, buf: &mut [u8]) -> io::Result<Option<(usize, u64)>> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr() as *mut libc::c_void,
        iov_len: buf.len(),
    };
    let mut cbuf = [0u64; 16];
    // SAFETY: msghdr is plain data; all pointers set below are valid for the call.
    let mut msg: libc::msghdr = unsafe { zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf.as_mut_ptr() as *mut libc::c_void;
    msg.msg_controllen = size_of::<[u64; 16]>() as _;
    // SAFETY: msg points at valid buffers.
    let n = unsafe { libc::recvmsg(fd, &mut msg, 0) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return match e.raw_os_error() {
            Some(libc::EAGAIN) | Some(libc::EINTR) => Ok(None),
            _ => Err(e),
        };
    }
    let mut ts = None;
    // SAFETY: walking the control messages the kernel wrote into cbuf.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SO_TIMESTAMPNS {
                let t: libc::timespec =
                    std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::timespec);
                ts = Some(t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64);
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    let ts = ts.ok_or_else(|| err("no SO_TIMESTAMPNS control message on a received packet"))?;
    Ok(Some((n as usize, ts)))
}

/// A UDP socket in a namespace whose receives carry kernel timestamps.
pub fn timestamped_udp(ns: &str, bind: &str, timeout_ns: u64) -> io::Result<UdpSocket> {
    let bind = bind.to_string();
    let s = in_netns(ns, move || {
        UdpSocket::bind(&bind).map_err(|e| err(format!("bind UDP {bind}: {e}")))
    })?;
    enable_timestamps(s.as_raw_fd())?;
    set_rcv_timeout(s.as_raw_fd(), timeout_ns)?;
    Ok(s)
}

fn checksum(data: &[u8]) -> u16 {
    let mut sum = 0u32;
    for ch in data.chunks(2) {
        let w = if ch.len() == 2 {
            u16::from_be_bytes([ch[0], ch[1]])
        } else {
            u16::from_be_bytes([ch[0], 0])
        };
        sum += w as u32;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// ICMP echo from a raw socket in a namespace.
pub struct Pinger {
    fd: OwnedFd,
    id: u16,
    seq: u16,
}

impl Pinger {
    /// A pinger in namespace `ns`, sending from `src` (which selects the path
    /// through the source-address rules).
    pub fn new(ns: &str, src: Ipv4Addr, timeout_ns: u64) -> io::Result<Pinger> {
        let fd = in_netns(ns, move || {
            // SAFETY: plain socket call; we own the returned descriptor.
            let raw = unsafe {
                libc::socket(
                    libc::AF_INET,
                    libc::SOCK_RAW | libc::SOCK_CLOEXEC,
                    libc::IPPROTO_ICMP,
                )
            };
            if raw < 0 {
                return Err(err(format!(
                    "raw ICMP socket: {}",
                    io::Error::last_os_error()
                )));
            }
            // SAFETY: fresh descriptor.
            let fd = unsafe { OwnedFd::from_raw_fd(raw) };
            let sa = libc::sockaddr_in {
                sin_family: libc::AF_INET as u16,
                sin_port: 0,
                sin_addr: libc::in_addr {
                    s_addr: u32::from(src).to_be(),
                },
                sin_zero: [0; 8],
            };
            // SAFETY: valid sockaddr_in.
            let r = unsafe {
                libc::bind(
                    fd.as_raw_fd(),
                    &sa as *const _ as *const libc::sockaddr,
                    size_of::<libc::sockaddr_in>() as u32,
                )
            };
            if r != 0 {
                return Err(err(format!(
                    "bind raw ICMP socket to {src}: {}",
                    io::Error::last_os_error()
                )));
            }
            Ok(fd)
        })?;
        enable_timestamps(fd.as_raw_fd())?;
        set_rcv_timeout(fd.as_raw_fd(), timeout_ns)?;
        Ok(Pinger {
            fd,
            id: (std::process::id() & 0xffff) as u16,
            seq: 0,
        })
    }

    /// One echo of `payload` bytes (ICMP data) to `dst`; returns the RTT in
    /// ns (send call to kernel receive timestamp), or None on timeout.
    pub fn ping(&mut self, dst: Ipv4Addr, payload: usize) -> io::Result<Option<u64>> {
        self.seq = self.seq.wrapping_add(1);
        let mut pkt = vec![0u8; 8 + payload];
        pkt[0] = 8; // echo request
        pkt[4..6].copy_from_slice(&self.id.to_be_bytes());
        pkt[6..8].copy_from_slice(&self.seq.to_be_bytes());
        let c = checksum(&pkt);
        pkt[2..4].copy_from_slice(&c.to_be_bytes());
        let sa = libc::sockaddr_in {
            sin_family: libc::AF_INET as u16,
            sin_port: 0,
            sin_addr: libc::in_addr {
                s_addr: u32::from(dst).to_be(),
            },
            sin_zero: [0; 8],
        };
        let t0 = realtime_ns();
        // SAFETY: valid buffer and sockaddr.
        let r = unsafe {
            libc::sendto(
                self.fd.as_raw_fd(),
                pkt.as_ptr() as *const libc::c_void,
                pkt.len(),
                0,
                &sa as *const _ as *const libc::sockaddr,
                size_of::<libc::sockaddr_in>() as u32,
            )
        };
        if r < 0 {
            return Err(err(format!(
                "send ICMP echo to {dst}: {}",
                io::Error::last_os_error()
            )));
        }
        let mut buf = vec![0u8; 65536];
        loop {
            let Some((n, ts)) = recv_timestamped(self.fd.as_raw_fd(), &mut buf)? else {
                return Ok(None);
            };
            // A raw socket gets the IP header too; skip it.
            let ihl = ((buf[0] & 0x0f) as usize) * 4;
            if n < ihl + 8 {
                continue;
            }
            let icmp = &buf[ihl..n];
            let id = u16::from_be_bytes([icmp[4], icmp[5]]);
            let seq = u16::from_be_bytes([icmp[6], icmp[7]]);
            if icmp[0] == 0 && id == self.id && seq == self.seq {
                return Ok(Some(ts.saturating_sub(t0)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn icmp_checksum() {
        // Echo request id 1 seq 1, no data: checksum 0xf7fd.
        let pkt = [8u8, 0, 0, 0, 0, 1, 0, 1];
        assert_eq!(checksum(&pkt), 0xf7fd);
    }
}
