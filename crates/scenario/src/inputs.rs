//! Files a validated scenario reads when it is run: what its results were
//! computed from besides the scenario text (a sweep keys its stored runs by
//! their contents, see `crates/sweep/src/store.rs`).

use crate::{GamingTrace, Scenario, Topology, TrafficModel};
use std::path::PathBuf;

impl Scenario {
    /// Every file a run of this scenario reads, resolved against `base_dir`,
    /// each once, in a fixed order: link traces (preset paths 1, 2, ...
    /// up then down, then the server link; or explicit links in file
    /// order), then the gaming trace file. A D-ITG gaming trace is two
    /// files: the inter-departure file named and its `.ps` size file beside
    /// it (the rule of `mptlab_setup::traffic::load_game_trace`). Built-in
    /// gaming traces and web sites are compiled in and read no file.
    pub fn input_files(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        let mut add = |p: &PathBuf| {
            if !out.contains(p) {
                out.push(p.clone());
            }
        };
        let links: Vec<&crate::Link> = match &self.topology {
            Topology::Preset {
                paths, server_link, ..
            } => paths
                .iter()
                .map(|p| &p.link)
                .chain(std::iter::once(server_link))
                .collect(),
            Topology::Explicit { links, .. } => links.iter().map(|l| &l.link).collect(),
        };
        for l in links {
            for d in [&l.up, &l.down] {
                if let Some(t) = &d.trace {
                    add(t);
                }
            }
        }
        if let TrafficModel::Gaming {
            trace: GamingTrace::File(p),
        } = &self.traffic.model
        {
            add(p);
            if !p.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")) {
                add(&p.with_extension("ps"));
            }
        }
        out
    }
}

// the CLI's test scratch directory (removed when the test ends, passed or failed)
#[cfg(test)]
#[path = "../../cli/src/scratch.rs"]
mod scratch;

#[cfg(test)]
mod tests {
    use crate::Scenario;

    #[test]
    fn lists_link_and_gaming_trace_files_once_in_order() {
        let d = super::scratch::Scratch::new("inputs");
        for f in ["link.trace", "game.idt", "game.ps"] {
            std::fs::write(d.join(f), "1\n2\n").unwrap();
        }
        let text = "[scenario]\nname = \"i\"\nduration_s = 1\n\
            [profile.tr]\ntrace = \"link.trace\"\ndelay_ms = 10\n\
            [topology]\npreset = \"two-path\"\npaths = [\"tr\", \"tr\"]\n\
            [transport]\nprotocol = \"udp\"\n\
            [traffic]\nmodel = \"gaming\"\ntrace = \"game.idt\"\n";
        let s = Scenario::from_str_in(text, "i.toml", d.to_path_buf()).unwrap();
        assert_eq!(
            s.input_files(),
            vec![d.join("link.trace"), d.join("game.idt"), d.join("game.ps")]
        );
        let builtin = text.replace("game.idt", "t1").replace("\"tr\"]", "\"3g\"]");
        let s = Scenario::from_str_in(&builtin, "i.toml", d.to_path_buf()).unwrap();
        assert_eq!(s.input_files(), vec![d.join("link.trace")]);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
