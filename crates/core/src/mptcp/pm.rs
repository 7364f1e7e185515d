//! Path managers: which subflows a host opens (Linux v0.9x
//! `mptcp_fullmesh.c`, `mptcp_ndiffports.c`, `mptcp_binder.c`; upstream's
//! in-kernel path manager is `pm_kernel.rs`).
//!
//! Only the connection's initiator (the client) opens subflows (RFC 8684
//! 3.2), and only once the connection is *fully* established: v0.9x's
//! `create_subflow_worker` (fullmesh, ndiffports, binder) exits until the
//! master subflow is (`mptcp_become_fully_estab`, mptcp_input.c; the rule is
//! in `connection/full_estab.rs`); the in-kernel PM's rule is in
//! `connection.rs` (options.c `check_fully_established`) and `pm_kernel.rs`.
//! The passive side (server) never opens subflows (it may be behind no NAT,
//! but v0.9x servers do not either); with `fullmesh` it announces its other
//! addresses with ADD_ADDR (RFC 8684 3.4.1), and the client's fullmesh then
//! adds subflows towards them.

use crate::packet::Addr;

crate::named_enum! {
    /// MPTCP path managers by name (`transport.mptcp.path_manager`);
    /// `kind` gives the `PmKind` the connection runs.
    pub enum PathManager {
        Fullmesh = "fullmesh": "one subflow per pair of local and remote addresses",
        Default = "default": "only the initial subflow",
        Ndiffports = "ndiffports": "several subflows over the same address pair (count: transport.mptcp.ndiffports)",
        Upstream = "upstream": "upstream Linux pm_netlink endpoints with subflow/signal/backup/fullmesh flags (transport.mptcp.endpoints, server_endpoints)",
        Binder = "binder": "Binder: extra subflows loose-source-routed through other gateways; the network ignores LSRR (seed 003), so they follow the initial path",
    }
}

impl PathManager {
    /// The path manager with its counts: `per_pair` subflows per address
    /// pair (fullmesh), `n` subflows in total (ndiffports, binder).
    pub fn kind(self, per_pair: u32, n: u32) -> PmKind {
        match self {
            PathManager::Default => PmKind::Default,
            PathManager::Fullmesh => PmKind::Fullmesh { per_pair },
            PathManager::Ndiffports => PmKind::Ndiffports { n },
            PathManager::Binder => PmKind::Binder { n },
            PathManager::Upstream => PmKind::Upstream,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PmKind {
    /// No extra subflows from this host; accepts joins (v0.9x "default").
    Default,
    /// A subflow per (local, remote) address pair, `per_pair` of them.
    Fullmesh { per_pair: u32 },
    /// `n` subflows in total over the first address pair, different source ports.
    Ndiffports { n: u32 },
    /// Binder (seed 003, Boccassino et al.): `n` subflows over the first
    /// address pair that would be source-routed through other gateways with
    /// IPv4 loose source routing. The network of seed 003 ignores the LSRR
    /// option, so they follow the initial path: modelled exactly like
    /// ndiffports.
    Binder { n: u32 },
    /// Upstream Linux's in-kernel path manager, driven by per-address
    /// endpoint flags (`EpFlags`, in `MptcpConfig::endpoints`) and limits
    /// (`MptcpConfig::limits`): see `pm_kernel.rs`.
    Upstream,
}

/// Flags of an upstream endpoint (`ip mptcp endpoint add ADDR FLAGS`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EpFlags {
    pub subflow: bool,
    pub signal: bool,
    pub backup: bool,
    pub fullmesh: bool,
    /// Linux >= 6.18 (`MPTCP_PM_ADDR_FLAG_LAMINAR`, pm_kernel.c
    /// `fill_local_laminar_endp`): on an ADD_ADDR, join the announced address
    /// from this endpoint if no subflow uses it yet (`pm_kernel.rs`).
    pub laminar: bool,
}

impl EpFlags {
    /// Every flag's name, in the order `words` gives them.
    pub const NAMES: &'static [&'static str] =
        &["subflow", "signal", "backup", "fullmesh", "laminar"];

    /// Parse "subflow,backup" (comma or space separated; "" = no flags).
    /// The one parser of endpoint flags: scenario files reach it through
    /// `Deserialize` (serde feature), so no driver parses a string.
    pub fn parse(s: &str) -> Result<EpFlags, String> {
        let mut f = EpFlags::default();
        for w in s.split([',', ' ']).filter(|w| !w.is_empty()) {
            match w {
                "subflow" => f.subflow = true,
                "signal" => f.signal = true,
                "backup" => f.backup = true,
                "fullmesh" => f.fullmesh = true,
                "laminar" => f.laminar = true,
                other => {
                    return Err(format!(
                        "unknown endpoint flag \"{other}\" (available: {})",
                        Self::NAMES.join(", ")
                    ))
                }
            }
        }
        Ok(f)
    }

    /// The flags that are set, as `ip mptcp endpoint add ... FLAGS` words
    /// (iproute2 `ipmptcp.c`), in the order of `NAMES`.
    pub fn words(self) -> Vec<&'static str> {
        let set = [
            self.subflow,
            self.signal,
            self.backup,
            self.fullmesh,
            self.laminar,
        ];
        Self::NAMES
            .iter()
            .zip(set)
            .filter_map(|(&n, on)| on.then_some(n))
            .collect()
    }
}

impl std::str::FromStr for EpFlags {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        EpFlags::parse(s)
    }
}

/// "subflow,backup": the scenario file's spelling (comma separated).
impl std::fmt::Display for EpFlags {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.words().join(","))
    }
}

/// Scenario files write endpoint flags as one string per endpoint; an
/// unknown flag fails with `parse`'s message, which the scenario crate
/// locates at the entry (`transport.mptcp.endpoints[1]`).
#[cfg(feature = "serde")]
impl serde::Serialize for EpFlags {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for EpFlags {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = EpFlags;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(
                    f,
                    "endpoint flags (a string of {}, comma separated)",
                    EpFlags::NAMES.join(", ")
                )
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<EpFlags, E> {
                EpFlags::parse(s).map_err(E::custom)
            }
        }
        d.deserialize_str(V)
    }
}

impl PmKind {
    pub fn name(self) -> &'static str {
        match self {
            PmKind::Default => "default",
            PmKind::Fullmesh { .. } => "fullmesh",
            PmKind::Ndiffports { .. } => "ndiffports",
            PmKind::Binder { .. } => "binder",
            PmKind::Upstream => "upstream",
        }
    }

    /// Announce our other addresses with ADD_ADDR.
    pub fn announces(self) -> bool {
        matches!(self, PmKind::Fullmesh { .. })
    }

    /// The subflows (local, remote) the client wants in total, given its
    /// addresses (the initial one first) and the peer's known addresses
    /// (the initial one first). The first entry is the initial subflow.
    pub fn wanted(self, local: &[Addr], remote: &[Addr]) -> Vec<(Addr, Addr)> {
        let (l0, r0) = (local[0], remote[0]);
        match self {
            PmKind::Default | PmKind::Upstream => vec![(l0, r0)],
            PmKind::Ndiffports { n } | PmKind::Binder { n } => vec![(l0, r0); n.max(1) as usize],
            PmKind::Fullmesh { per_pair } => {
                let mut v = vec![(l0, r0)];
                for &l in local {
                    for &r in remote {
                        let have = v.iter().filter(|&&p| p == (l, r)).count() as u32;
                        for _ in have..per_pair.max(1) {
                            v.push((l, r));
                        }
                    }
                }
                v
            }
        }
    }
}

/// Subflows still to open: `wanted` minus what exists (as a multiset).
pub fn missing(wanted: &[(Addr, Addr)], existing: &[(Addr, Addr)]) -> Vec<(Addr, Addr)> {
    let mut have = existing.to_vec();
    let mut out = Vec::new();
    for w in wanted {
        if let Some(i) = have.iter().position(|e| e == w) {
            have.swap_remove(i);
        } else {
            out.push(*w);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fullmesh_2x2_is_four_subflows_ndiffports_stays_on_the_first_pair() {
        let (l, r) = ([1, 2], [10, 20]);
        let fm = PmKind::Fullmesh { per_pair: 1 }.wanted(&l, &r);
        assert_eq!(fm, vec![(1, 10), (1, 20), (2, 10), (2, 20)]);
        assert_eq!(PmKind::Ndiffports { n: 3 }.wanted(&l, &r), vec![(1, 10); 3]);
        assert_eq!(PmKind::Binder { n: 2 }.wanted(&l, &r), vec![(1, 10); 2]);
        assert_eq!(PmKind::Default.wanted(&l, &r), vec![(1, 10)]);
        assert_eq!(missing(&fm, &[(1, 10), (2, 10)]), vec![(1, 20), (2, 20)]);
        assert_eq!(
            PmKind::Fullmesh { per_pair: 2 }
                .wanted(&[1, 2], &[10])
                .len(),
            4
        );
    }

    #[test]
    fn endpoint_flags_parse_and_print() {
        assert!(EpFlags::parse("subflow,bogus").is_err());
        assert!(EpFlags::parse("signal backup").unwrap().backup);
        assert_eq!(EpFlags::parse("").unwrap(), EpFlags::default());
        // `words`/`Display` give each set flag once, in a fixed order
        let f = EpFlags::parse("fullmesh backup,subflow").unwrap();
        assert_eq!(f.words(), ["subflow", "backup", "fullmesh"]);
        assert_eq!(EpFlags::parse("laminar").unwrap().words(), ["laminar"]);
        assert_eq!(f.to_string().parse::<EpFlags>(), Ok(f));
    }
}
