//! What the kernel runs in place of a scenario setting it cannot run as
//! given, for a scenario [`crate::run::supported`] accepts: the settings a
//! like-for-like simulation needs (`reproduce --kernel` simulates the cell
//! again with them, docs/report.md "like for like").
//!
//! Each [`Substitution`] is one scenario key with the value the kernel ran
//! instead, itself a value the simulator models, so `--set KEY=VALUE` gives
//! the simulated counterpart of what ran. Approximations without such a
//! value are not listed here (docs/emulation.md, "What maps to what":
//! `delayed_ack = false` as `TCP_QUICKACK`); `transport.hz` is handled for a
//! whole pass (the simulation runs at the kernel's CONFIG_HZ).

use mptlab_scenario as sc;

/// One setting the kernel ran differently from the scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Substitution {
    /// The scenario key, as `--set` takes it.
    pub key: String,
    /// The scenario's value.
    pub scenario: String,
    /// The value the kernel ran with.
    pub kernel: String,
    /// Why the kernel cannot run the scenario's value.
    pub why: String,
}

impl Substitution {
    /// `transport.mptcp.scheduler = minrtt -> upstream`.
    pub fn text(&self) -> String {
        format!("{} = {} -> {}", self.key, self.scenario, self.kernel)
    }
}

/// The settings the kernel runs in place of the scenario's (empty when it
/// runs the scenario as given). Only meaningful for a scenario that
/// [`crate::run::supported`] accepts.
pub fn substitutions(s: &sc::Scenario) -> Vec<Substitution> {
    let t = &s.transport;
    let mut v = Vec::new();
    // Upstream Linux has one MPTCP scheduler (net/mptcp/protocol.c,
    // `mptcp_subflow_get_send`); `supported` runs minrtt/default with it.
    if t.protocol == sc::Protocol::Mptcp && t.mptcp.scheduler != sc::MptcpScheduler::Upstream {
        v.push(Substitution {
            key: "transport.mptcp.scheduler".into(),
            scenario: t.mptcp.scheduler.to_string(),
            kernel: sc::MptcpScheduler::Upstream.to_string(),
            why: "upstream Linux has one MPTCP scheduler (protocol.c mptcp_subflow_get_send), \
                  not v0.9x's"
                .into(),
        });
    }
    // HyStart is a global module parameter of tcp_cubic (on by default),
    // which emulation does not change (docs/emulation.md).
    if t.cc == sc::CongestionControl::Cubic && t.hystart == sc::HyStart::Off {
        v.push(Substitution {
            key: "transport.hystart".into(),
            scenario: t.hystart.to_string(),
            kernel: sc::HyStart::Linux.to_string(),
            why: "HyStart is tcp_cubic's global module parameter (on by default), \
                  not set per namespace by emulation"
                .into(),
        });
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(transport: &str) -> sc::Scenario {
        let text = format!(
            "[scenario]\nname = \"t\"\nduration_s = 1\n[topology]\npreset = \"two-path\"\n\
             paths = [\"wlan\", \"3g\"]\n[traffic]\nmodel = \"bulk\"\n[transport]\n{transport}\n"
        );
        sc::Scenario::from_str(&text, "t.toml").unwrap()
    }

    #[test]
    fn minrtt_runs_as_upstream_and_tcp_as_given() {
        let s = scenario("protocol = \"mptcp\"\n[transport.mptcp]\nscheduler = \"minrtt\"");
        crate::run::supported(&s).unwrap();
        let v = substitutions(&s);
        assert_eq!(v.len(), 1);
        assert_eq!(
            v[0].text(),
            "transport.mptcp.scheduler = minrtt -> upstream"
        );
        // the scenario default ("default", an alias of minrtt) too
        assert_eq!(substitutions(&scenario("protocol = \"mptcp\"")).len(), 1);
        for t in [
            "protocol = \"mptcp\"\n[transport.mptcp]\nscheduler = \"upstream\"",
            "protocol = \"tcp\"",
            "protocol = \"tcp\"\ncc = \"newreno\"\nhystart = \"off\"",
        ] {
            assert_eq!(substitutions(&scenario(t)), vec![], "{t}");
        }
        let h = substitutions(&scenario("protocol = \"tcp\"\nhystart = \"off\""));
        assert_eq!(h[0].text(), "transport.hystart = off -> linux");
    }
}
