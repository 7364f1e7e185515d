//! Link parameters: value checks where they are written, and resolution of
//! `profile` chains into fully specified links (trace files read and parsed).

use super::{err, num, range, VResult};
use crate::files::Files;
use crate::limits::*;
use crate::profiles::builtin;
use crate::types::*;
use crate::value::Range;
use crate::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

fn check_loss(key: &str, l: &LossModel) -> VResult<()> {
    match l {
        LossModel::None => Ok(()),
        LossModel::Bernoulli { percent } => range(
            &format!("{key}.percent"),
            percent,
            0.0,
            false,
            100.0,
            "a loss percentage",
        ),
        LossModel::GilbertElliott {
            p_gb,
            p_bg,
            loss_good_percent,
            loss_bad_percent,
        } => {
            range(
                &format!("{key}.p_gb"),
                p_gb,
                0.0,
                false,
                1.0,
                "a probability",
            )?;
            range(
                &format!("{key}.p_bg"),
                p_bg,
                0.0,
                false,
                1.0,
                "a probability",
            )?;
            range(
                &format!("{key}.loss_good_percent"),
                loss_good_percent,
                0.0,
                false,
                100.0,
                "a loss percentage",
            )?;
            range(
                &format!("{key}.loss_bad_percent"),
                loss_bad_percent,
                0.0,
                false,
                100.0,
                "a loss percentage",
            )
        }
        LossModel::Train {
            gap_ms,
            drop_packets,
            blackout_ms,
        } => {
            // >= 1 ns: the simulator's clock counts whole nanoseconds
            num(
                &format!("{key}.gap_ms"),
                *gap_ms,
                1e-6,
                false,
                1e9,
                "an idle gap in ms",
            )?;
            num(
                &format!("{key}.blackout_ms"),
                *blackout_ms,
                0.0,
                false,
                1e9,
                "a blackout in ms (0 = none)",
            )?;
            if drop_packets.is_empty() || drop_packets.contains(&0) {
                return err(
                    format!("{key}.drop_packets"),
                    format!("expected a non-empty list of 1-based packet positions, found {drop_packets:?}"),
                );
            }
            Ok(())
        }
    }
}

/// Value checks of link parameters where they are written (`at` = their key path).
pub(super) fn check_params(at: &str, p: &LinkParams, nested: bool) -> VResult<()> {
    let k = |s: &str| {
        if at.is_empty() {
            s.to_string()
        } else {
            format!("{at}.{s}")
        }
    };
    if let Some(r) = &p.rate_mbit {
        range(
            &k("rate_mbit"),
            r,
            MIN_RATE_MBIT,
            false,
            MAX_RATE_MBIT,
            "a rate in Mbit/s",
        )?;
    }
    if let Some(r) = &p.delay_ms {
        range(&k("delay_ms"), r, 0.0, false, 1e6, "a delay in ms")?;
    }
    if p.queue_packets.is_some() && p.queue_bytes.is_some() {
        return err(
            k("queue_bytes"),
            "expected either queue_packets or queue_bytes, found both",
        );
    }
    if p.queue_packets == Some(0) {
        return err(
            k("queue_packets"),
            "expected a queue limit >= 1 packet, found 0",
        );
    }
    if let Some(b) = p.queue_bytes {
        if b < 1500 {
            return err(
                k("queue_bytes"),
                format!("expected a queue limit >= 1500 bytes (one full packet), found {b}"),
            );
        }
    }
    if let Some(l) = &p.loss {
        check_loss(&k("loss"), l)?;
    }
    if let Some(t) = &p.trace {
        if t.trim().is_empty() {
            return err(
                k("trace"),
                "expected a trace file path, found an empty string",
            );
        }
    }
    if let Some(os) = &p.outages {
        for (i, o) in os.iter().enumerate() {
            let ok = format!("{}[{i}]", k("outages"));
            num(
                &format!("{ok}.at_s"),
                o.at_s,
                0.0,
                false,
                MAX_DURATION_S,
                "an outage start in s",
            )?;
            // > 0 after rounding to the simulator's whole nanoseconds
            num(
                &format!("{ok}.duration_s"),
                o.duration_s,
                1e-9,
                false,
                MAX_DURATION_S,
                "an outage duration in s",
            )?;
            // the link model walks outages in time order (core LinkParams::validate)
            if let Some(prev) = i.checked_sub(1).map(|j| &os[j]) {
                if o.at_s < prev.at_s + prev.duration_s {
                    return err(
                        format!("{ok}.at_s"),
                        format!(
                            "expected outages in time order, not overlapping: this one starts at {} s, before the previous one ends at {} s",
                            o.at_s,
                            prev.at_s + prev.duration_s
                        ),
                    );
                }
            }
        }
    }
    if nested && (p.up.is_some() || p.down.is_some()) {
        let which = if p.up.is_some() { "up" } else { "down" };
        return err(k(which), "expected link keys, found a nested per-direction table (up/down only at the top level of a link)");
    }
    if nested && p.profile.is_some() {
        return err(k("profile"), "a per-direction table cannot name a profile");
    }
    for (d, sub) in [("up", &p.up), ("down", &p.down)] {
        if let Some(s) = sub {
            check_params(&k(d), s, true)?;
        }
    }
    Ok(())
}

pub(super) struct Resolver<'a> {
    pub user: &'a BTreeMap<String, LinkParams>,
    pub base_dir: &'a PathBuf,
    /// Trace files already read (a sweep validates many points).
    pub files: &'a mut Files,
    /// Every profile name a link reaches, directly or as the base of one it
    /// names (user-defined and built-in): a `[profile.X]` outside this set
    /// changes nothing ([`crate::unused_profiles`]).
    pub used: BTreeSet<String>,
}

impl Resolver<'_> {
    fn known_names(&self) -> String {
        let mut v: Vec<String> = self.user.keys().cloned().collect();
        v.extend(crate::profiles::BUILTIN.iter().map(|b| b.name.to_string()));
        v.sort();
        v.dedup();
        v.join(", ")
    }

    /// Flatten the `profile` chain of `p` (`at` names the key of the profile reference).
    pub fn flatten(&self, at: &str, p: &LinkParams) -> VResult<LinkParams> {
        let mut chain: Vec<LinkParams> = vec![p.clone()];
        let mut seen = BTreeSet::new();
        let mut name = p.profile.clone();
        let mut key = at.to_string();
        while let Some(n) = name {
            // a user profile may name the built-in profile it shadows:
            // [profile.wlan] profile = "wlan" starts from the built-in wlan
            let user = self.user.get(&n).filter(|_| !seen.contains(&n));
            let base = match (user, builtin(&n)) {
                (Some(u), _) => u.clone(),
                (None, Some(b)) => b,
                (None, None) if seen.contains(&n) => {
                    return err(
                        key,
                        format!("profile \"{n}\" refers to itself (a cycle of profile references)"),
                    )
                }
                (None, None) => {
                    return err(
                        key,
                        format!(
                            "expected a link profile name (one of {}), found \"{n}\"{}",
                            self.known_names(),
                            crate::suggest::hint(
                                &n,
                                self.user
                                    .keys()
                                    .map(String::as_str)
                                    .chain(crate::profiles::BUILTIN.iter().map(|b| b.name))
                            )
                        ),
                    )
                }
            };
            seen.insert(n.clone());
            key = format!("profile.{n}.profile");
            name = base.profile.clone();
            chain.push(base);
        }
        let mut acc = LinkParams::default();
        for p in chain.iter().rev() {
            acc = acc.overridden_by(p);
        }
        Ok(acc)
    }

    fn dir(
        &self,
        at: &str,
        p: &LinkParams,
        sub: &Option<Box<LinkParams>>,
        shadowed: &Option<String>,
    ) -> VResult<LinkDir> {
        let mut p = p.clone();
        p.up = None;
        p.down = None;
        if let Some(s) = sub {
            p = p.overridden_by(s);
        }
        if p.rate_mbit.is_none() && p.trace.is_none() {
            let hint = match &shadowed {
                Some(n) => format!(
                    " ([profile.{n}] replaces the built-in profile \"{n}\"; add profile = \"{n}\" to start from it)"
                ),
                None => String::new(),
            };
            return err(
                at,
                format!("missing key `rate_mbit` (or `trace`): the link has no rate{hint}"),
            );
        }
        let queue = match (p.queue_packets, p.queue_bytes) {
            (_, Some(b)) => QueueLimit::Bytes(b),
            (Some(n), None) => QueueLimit::Packets(n),
            (None, None) => QueueLimit::Packets(DEFAULT_QUEUE_PACKETS),
        };
        Ok(LinkDir {
            rate_mbit: p.rate_mbit,
            trace: p.trace.map(|t| self.base_dir.join(t)),
            delay_ms: p.delay_ms.unwrap_or(Range::Fixed(0.0)),
            queue,
            loss: p.loss.unwrap_or(LossModel::None),
            outages: p.outages.unwrap_or_default(),
        })
    }

    /// The key that sets `trace` for a link written at `at` with params `p`:
    /// the link itself, or the first profile of its chain that names one.
    fn trace_key(&self, at: &str, p: &LinkParams) -> String {
        let has = |q: &LinkParams| {
            q.trace.is_some()
                || q.up.as_ref().is_some_and(|u| u.trace.is_some())
                || q.down.as_ref().is_some_and(|d| d.trace.is_some())
        };
        if has(p) {
            return format!("{at}.trace");
        }
        let mut seen = BTreeSet::new();
        let mut name = p.profile.clone();
        while let Some(n) = name {
            match self.user.get(&n).filter(|_| seen.insert(n.clone())) {
                Some(u) if has(u) => return format!("profile.{n}.trace"),
                Some(u) => name = u.profile.clone(),
                None => break,
            }
        }
        format!("{at}.trace")
    }

    pub fn link(&mut self, at: &str, profile_key: &str, p: &LinkParams) -> VResult<Link> {
        let flat = self.flatten(profile_key, p)?;
        // the chain resolved (flatten checked it): record its names
        let mut name = p.profile.clone();
        while let Some(n) = name {
            if !self.used.insert(n.clone()) {
                break;
            }
            name = self.user.get(&n).and_then(|u| u.profile.clone());
        }
        let shadowed = p.profile.clone().filter(|n| {
            builtin(n).is_some() && self.user.get(n).is_some_and(|u| u.profile.is_none())
        });
        let link = Link {
            up: self.dir(at, &flat, &flat.up, &shadowed)?,
            down: self.dir(at, &flat, &flat.down, &shadowed)?,
        };
        for d in [&link.up, &link.down] {
            if let Some(t) = &d.trace {
                // read and parsed as the simulator will (crate::files)
                if let Err(e) = self.files.check_link_trace(t) {
                    return err(
                        self.trace_key(at, p),
                        format!("expected a Mahimahi link trace (one integer ms timestamp per line, non-decreasing): {e}"),
                    );
                }
            }
        }
        Ok(link)
    }
}
