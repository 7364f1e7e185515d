//! Sockets for the traffic agent: TCP, MPTCP (`IPPROTO_MPTCP`) and UDP with
//! the scenario's options, and the kernel's per-connection counters
//! (`TCP_INFO`, and per subflow `MPTCP_TCPINFO` + `MPTCP_SUBFLOW_ADDRS`).
//!
//! Everything here is plain libc; a socket belongs to the network namespace
//! of the thread that created it (see `netns::in_netns`), whichever thread
//! uses it afterwards.

use std::io;
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream, UdpSocket};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use crate::netns::err;

pub const IPPROTO_MPTCP: i32 = 262;
pub const SOL_MPTCP: i32 = 284;
pub const MPTCP_INFO: i32 = 1;
pub const MPTCP_TCPINFO: i32 = 2;
pub const MPTCP_SUBFLOW_ADDRS: i32 = 3;

/// Transport a stream socket uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Tcp,
    Mptcp,
}

/// Socket options from `[transport]` that map onto per-socket options.
#[derive(Clone, Debug)]
pub struct SockOpts {
    pub stream: Stream,
    /// `TCP_CONGESTION` name ("cubic", "reno").
    pub cc: String,
    /// `TCP_NODELAY` (scenario `nagle = false`).
    pub nodelay: bool,
    /// `SO_SNDBUFFORCE` / `SO_RCVBUFFORCE` in bytes (the kernel doubles
    /// the value it is given; 0 keeps autotuning).
    pub sndbuf: usize,
    pub rcvbuf: usize,
    /// Set `TCP_QUICKACK` after every read (approximates `delayed_ack = false`).
    pub quickack: bool,
}

impl Default for SockOpts {
    fn default() -> Self {
        SockOpts {
            stream: Stream::Tcp,
            cc: "cubic".into(),
            nodelay: true,
            sndbuf: 0,
            rcvbuf: 0,
            quickack: false,
        }
    }
}

fn cvt(r: i32, what: &str) -> io::Result<i32> {
    if r < 0 {
        Err(err(format!("{what}: {}", io::Error::last_os_error())))
    } else {
        Ok(r)
    }
}

fn setopt<T>(fd: RawFd, level: i32, name: i32, v: &T, what: &str) -> io::Result<()> {
    // SAFETY: v points at a live T of the given size.
    let r = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            v as *const T as *const libc::c_void,
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    };
    cvt(r, what).map(|_| ())
}

fn sockaddr(a: SocketAddrV4) -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: a.port().to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(*a.ip()).to_be(),
        },
        sin_zero: [0; 8],
    }
}

/// A new stream socket (TCP or MPTCP) in the calling thread's namespace with
/// the options applied.
pub fn stream_socket(o: &SockOpts) -> io::Result<OwnedFd> {
    let proto = match o.stream {
        Stream::Tcp => libc::IPPROTO_TCP,
        Stream::Mptcp => IPPROTO_MPTCP,
    };
    // SAFETY: plain socket(2).
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, proto) };
    if fd < 0 {
        let e = io::Error::last_os_error();
        return Err(err(if o.stream == Stream::Mptcp {
            format!("socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP): {e} (kernel without MPTCP, or net.mptcp.enabled=0)")
        } else {
            format!("socket: {e}")
        }));
    }
    // SAFETY: fd was just created and is owned here.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let raw = fd.as_raw_fd();
    let one: i32 = 1;
    setopt(
        raw,
        libc::SOL_SOCKET,
        libc::SO_REUSEADDR,
        &one,
        "SO_REUSEADDR",
    )?;
    let cc = o.cc.as_bytes();
    // SAFETY: cc points at cc.len() bytes.
    let r = unsafe {
        libc::setsockopt(
            raw,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            cc.as_ptr() as *const libc::c_void,
            cc.len() as libc::socklen_t,
        )
    };
    cvt(
        r,
        &format!(
            "TCP_CONGESTION {:?} (is the module loaded? see /proc/sys/net/ipv4/tcp_available_congestion_control)",
            o.cc
        ),
    )?;
    if o.nodelay {
        setopt(
            raw,
            libc::IPPROTO_TCP,
            libc::TCP_NODELAY,
            &one,
            "TCP_NODELAY",
        )?;
    }
    if o.sndbuf > 0 {
        let v = o.sndbuf as i32;
        setopt(
            raw,
            libc::SOL_SOCKET,
            libc::SO_SNDBUFFORCE,
            &v,
            "SO_SNDBUFFORCE",
        )?;
    }
    if o.rcvbuf > 0 {
        let v = o.rcvbuf as i32;
        setopt(
            raw,
            libc::SOL_SOCKET,
            libc::SO_RCVBUFFORCE,
            &v,
            "SO_RCVBUFFORCE",
        )?;
    }
    Ok(fd)
}

pub fn bind(fd: &OwnedFd, a: SocketAddrV4) -> io::Result<()> {
    let sa = sockaddr(a);
    // SAFETY: sa is a valid sockaddr_in.
    let r = unsafe {
        libc::bind(
            fd.as_raw_fd(),
            &sa as *const _ as *const libc::sockaddr,
            std::mem::size_of::<libc::sockaddr_in>() as u32,
        )
    };
    cvt(r, &format!("bind {a}")).map(|_| ())
}

/// Blocking connect, optionally from a given source address.
pub fn connect(fd: OwnedFd, src: Option<Ipv4Addr>, dst: SocketAddrV4) -> io::Result<TcpStream> {
    if let Some(s) = src {
        bind(&fd, SocketAddrV4::new(s, 0))?;
    }
    let sa = sockaddr(dst);
    // SAFETY: sa is a valid sockaddr_in.
    let r = unsafe {
        libc::connect(
            fd.as_raw_fd(),
            &sa as *const _ as *const libc::sockaddr,
            std::mem::size_of::<libc::sockaddr_in>() as u32,
        )
    };
    cvt(r, &format!("connect to {dst}"))?;
    Ok(TcpStream::from(fd))
}

/// A listening stream socket with the options (accepted sockets inherit them).
pub fn listen(o: &SockOpts, a: SocketAddrV4) -> io::Result<TcpListener> {
    let fd = stream_socket(o)?;
    bind(&fd, a)?;
    // SAFETY: plain listen(2).
    cvt(
        unsafe { libc::listen(fd.as_raw_fd(), 128) },
        &format!("listen on {a}"),
    )?;
    Ok(TcpListener::from(fd))
}

pub fn set_quickack(fd: RawFd) {
    let one: i32 = 1;
    let _ = setopt(
        fd,
        libc::IPPROTO_TCP,
        libc::TCP_QUICKACK,
        &one,
        "TCP_QUICKACK",
    );
}

pub fn set_nodelay(fd: RawFd) {
    let one: i32 = 1;
    let _ = setopt(
        fd,
        libc::IPPROTO_TCP,
        libc::TCP_NODELAY,
        &one,
        "TCP_NODELAY",
    );
}

pub fn udp_socket(bind_to: SocketAddrV4) -> io::Result<UdpSocket> {
    UdpSocket::bind(bind_to).map_err(|e| err(format!("bind UDP {bind_to}: {e}")))
}

/// The counters of `struct tcp_info` mptlab reports (Linux >= 6.7 layout;
/// fields the running kernel does not fill stay `None`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TcpInfo {
    pub rtt_us: u32,
    pub snd_cwnd: u32,
    pub snd_mss: u32,
    pub total_retrans: u32,
    pub bytes_acked: u64,
    pub bytes_received: u64,
    pub segs_out: u32,
    pub segs_in: u32,
    pub data_segs_in: u32,
    pub data_segs_out: u32,
    pub bytes_sent: Option<u64>,
    pub bytes_retrans: Option<u64>,
    pub rcv_ooopack: Option<u32>,
    pub total_rto: Option<u16>,
    pub total_rto_recoveries: Option<u16>,
}

fn u16_at(b: &[u8], o: usize) -> Option<u16> {
    b.get(o..o + 2)
        .map(|s| u16::from_ne_bytes(s.try_into().unwrap()))
}
fn u32_at(b: &[u8], o: usize) -> Option<u32> {
    b.get(o..o + 4)
        .map(|s| u32::from_ne_bytes(s.try_into().unwrap()))
}
fn u64_at(b: &[u8], o: usize) -> Option<u64> {
    b.get(o..o + 8)
        .map(|s| u64::from_ne_bytes(s.try_into().unwrap()))
}

/// Size of `struct tcp_info` asked for (through `tcpi_total_rto_time`).
pub const TCP_INFO_LEN: usize = 248;

/// Parse a `struct tcp_info` of `b.len()` bytes (what the kernel filled).
pub fn parse_tcp_info(b: &[u8]) -> TcpInfo {
    TcpInfo {
        snd_mss: u32_at(b, 16).unwrap_or(0),
        rtt_us: u32_at(b, 68).unwrap_or(0),
        snd_cwnd: u32_at(b, 80).unwrap_or(0),
        total_retrans: u32_at(b, 100).unwrap_or(0),
        bytes_acked: u64_at(b, 120).unwrap_or(0),
        bytes_received: u64_at(b, 128).unwrap_or(0),
        segs_out: u32_at(b, 136).unwrap_or(0),
        segs_in: u32_at(b, 140).unwrap_or(0),
        data_segs_in: u32_at(b, 152).unwrap_or(0),
        data_segs_out: u32_at(b, 156).unwrap_or(0),
        bytes_sent: u64_at(b, 200),
        bytes_retrans: u64_at(b, 208),
        rcv_ooopack: u32_at(b, 224),
        total_rto: u16_at(b, 240),
        total_rto_recoveries: u16_at(b, 242),
    }
}

/// `getsockopt(TCP_INFO)`.
pub fn tcp_info(fd: RawFd) -> io::Result<TcpInfo> {
    let mut b = [0u8; TCP_INFO_LEN];
    let mut len = b.len() as libc::socklen_t;
    // SAFETY: b has len bytes.
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            b.as_mut_ptr() as *mut libc::c_void,
            &mut len,
        )
    };
    cvt(r, "getsockopt TCP_INFO")?;
    Ok(parse_tcp_info(&b[..len as usize]))
}

/// One MPTCP subflow: its addresses and `tcp_info`.
#[derive(Clone, Debug)]
pub struct Subflow {
    pub local: SocketAddrV4,
    pub remote: SocketAddrV4,
    pub info: TcpInfo,
}

/// `getsockopt(SOL_MPTCP, opt)` with a `struct mptcp_subflow_data` header
/// (16 bytes) and `n_max` elements of `elem` bytes; returns the elements.
fn subflow_array(fd: RawFd, opt: i32, elem: usize, n_max: usize) -> io::Result<Vec<Vec<u8>>> {
    let mut b = vec![0u8; 16 + elem * n_max];
    b[0..4].copy_from_slice(&16u32.to_ne_bytes()); // size_subflow_data
    b[12..16].copy_from_slice(&(elem as u32).to_ne_bytes()); // size_user
    let mut len = b.len() as libc::socklen_t;
    // SAFETY: b has len bytes.
    let r = unsafe {
        libc::getsockopt(
            fd,
            SOL_MPTCP,
            opt,
            b.as_mut_ptr() as *mut libc::c_void,
            &mut len,
        )
    };
    cvt(r, "getsockopt SOL_MPTCP")?;
    let num = u32_at(&b, 4).unwrap_or(0) as usize;
    let size_user = (u32_at(&b, 12).unwrap_or(0) as usize).min(elem);
    let n = num
        .min(n_max)
        .min((len as usize).saturating_sub(16) / elem.max(1));
    Ok((0..n)
        .map(|i| b[16 + i * elem..16 + i * elem + size_user].to_vec())
        .collect())
}

fn sin_at(b: &[u8], o: usize) -> SocketAddrV4 {
    let port = b
        .get(o + 2..o + 4)
        .map_or(0, |s| u16::from_be_bytes([s[0], s[1]]));
    let ip = b
        .get(o + 4..o + 8)
        .map_or(0, |s| u32::from_be_bytes([s[0], s[1], s[2], s[3]]));
    SocketAddrV4::new(Ipv4Addr::from(ip), port)
}

/// Per-subflow addresses and counters of an MPTCP socket
/// (`MPTCP_SUBFLOW_ADDRS` + `MPTCP_TCPINFO`, Linux >= 5.16; same order).
pub fn mptcp_subflows(fd: RawFd) -> io::Result<Vec<Subflow>> {
    let addrs = subflow_array(fd, MPTCP_SUBFLOW_ADDRS, 256, 16)?;
    let infos = subflow_array(fd, MPTCP_TCPINFO, TCP_INFO_LEN, 16)?;
    Ok(addrs
        .iter()
        .zip(&infos)
        .map(|(a, i)| Subflow {
            local: sin_at(a, 0),
            remote: sin_at(a, 128),
            info: parse_tcp_info(i),
        })
        .collect())
}

/// Local and peer address of a connected socket.
pub fn addrs(s: &TcpStream) -> (String, String) {
    let f = |r: io::Result<std::net::SocketAddr>| r.map(|a| a.ip().to_string()).unwrap_or_default();
    (f(s.local_addr()), f(s.peer_addr()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_info_offsets() {
        let mut b = vec![0u8; TCP_INFO_LEN];
        b[16..20].copy_from_slice(&1448u32.to_ne_bytes());
        b[68..72].copy_from_slice(&40_000u32.to_ne_bytes());
        b[80..84].copy_from_slice(&10u32.to_ne_bytes());
        b[128..136].copy_from_slice(&1_000_000u64.to_ne_bytes());
        b[156..160].copy_from_slice(&700u32.to_ne_bytes());
        b[200..208].copy_from_slice(&1_016_808u64.to_ne_bytes());
        b[208..216].copy_from_slice(&16_808u64.to_ne_bytes());
        b[240..242].copy_from_slice(&2u16.to_ne_bytes());
        let i = parse_tcp_info(&b);
        assert_eq!(
            (
                i.snd_mss,
                i.rtt_us,
                i.snd_cwnd,
                i.bytes_received,
                i.data_segs_out
            ),
            (1448, 40_000, 10, 1_000_000, 700)
        );
        assert_eq!(
            (i.bytes_sent, i.bytes_retrans, i.total_rto),
            (Some(1_016_808), Some(16_808), Some(2))
        );
        // an older kernel fills less: the newer fields are unknown, not zero
        let old = parse_tcp_info(&b[..192]);
        assert_eq!((old.bytes_sent, old.total_rto), (None, None));
    }
}
