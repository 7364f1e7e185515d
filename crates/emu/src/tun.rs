//! TUN devices: layer-3 point-to-point interfaces whose packets a process
//! reads and writes through a file descriptor, as Mahimahi's shells do.
//!
//! The device is created in the network namespace of the calling thread (the
//! kernel binds the tun socket to the opener's namespace), so the topology
//! builder opens it from a thread that has entered the target namespace (see
//! `netns::in_netns`). The file descriptor then keeps working from any thread.
//! The device is not persistent: it disappears when the descriptor is closed,
//! so a killed emulator leaves no TUN device behind.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// TUNSETIFF = _IOW('T', 202, int)
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

/// Maximum interface-name length including the terminating NUL.
pub const IFNAMSIZ: usize = 16;

#[repr(C)]
struct IfReq {
    name: [libc::c_char; IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// An open TUN device (IFF_TUN | IFF_NO_PI: each read or write is exactly one
/// IP packet, no extra header).
#[derive(Debug)]
pub struct Tun {
    fd: OwnedFd,
    name: String,
}

/// Check an interface name is acceptable to the kernel.
pub fn check_ifname(name: &str) -> io::Result<()> {
    if name.is_empty() || name.len() >= IFNAMSIZ || name.contains(['/', ' ', '\0', ':']) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("invalid interface name {name:?} (1-15 characters, no '/', ':', spaces)"),
        ));
    }
    Ok(())
}

impl Tun {
    /// Create TUN device `name` in the calling thread's network namespace.
    /// The descriptor is non-blocking; wait for input with `poll`.
    pub fn create(name: &str) -> io::Result<Tun> {
        check_ifname(name)?;
        let path = CString::new("/dev/net/tun").expect("no NUL");
        // SAFETY: valid C string; open returns -1 or a new descriptor we own.
        let raw = unsafe {
            libc::open(
                path.as_ptr(),
                libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
            )
        };
        if raw < 0 {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(e.kind(), format!("open /dev/net/tun: {e}")));
        }
        // SAFETY: raw is a fresh descriptor nobody else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut req = IfReq {
            name: [0; IFNAMSIZ],
            flags: IFF_TUN | IFF_NO_PI,
            _pad: [0; 22],
        };
        for (d, s) in req.name.iter_mut().zip(name.bytes()) {
            *d = s as libc::c_char;
        }
        // SAFETY: TUNSETIFF reads and writes an ifreq, which IfReq lays out (40 bytes).
        let r = unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF as _, &mut req as *mut IfReq) };
        if r < 0 {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(e.kind(), format!("TUNSETIFF {name}: {e}")));
        }
        Ok(Tun {
            fd,
            name: name.to_string(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Read one packet. `Ok(None)` when none is waiting.
    #[inline]
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        // SAFETY: buf is valid for buf.len() bytes.
        let n = unsafe {
            libc::read(
                self.fd.as_raw_fd(),
                buf.as_mut_ptr() as *mut libc::c_void,
                buf.len(),
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::EAGAIN) | Some(libc::EINTR) => Ok(None),
                _ => Err(e),
            };
        }
        Ok(Some(n as usize))
    }

    /// Write one packet (inject it into the device's namespace as if it had
    /// been received on the interface).
    #[inline]
    pub fn send(&self, pkt: &[u8]) -> io::Result<()> {
        loop {
            // SAFETY: pkt is valid for pkt.len() bytes.
            let n = unsafe {
                libc::write(
                    self.fd.as_raw_fd(),
                    pkt.as_ptr() as *const libc::c_void,
                    pkt.len(),
                )
            };
            if n >= 0 {
                return Ok(());
            }
            let e = io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EINTR) {
                return Err(e);
            }
        }
    }

    /// Wait until a packet can be read or `timeout_ns` passes. Returns true if readable.
    pub fn wait_readable(&self, timeout_ns: u64) -> io::Result<bool> {
        let mut pfd = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ts = libc::timespec {
            tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long,
        };
        // SAFETY: one valid pollfd; ppoll with a null sigmask behaves like poll with ns timeout.
        let r = unsafe { libc::ppoll(&mut pfd, 1, &ts, std::ptr::null()) };
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EINTR) {
                return Ok(false);
            }
            return Err(e);
        }
        if r > 0
            && pfd.revents & libc::POLLIN == 0
            && pfd.revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0
        {
            // E.g. the device's namespace was deleted under us. Report it so
            // the caller does not spin on a descriptor that is always "ready".
            return Err(io::Error::other(format!(
                "{}: device gone or in error (poll revents {:#x})",
                self.name, pfd.revents
            )));
        }
        Ok(r > 0 && pfd.revents & libc::POLLIN != 0)
    }
}

impl AsRawFd for Tun {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ifreq_has_kernel_layout() {
        assert_eq!(std::mem::size_of::<IfReq>(), 40);
    }

    #[test]
    fn rejects_bad_names() {
        assert!(check_ifname("").is_err());
        assert!(check_ifname("a-very-long-interface-name").is_err());
        assert!(check_ifname("a/b").is_err());
        assert!(check_ifname("p1").is_ok());
    }
}
