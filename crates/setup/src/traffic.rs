//! The traffic of a run: `[traffic]` mapped once to configured traffic
//! models of mptlab-core ([`foreground`]), and message schedules
//! ([`Schedule`], [`SourceSchedule`]). The simulator wires the result to its
//! applications, the emulator to its agent; both get the same sources with
//! the same random streams, so an emulated run offers the very messages its
//! simulated twin offers.

use mptlab_core::time::{secs, Nanos};
use mptlab_core::traffic::browser::BrowserConfig;
use mptlab_core::traffic::bursts::{BurstSource, BurstsConfig};
use mptlab_core::traffic::gaming::{GamingConfig, GamingSource};
use mptlab_core::traffic::gaming_trace::{Trace as GameTrace, TraceSource};
use mptlab_core::traffic::video::{FramePhase, VideoConfig, VideoSource};
use mptlab_core::traffic::web::Page;
use mptlab_core::traffic::MessageSource;
use mptlab_core::SimRng;
use mptlab_scenario as sc;

/// An open-loop message schedule: (absolute time, size in bytes), in time order.
pub trait Schedule {
    fn next_message(&mut self) -> Option<(Nanos, u32)>;
}

/// A traffic model's message source, started at an absolute time, with its
/// own random stream.
pub struct SourceSchedule {
    src: Box<dyn MessageSource>,
    rng: SimRng,
    start: Nanos,
    stop: Option<Nanos>,
}

impl SourceSchedule {
    pub fn new(
        src: Box<dyn MessageSource>,
        rng: SimRng,
        start: Nanos,
        stop: Option<Nanos>,
    ) -> Self {
        SourceSchedule {
            src,
            rng,
            start,
            stop,
        }
    }
}

impl Schedule for SourceSchedule {
    fn next_message(&mut self) -> Option<(Nanos, u32)> {
        let m = self.src.next(&mut self.rng)?;
        let at = self.start + m.at;
        if self.stop.is_some_and(|s| at >= s) {
            return None;
        }
        Some((at, m.bytes))
    }
}

/// A schedule from a closure.
pub struct FnSchedule<F: FnMut() -> Option<(Nanos, u32)>>(pub F);

impl<F: FnMut() -> Option<(Nanos, u32)>> Schedule for FnSchedule<F> {
    fn next_message(&mut self) -> Option<(Nanos, u32)> {
        (self.0)()
    }
}

/// The foreground traffic of a run, configured from `[traffic]`.
pub enum Traffic {
    /// Messages (video frames, game packets, bursts) on their schedule from
    /// `traffic.start_s` to `traffic.stop_s`. `finite`: the schedule ends
    /// and the run's work is done once every message is delivered (gaming
    /// traces, bursts); video runs until the end of the run.
    Messages {
        schedule: SourceSchedule,
        finite: bool,
    },
    /// One web page load (seed 000 section 4.3.3) over up to
    /// `browser.max_connections` connections.
    Web { page: Page, browser: BrowserConfig },
    /// One file of `size_bytes`.
    File { size_bytes: u64 },
    /// A saturated sender for the whole run.
    Bulk,
}

/// `[traffic]` of `s` for the run with `seed`: the traffic model's source
/// and its random stream (`traffic/video`, `traffic/gaming`,
/// `traffic/bursts`), or the web page, file or bulk transfer.
pub fn foreground(s: &sc::Scenario, seed: u64) -> Result<Traffic, String> {
    foreground_at(s, seed, secs(s.traffic.start_s))
}

/// [`foreground`] with its messages starting at `start` instead of
/// `traffic.start_s` (a client of the `clients` preset with its own start).
pub fn foreground_at(s: &sc::Scenario, seed: u64, start: Nanos) -> Result<Traffic, String> {
    let stop = s.traffic.stop_s.map(secs);
    let stream = |src: Box<dyn MessageSource>, label: &str| {
        SourceSchedule::new(src, SimRng::stream(seed, label), start, stop)
    };
    Ok(match &s.traffic.model {
        sc::TrafficModel::Video { bitrate_kbit, fps } => {
            let cfg = VideoConfig {
                bit_rate_bps: (bitrate_kbit * 1000.0).round() as u64,
                frame_rate: fps.round() as u32,
                phase: FramePhase::Fixed(0),
                max_frames: None,
            };
            let src = VideoSource::new(cfg)?;
            Traffic::Messages {
                schedule: stream(Box::new(src), "traffic/video"),
                finite: false,
            }
        }
        sc::TrafficModel::Gaming { trace } => {
            let src: Box<dyn MessageSource> = match trace {
                sc::GamingTrace::Builtin(name) => {
                    let preset = format!("aoc-trace{}", name.trim_start_matches('t'));
                    Box::new(GamingSource::new(GamingConfig::preset(&preset)?)?)
                }
                sc::GamingTrace::File(p) => Box::new(TraceSource::new(load_game_trace(p)?, 0)),
            };
            Traffic::Messages {
                schedule: stream(src, "traffic/gaming"),
                finite: true,
            }
        }
        sc::TrafficModel::Web {
            page,
            max_connections,
        } => {
            let page = match page {
                sc::WebPage::Site(name) => Page::preset(name, seed)?,
                sc::WebPage::Objects(v) => Page::from_sizes("custom", v)?,
            };
            let browser = BrowserConfig {
                max_connections: *max_connections as usize,
                ..BrowserConfig::default()
            };
            Traffic::Web { page, browser }
        }
        sc::TrafficModel::File { size_bytes } => Traffic::File {
            size_bytes: *size_bytes,
        },
        sc::TrafficModel::Bursts {
            count,
            size_bytes,
            interval_s,
        } => {
            // each burst is a message: its delay is the burst completion time
            let src = BurstSource::new(BurstsConfig::from_scenario(
                *count,
                *size_bytes,
                *interval_s,
            ))?;
            Traffic::Messages {
                schedule: stream(Box::new(src), "traffic/bursts"),
                finite: true,
            }
        }
        sc::TrafficModel::Bulk => Traffic::Bulk,
    })
}

/// A gaming trace file, read by the scenario crate's reader (the one
/// validation uses): see [`sc::files::load_gaming_trace`].
pub fn load_game_trace(p: &std::path::Path) -> Result<GameTrace, String> {
    sc::files::load_gaming_trace(p)
}

/// Whether the files `[traffic]` names can still be read (`traffic.trace`);
/// checked by both drivers before the first run.
pub fn check_files(s: &sc::Scenario) -> Result<(), String> {
    if let sc::TrafficModel::Gaming {
        trace: sc::GamingTrace::File(p),
    } = &s.traffic.model
    {
        load_game_trace(p).map_err(|e| format!("traffic.trace: {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(traffic: &str) -> sc::Scenario {
        let text = format!("[scenario]\nname = \"t\"\nduration_s = 10\n[topology]\npreset = \"single-path\"\npaths = [\"lte\"]\n[traffic]\n{traffic}");
        sc::Scenario::from_str(&text, "t.toml").unwrap()
    }

    fn messages(t: Traffic) -> (Vec<(Nanos, u32)>, bool) {
        match t {
            Traffic::Messages {
                mut schedule,
                finite,
            } => {
                let mut v = Vec::new();
                while let Some(m) = schedule.next_message() {
                    v.push(m);
                }
                (v, finite)
            }
            _ => panic!("not a message model"),
        }
    }

    #[test]
    fn video_is_an_open_schedule_between_start_and_stop() {
        let s = scenario(
            "model = \"video\"\nbitrate_kbit = 800\nfps = 25\nstart_s = 1.0\nstop_s = 3.0\n",
        );
        let (v, finite) = messages(foreground(&s, s.run_seed(0)).unwrap());
        assert!(!finite, "video runs until the end of the run");
        // 25 frames per second from 1 s to 3 s (stop exclusive)
        assert_eq!(v.len(), 50);
        assert_eq!(v[0].0, secs(1.0));
        assert!(v.iter().all(|&(t, _)| t >= secs(1.0) && t < secs(3.0)));
        assert!(v.windows(2).all(|w| w[0].0 <= w[1].0));
        // same seed, same messages; the mapping draws nothing else
        let (w, _) = messages(foreground(&s, s.run_seed(0)).unwrap());
        assert_eq!(v, w);
    }

    #[test]
    fn gaming_and_bursts_are_finite_web_file_and_bulk_map_one_to_one() {
        let s = scenario("model = \"gaming\"\ntrace = \"t1\"\n");
        let (v, finite) = messages(foreground(&s, 1).unwrap());
        assert!(finite && !v.is_empty());
        let s = scenario("model = \"bursts\"\ncount = 3\nsize_bytes = 1000\ninterval_s = 1.0\n");
        let (v, finite) = messages(foreground(&s, 1).unwrap());
        assert!(finite);
        assert_eq!(v.iter().map(|m| m.1).collect::<Vec<_>>(), [1000; 3]);
        let s = scenario("model = \"web\"\nobjects_bytes = [100, 200]\nmax_connections = 2\n");
        match foreground(&s, 1).unwrap() {
            Traffic::Web { page, browser } => {
                assert_eq!(page.objects.len(), 2);
                assert_eq!(browser.max_connections, 2);
            }
            _ => panic!("web"),
        }
        let s = scenario("model = \"file\"\nsize_bytes = 12345\n");
        assert!(matches!(
            foreground(&s, 1).unwrap(),
            Traffic::File { size_bytes: 12345 }
        ));
        let s = scenario("model = \"bulk\"\n");
        assert!(matches!(foreground(&s, 1).unwrap(), Traffic::Bulk));
        assert!(check_files(&s).is_ok());
    }
}
