//! `reproduce`'s progress bar: how much of the work is done, in measured
//! time rather than in simulated time.
//!
//! The runs of the paper's libraries differ in cost per simulated second
//! by about 1,000x (a 900 s seed-002 burst trace takes 1.5 ms, a 60 s
//! saturated seed-003 multipath download 160 ms, a 605 s seed-000 game
//! 5 ms without background and 125 ms with it), so a bar that advanced by
//! simulated seconds showed 20 % after 0.5 % of the work and 99.5 % with
//! 11 % still to do (docs/report.md, "Progress bar"). Here the bar's unit
//! is a microsecond of measured simulation time: done runs count with the
//! time they took; a point's runs still to do are estimated as its own
//! mean time per run once one of its runs finished (the queue runs one
//! pilot run of every point first, `mptlab_sweep::Order::PilotsFirst`), or
//! before that from its simulated duration at the time per simulated
//! second measured so far (in its sweep if any, else over all).

use indicatif::ProgressBar;
use mptlab_sweep::Done;
use std::sync::Mutex;

/// Per point: the prior (simulated seconds of one run), runs still to do,
/// measured microseconds and runs measured.
#[derive(Clone, Debug, Default)]
struct Point {
    prior: f64,
    left: u64,
    micros: u64,
    measured: u64,
}

#[derive(Debug)]
struct State {
    /// sweeps x points
    points: Vec<Vec<Point>>,
    /// measured microseconds of every run done here (the bar's position)
    done: u64,
    /// runs done, including those of an earlier (resumed) invocation
    runs: u64,
}

/// The counts behind the bar, updated by the saver threads as runs are
/// saved.
#[derive(Debug)]
pub struct Progress {
    state: Mutex<State>,
    total: u64,
}

/// Where the bar stands after a tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// measured microseconds done
    pub pos: u64,
    /// `pos` plus the estimate of what is left
    pub len: u64,
    /// runs done (of `total`)
    pub runs: u64,
}

impl Progress {
    /// `sweeps[k][p]` = (simulated seconds of one run of point p, runs of it
    /// still to do); `done`/`total`: runs already done / in all.
    pub fn new(sweeps: &[Vec<(f64, u64)>], done: u64, total: u64) -> Progress {
        let points = sweeps
            .iter()
            .map(|ps| {
                ps.iter()
                    .map(|&(prior, left)| Point {
                        prior,
                        left,
                        ..Point::default()
                    })
                    .collect()
            })
            .collect();
        Progress {
            state: Mutex::new(State {
                points,
                done: 0,
                runs: done,
            }),
            total,
        }
    }

    /// The bar before any run is done here: nothing measured yet, so the
    /// estimate is in simulated seconds (1 s = 1 unit; only the ratio of
    /// position to length is shown, and the first tick replaces it).
    pub fn start(&self) -> Position {
        let st = self.state.lock().unwrap();
        let len = st
            .points
            .iter()
            .flatten()
            .map(|p| (p.prior * p.left as f64).round() as u64)
            .sum();
        Position {
            pos: 0,
            len,
            runs: st.runs,
        }
    }

    /// One more run saved.
    pub fn tick(&self, d: &Done) -> Position {
        let mut st = self.state.lock().unwrap();
        let us = (d.seconds * 1e6).round() as u64;
        let p = &mut st.points[d.sweep][d.point];
        p.left = p.left.saturating_sub(1);
        p.micros += us;
        p.measured += 1;
        st.done += us;
        st.runs += 1;
        let left = estimate_left(&st.points);
        Position {
            pos: st.done,
            len: st.done + left,
            runs: st.runs,
        }
    }

    pub fn message(&self, runs: u64) -> String {
        format!("{runs}/{} runs", self.total)
    }

    /// One more run saved, shown on `bar`: its position and length in
    /// measured microseconds ([`Progress::tick`]), the run count in its
    /// message (`reproduce` and `sweep`).
    pub fn show(&self, bar: &ProgressBar, d: &Done) {
        let now = self.tick(d);
        bar.set_length(now.len);
        bar.set_position(now.pos);
        bar.set_message(self.message(now.runs));
    }
}

/// The bar's template: the count is in the message, the bar and its ETA
/// in measured time.
pub const TEMPLATE: &str = "{spinner} [{elapsed_precise}] {bar:40} {msg} (eta {eta})";

/// Microseconds the runs still to do should take: a measured point's mean
/// per run; an unmeasured one's simulated seconds at the measured time per
/// simulated second of its sweep, else of all measured runs. Integer sums,
/// so when nothing is left the estimate is exactly 0 and the bar ends at
/// its length.
fn estimate_left(points: &[Vec<Point>]) -> u64 {
    // (measured microseconds, simulated seconds of those runs)
    let rate = |ps: &mut dyn Iterator<Item = &Point>| {
        let (us, sim) = ps.fold((0u64, 0.0f64), |(u, s), p| {
            (u + p.micros, s + p.prior * p.measured as f64)
        });
        (sim > 0.0).then(|| us as f64 / sim)
    };
    let global = rate(&mut points.iter().flatten()).unwrap_or(0.0);
    let mut left = 0u64;
    for sweep in points {
        let mut local = None;
        for p in sweep.iter().filter(|p| p.left > 0) {
            left += if p.measured > 0 {
                p.micros.div_ceil(p.measured) * p.left
            } else {
                let r = *local.get_or_insert_with(|| rate(&mut sweep.iter()).unwrap_or(global));
                (r * p.prior * p.left as f64).round() as u64
            };
        }
    }
    left
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done(sweep: usize, point: usize, seconds: f64) -> Done {
        Done {
            sweep,
            point,
            cost: 0.0,
            seconds,
        }
    }

    /// A cheap long run and a costly short one (seed 002 beside seed 003):
    /// once each point ran once, the estimate is its measured time x runs
    /// left, not its simulated duration; an unmeasured point is priced at
    /// its sweep's measured time per simulated second.
    #[test]
    fn estimates_from_measured_times_not_simulated_seconds() {
        // sweep 0: a 900 s point of 10 runs; sweep 1: 60 s points, 10 runs each
        let p = Progress::new(&[vec![(900.0, 10)], vec![(60.0, 10), (60.0, 10)]], 0, 30);
        let s = p.start();
        assert_eq!((s.pos, s.len), (0, 9_000 + 1_200));
        // the cheap 900 s run: 1 ms; nothing else measured yet, so the
        // 60 s points are priced at 1 ms per 900 s: 10 x 66.7 us each
        let a = p.tick(&done(0, 0, 0.001));
        assert_eq!(a.pos, 1_000);
        assert_eq!(a.len, 1_000 + 9 * 1_000 + 2 * 667);
        // the costly 60 s point: 160 ms per run; its sibling, unmeasured,
        // takes its sweep's rate (160 ms / 60 s)
        let b = p.tick(&done(1, 0, 0.160));
        assert_eq!(b.len, b.pos + 9 * 1_000 + 9 * 160_000 + 10 * 160_000);
        assert_eq!(b.runs, 2);
        assert_eq!(p.message(b.runs), "2/30 runs");
    }

    /// The bar ends exactly at its length and the count at the total,
    /// whatever order the saver threads report the runs in.
    #[test]
    fn ends_at_its_length_from_any_thread_order() {
        let pts: Vec<(f64, u64)> = (0..10).map(|i| (5.0 + i as f64 * 60.0, 90)).collect();
        // 100 runs done before (resumed)
        let p = Progress::new(&[pts], 100, 1000);
        let last = Mutex::new(Position {
            pos: 0,
            len: 0,
            runs: 0,
        });
        std::thread::scope(|s| {
            for t in 0..3u64 {
                let (p, last) = (&p, &last);
                s.spawn(move || {
                    for i in 0..300u64 {
                        let k = t * 300 + i;
                        let d = done(0, (k % 10) as usize, (k % 7) as f64 * 0.0123 + 1e-4);
                        let now = p.tick(&d);
                        assert!(now.pos <= now.len);
                        let mut l = last.lock().unwrap();
                        if now.runs > l.runs {
                            *l = now;
                        }
                    }
                });
            }
        });
        let l = last.into_inner().unwrap();
        assert_eq!(l.runs, 1000);
        assert_eq!(l.pos, l.len, "nothing left at the end");
    }
}
