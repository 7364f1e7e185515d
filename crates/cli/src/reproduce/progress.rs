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
//!
//! The bar never steps back (session 30). Its length is [`BAR_LEN`] and its
//! position the share done in millionths, raised only: a run that took
//! longer than its point's estimate lengthens the estimate more than it
//! advances the position, and the fraction shown stays where it was until
//! the work catches up (before, the bar stepped back). The saver threads
//! (four in `mptlab_sweep`) set the bar under the lock that counts their
//! runs, so the count and the position reach it in the order they were
//! counted (before, a thread that counted run 10 could set "9/..." after
//! another had set "10/...").

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
    /// the bar's position: the largest share done shown so far, in
    /// millionths of [`BAR_LEN`]
    shown: u64,
}

/// The bar's length: its position is the share of the work done in
/// millionths ([`Progress::show`]).
pub const BAR_LEN: u64 = 1_000_000;

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
                shown: 0,
            }),
            total,
        }
    }

    /// The counts before any run is done here: nothing measured yet, so
    /// the estimate is in simulated seconds (1 s = 1 unit). The bar starts
    /// at 0 of [`BAR_LEN`] without it.
    #[cfg(test)]
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

    /// One more run saved (the tests' view of [`Progress::show`]'s count).
    #[cfg(test)]
    pub fn tick(&self, d: &Done) -> Position {
        tick(&mut self.state.lock().unwrap(), d)
    }

    pub fn message(&self, runs: u64) -> String {
        format!("{runs}/{} runs", self.total)
    }

    /// One more run saved, shown on `bar` (of length [`BAR_LEN`]): its
    /// position is the share done ([`Progress::tick`]: measured
    /// microseconds over their sum with the estimate left) in millionths,
    /// never lowered, and the run count is in its message (`reproduce` and
    /// `sweep`). The bar is set under the lock that counts the runs, so
    /// concurrent savers reach it in the order they were counted. Returns
    /// the bar's position and the runs done as shown.
    pub fn show(&self, bar: &ProgressBar, d: &Done) -> (u64, u64) {
        let mut st = self.state.lock().unwrap();
        let now = tick(&mut st, d);
        st.shown = st.shown.max(share(now));
        bar.set_position(st.shown);
        bar.set_message(self.message(now.runs));
        (st.shown, now.runs)
    }
}

/// [`Progress::tick`] on the locked counts.
fn tick(st: &mut State, d: &Done) -> Position {
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

/// The share of `p` done, in millionths ([`BAR_LEN`]): exactly the whole
/// when nothing is left.
fn share(p: Position) -> u64 {
    if p.len == 0 || p.pos >= p.len {
        return BAR_LEN;
    }
    (u128::from(p.pos) * u128::from(BAR_LEN) / u128::from(p.len)) as u64
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

    /// Session 30: the bar never steps back. Ten cheap runs of one point
    /// (1 ms each) done and the other point's ten priced at that rate: half
    /// done. Its first run takes 100 ms, so its nine left are priced at
    /// 100 ms each: the share done falls to 11 % (the old `show` set that
    /// on the bar, position over length). Shown, it holds at half until the
    /// work done passes it, and ends whole.
    #[test]
    fn the_bar_never_steps_back() {
        let new = || Progress::new(&[vec![(10.0, 10), (10.0, 10)]], 0, 20);
        // the raw share: 50 %, then 11 %
        let p = new();
        let mut raw = Position {
            pos: 0,
            len: 0,
            runs: 0,
        };
        for _ in 0..10 {
            raw = p.tick(&done(0, 0, 0.001));
        }
        assert_eq!((raw.pos, raw.len), (10_000, 20_000));
        let fell = p.tick(&done(0, 1, 0.100));
        assert_eq!((fell.pos, fell.len), (110_000, 1_010_000));
        assert!(share(fell) < share(raw), "{raw:?} {fell:?}");
        // shown: never lower, the count always up, whole at the end
        let p = new();
        let bar =
            ProgressBar::with_draw_target(Some(BAR_LEN), indicatif::ProgressDrawTarget::hidden());
        let mut last = (0, 0);
        let runs = std::iter::repeat_n((0, 0.001), 10).chain(std::iter::repeat_n((1, 0.100), 10));
        let mut seen = Vec::new();
        for (pt, s) in runs {
            let now = p.show(&bar, &done(0, pt, s));
            assert!(
                now.0 >= last.0 && now.1 == last.1 + 1,
                "{last:?} -> {now:?}"
            );
            assert_eq!(bar.position(), now.0);
            seen.push(now.0);
            last = now;
        }
        assert_eq!(seen[9], 500_000);
        assert_eq!(seen[10], 500_000, "held, not 108_910");
        assert_eq!(last, (BAR_LEN, 20), "the whole at the end");
        assert_eq!(bar.message(), "20/20 runs");
    }

    /// Four savers at once: each one's shown position and count are never
    /// below what it saw before, and the bar ends whole, with the count at
    /// the total (the bar is set under the counting lock).
    #[test]
    fn concurrent_savers_never_step_back() {
        let pts: Vec<(f64, u64)> = (0..10).map(|i| (5.0 + i as f64 * 60.0, 40)).collect();
        let p = Progress::new(&[pts], 0, 400);
        let bar =
            ProgressBar::with_draw_target(Some(BAR_LEN), indicatif::ProgressDrawTarget::hidden());
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let (p, bar) = (&p, &bar);
                s.spawn(move || {
                    let mut last = (0, 0);
                    for i in 0..100u64 {
                        let k = t * 100 + i;
                        let d = done(0, (k % 10) as usize, (k % 7) as f64 * 0.0123 + 1e-4);
                        let now = p.show(bar, &d);
                        assert!(now.0 >= last.0 && now.1 > last.1, "{last:?} -> {now:?}");
                        last = now;
                    }
                });
            }
        });
        assert_eq!(bar.position(), BAR_LEN);
        assert_eq!(bar.message(), "400/400 runs");
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
