//! The kernel's MPTCP userspace path manager (`net.mptcp.pm_type = 1`),
//! driven over generic netlink (family `mptcp_pm`), for what the in-kernel
//! path manager cannot express: several subflows over one address pair
//! (v0.9x `ndiffports`, `subflows_per_path` > 1).
//!
//! iproute2 6.1 on this machine has no `ip mptcp subflow` command, so the
//! request is sent here with the `neli` crate: `MPTCP_PM_CMD_SUBFLOW_CREATE`
//! with the connection's token, the local address (nested
//! `MPTCP_PM_ATTR_ADDR`) and the remote address and port
//! (`MPTCP_PM_ATTR_ADDR_REMOTE`), as Linux's `net/mptcp/pm_userspace.c`
//! (`mptcp_pm_nl_subflow_create_doit`) parses them. The local port is 0: the
//! kernel picks an ephemeral port for each subflow, which is what makes
//! several subflows over the same address pair distinct (as v0.9x's
//! `mptcp_ndiffports.c` did with different source ports).

use std::io;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::os::fd::RawFd;

use neli::consts::nl::{NlmF, NlmFFlags};
use neli::consts::socket::NlFamily;
use neli::err::NlError;
use neli::genl::{Genlmsghdr, Nlattr};
use neli::nl::{NlPayload, Nlmsghdr};
use neli::socket::NlSocketHandle;
use neli::types::{Buffer, GenlBuffer};

use crate::netns::err;

/// `include/uapi/linux/mptcp_pm.h` (Linux 6.18).
const MPTCP_PM_NAME: &str = "mptcp_pm";
const MPTCP_PM_VER: u8 = 1;
const MPTCP_PM_CMD_SUBFLOW_CREATE: u8 = 10;
const MPTCP_PM_ATTR_ADDR: u16 = 1;
const MPTCP_PM_ATTR_TOKEN: u16 = 4;
const MPTCP_PM_ATTR_ADDR_REMOTE: u16 = 6;
const MPTCP_PM_ADDR_ATTR_FAMILY: u16 = 1;
const MPTCP_PM_ADDR_ATTR_ID: u16 = 2;
const MPTCP_PM_ADDR_ATTR_ADDR4: u16 = 3;
const MPTCP_PM_ADDR_ATTR_PORT: u16 = 5;

/// `SOL_MPTCP` / `MPTCP_INFO` (include/uapi/linux/mptcp.h).
const SOL_MPTCP: i32 = 284;
const MPTCP_INFO: i32 = 1;
/// Offset of `mptcpi_token` in `struct mptcp_info`: six u8 fields, then
/// `__u32 mptcpi_flags` at 8 and `__u32 mptcpi_token` at 12 (Linux >= 6.5).
const MPTCPI_TOKEN_OFFSET: usize = 12;

/// The connection token of an MPTCP socket (`MPTCP_INFO.mptcpi_token`),
/// which names the connection in path-manager commands.
pub fn token(fd: RawFd) -> io::Result<u32> {
    let mut b = [0u8; 64];
    let mut len = b.len() as libc::socklen_t;
    // SAFETY: b is a writable buffer of len bytes.
    let r = unsafe { libc::getsockopt(fd, SOL_MPTCP, MPTCP_INFO, b.as_mut_ptr().cast(), &mut len) };
    if r < 0 {
        return Err(err(format!(
            "getsockopt(SOL_MPTCP, MPTCP_INFO): {}",
            io::Error::last_os_error()
        )));
    }
    if (len as usize) < MPTCPI_TOKEN_OFFSET + 4 {
        return Err(err(
            "MPTCP_INFO has no mptcpi_token (kernel older than 6.5?)",
        ));
    }
    let t = u32::from_ne_bytes(
        b[MPTCPI_TOKEN_OFFSET..MPTCPI_TOKEN_OFFSET + 4]
            .try_into()
            .unwrap(),
    );
    if t == 0 {
        return Err(err("MPTCP_INFO: token 0 (connection fell back to TCP?)"));
    }
    Ok(t)
}

/// A generic netlink socket to the `mptcp_pm` family, bound to the network
/// namespace it was opened in (open it with `netns::in_netns`).
pub struct UserPm {
    sock: NlSocketHandle,
    family: u16,
}

fn nl_err<T: std::fmt::Debug, P: std::fmt::Debug>(what: &str, e: NlError<T, P>) -> io::Error {
    match e {
        NlError::Nlmsgerr(m) => err(format!(
            "{what}: kernel answered {}",
            io::Error::from_raw_os_error(-m.error)
        )),
        e => err(format!("{what}: {e}")),
    }
}

fn addr_attr(ty: u16, id: u8, a: SocketAddrV4) -> io::Result<Nlattr<u16, Buffer>> {
    let ser = |e: neli::err::SerError| err(format!("netlink attribute: {e}"));
    let mut n = Nlattr::new(true, false, ty, Vec::<u8>::new()).map_err(ser)?;
    n.add_nested_attribute(
        &Nlattr::new(
            false,
            false,
            MPTCP_PM_ADDR_ATTR_FAMILY,
            libc::AF_INET as u16,
        )
        .map_err(ser)?,
    )
    .map_err(ser)?;
    n.add_nested_attribute(&Nlattr::new(false, false, MPTCP_PM_ADDR_ATTR_ID, id).map_err(ser)?)
        .map_err(ser)?;
    // struct in_addr: network byte order.
    n.add_nested_attribute(
        &Nlattr::new(
            false,
            false,
            MPTCP_PM_ADDR_ATTR_ADDR4,
            Buffer::from(a.ip().octets().to_vec()),
        )
        .map_err(ser)?,
    )
    .map_err(ser)?;
    if a.port() != 0 {
        // The kernel reads the port in host order (nla_get_u16, pm_netlink.c).
        n.add_nested_attribute(
            &Nlattr::new(false, false, MPTCP_PM_ADDR_ATTR_PORT, a.port()).map_err(ser)?,
        )
        .map_err(ser)?;
    }
    Ok(n)
}

impl UserPm {
    /// Connect to generic netlink and resolve the `mptcp_pm` family.
    pub fn open() -> io::Result<UserPm> {
        let mut sock = NlSocketHandle::connect(NlFamily::Generic, None, &[])
            .map_err(|e| err(format!("generic netlink socket: {e}")))?;
        let family = sock
            .resolve_genl_family(MPTCP_PM_NAME)
            .map_err(|e| nl_err("resolving generic netlink family mptcp_pm", e))?;
        Ok(UserPm { sock, family })
    }

    /// `MPTCP_PM_CMD_SUBFLOW_CREATE`: open a subflow of connection `token`
    /// from `local` (address id `local_id`; 0 is the initial subflow's
    /// address) to `remote`, and wait for the kernel's answer.
    pub fn subflow_create(
        &mut self,
        token: u32,
        local: Ipv4Addr,
        local_id: u8,
        remote: SocketAddrV4,
    ) -> io::Result<()> {
        let ser = |e: neli::err::SerError| err(format!("netlink attribute: {e}"));
        let mut attrs: GenlBuffer<u16, Buffer> = GenlBuffer::new();
        attrs.push(Nlattr::new(false, false, MPTCP_PM_ATTR_TOKEN, token).map_err(ser)?);
        attrs.push(addr_attr(
            MPTCP_PM_ATTR_ADDR,
            local_id,
            SocketAddrV4::new(local, 0),
        )?);
        attrs.push(addr_attr(MPTCP_PM_ATTR_ADDR_REMOTE, 0, remote)?);
        let msg = Nlmsghdr::new(
            None,
            self.family,
            NlmFFlags::new(&[NlmF::Request, NlmF::Ack]),
            None,
            None,
            NlPayload::Payload(Genlmsghdr::<u8, u16>::new(
                MPTCP_PM_CMD_SUBFLOW_CREATE,
                MPTCP_PM_VER,
                attrs,
            )),
        );
        self.sock
            .send(msg)
            .map_err(|e| err(format!("sending MPTCP_PM_CMD_SUBFLOW_CREATE: {e}")))?;
        let what = format!("MPTCP_PM_CMD_SUBFLOW_CREATE {local} -> {remote} (token {token:#x})");
        match self.sock.recv::<u16, Genlmsghdr<u8, u16>>() {
            Ok(_) => Ok(()),
            Err(e) => Err(nl_err(&what, e)),
        }
    }
}

/// Whether the scenario's path manager needs the userspace path manager:
/// the in-kernel one opens at most one subflow per address pair
/// (`mptcp_pm_nl_subflow_create` … `fill_local_addresses_vec`, pm_kernel.c).
pub fn needed(m: &mptlab_scenario::MptcpOptions) -> bool {
    use mptlab_scenario::PathManager as P;
    match m.path_manager {
        P::Ndiffports => true,
        P::Fullmesh => m.subflows_per_path > 1,
        _ => false,
    }
}

/// The subflows to create beside the initial one, as (local address, local
/// address id): the simulator's own choice (`PmKind::wanted`, the same
/// multiset of address pairs) for the client's addresses (`initial` is the
/// 0-based index of the initial subflow's) and the server's one address.
/// Address ids: 0 for the initial subflow's address (RFC 8684 3.2: the
/// initial subflow's address has id 0), path number for the others.
pub fn extra_subflows(
    m: &mptlab_scenario::MptcpOptions,
    client_addrs: &[Ipv4Addr],
    initial: usize,
) -> Vec<(Ipv4Addr, u8)> {
    let kind = m.path_manager.kind(m.subflows_per_path, m.ndiffports);
    // Addresses as indices: local 0..n with the initial one first, remote 100.
    let mut local: Vec<u32> = vec![initial as u32];
    local.extend((0..client_addrs.len() as u32).filter(|&i| i != initial as u32));
    let wanted = kind.wanted(&local, &[100]);
    wanted
        .iter()
        .skip(1)
        .map(|&(l, _)| {
            let id = if l as usize == initial {
                0
            } else {
                l as u8 + 1
            };
            (client_addrs[l as usize], id)
        })
        .collect()
}

/// Ask for `extra` subflows of connection `token`, retrying while the
/// connection is not yet fully established (the kernel answers ENOTCONN:
/// `__mptcp_subflow_connect` needs `mptcp_is_fully_established`, which a
/// client reaches once the server acknowledged its first data, one RTT after
/// connect). Gives up at `deadline` (monotonic ns) or when `stop` is set.
pub fn create_all(
    pm: &std::sync::Mutex<UserPm>,
    token: u32,
    extra: &[(Ipv4Addr, u8)],
    remote: SocketAddrV4,
    deadline: u64,
    stop: &std::sync::atomic::AtomicBool,
) -> io::Result<()> {
    for &(local, id) in extra {
        loop {
            let r = pm.lock().unwrap().subflow_create(token, local, id, remote);
            match r {
                Ok(()) => break,
                Err(e)
                    if crate::clock::monotonic_ns() < deadline
                        && !stop.load(std::sync::atomic::Ordering::Relaxed) =>
                {
                    let _ = e;
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                Err(e) => return Err(e),
            }
        }
    }
    Ok(())
}
