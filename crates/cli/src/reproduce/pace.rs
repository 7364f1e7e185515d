//! The time left in the kernel pass's per-run lines (`reproduce --kernel`,
//! the planned pass, and each `--until-decided` round): the estimate of
//! the runs still to do, scaled by the pace of the runs this process ran.
//!
//! The pace is real time over estimated time of the runs actually run
//! here, so the set-up cost each run pays beyond the estimate on a busy
//! host shows in the figure. A run read back from its store (a resumed
//! pass, or a top-up whose runs an interrupted one had saved) costs about
//! nothing: before session 30 it counted as done work at its estimate, in
//! about 0 s, so after a resumed cell the pace read several times too fast
//! and the time left too low (a pass of two 3-run cells at 10 s a run,
//! the first read back, its second cell's runs taking 20 s: "10 s left"
//! before the last two runs, 40 s in truth). Now such a run leaves the
//! estimate and counts in neither side of the pace. A run that failed
//! leaves the estimate too, without counting as work done: only a run
//! reported [`Event::Ran`] does (before, the next cell's start counted the
//! run under way as done, so a run that failed after a second read as its
//! whole estimate done in that second, and the pace too fast).
//!
//! Both call sites, the planned pass (`kernel::run_cells`) and an
//! `--until-decided` round (`reproduce.rs top_up_runs`), hand every event
//! of a cell's runs to [`Pace::on`], which is where a run read back, a run
//! starting and a run ended are told apart.

/// The counts behind the time left of one pass or round, on a clock of
/// the caller's (seconds from any fixed origin).
#[derive(Debug, Clone, PartialEq)]
pub struct Pace {
    /// Estimate of the runs not yet run or read back (s), the run under
    /// way included.
    left_s: f64,
    /// Estimate of the runs this process ran to their end (s): the runs
    /// reported [`Event::Ran`], not those that failed.
    ran_s: f64,
    /// When the first run this process ran started.
    first: Option<f64>,
    /// The estimate of the run under way, if one is.
    running: Option<f64>,
}

impl Pace {
    /// A pass or round estimated at `total_s`.
    pub fn new(total_s: f64) -> Pace {
        Pace {
            left_s: total_s,
            ran_s: 0.0,
            first: None,
            running: None,
        }
    }

    /// A cell or batch begins: what is left is `left_s` (its estimate and
    /// every later one's, its runs to be read back included: each leaves
    /// the estimate as it is reported). A run still under way did not end
    /// as [`Event::Ran`]: it failed (a failed cell's runs not run leave the
    /// estimate here too).
    pub fn settle(&mut self, left_s: f64) {
        self.drop_running();
        self.left_s = left_s;
    }

    /// One event of a cell's runs at `t`, every run estimated at `est_s`:
    /// for a run starting, its index and the time left to print (that run
    /// included); nothing for a run read back or ended.
    pub fn on(&mut self, ev: Event, est_s: f64, t: f64) -> Option<(u32, f64)> {
        match ev {
            Event::ReadBack => {
                self.skipped(est_s);
                None
            }
            Event::Starting(r) => Some((r, self.starting(est_s, t))),
            Event::Ran => {
                self.ran();
                None
            }
        }
    }

    /// A run of estimate `est_s` read back from its store, not run.
    pub fn skipped(&mut self, est_s: f64) {
        self.left_s -= est_s;
    }

    /// A run of estimate `est_s` starts at `t`: the time left, this run
    /// included. A run before it that was not reported [`Event::Ran`]
    /// failed (the runs of a cell stop at a failure, so only a caller
    /// without [`Pace::settle`] between cells gets here with one).
    pub fn starting(&mut self, est_s: f64, t: f64) -> f64 {
        self.drop_running();
        self.first.get_or_insert(t);
        let left = self.left(t);
        self.running = Some(est_s);
        left
    }

    /// The time left at `t`: the estimate still to do at the pace of the
    /// runs ran so far (at their estimate before one ended).
    pub fn left(&self, t: f64) -> f64 {
        match self.first {
            Some(first) if self.ran_s > 0.0 && t > first => self.left_s * (t - first) / self.ran_s,
            _ => self.left_s,
        }
    }

    /// The run under way ended and was saved: its estimate is work done.
    pub fn ran(&mut self) {
        if let Some(est) = self.running.take() {
            self.left_s -= est;
            self.ran_s += est;
        }
    }

    /// The run under way did not end as [`Pace::ran`] (it failed): its
    /// estimate leaves what is left and is not work done, as its real
    /// time stays on the clock.
    fn drop_running(&mut self) {
        if let Some(est) = self.running.take() {
            self.left_s -= est;
        }
    }
}

/// What a cell's runs report to the progress line ([`Pace::on`]): a run
/// read back from the store, run `r` (0-based) starting, or the run that
/// started last ended and saved (a run that fails reports no `Ran`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Event {
    ReadBack,
    Starting(u32),
    Ran,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run of estimate `est` at `t` through [`Pace::on`], as a cell's
    /// runs report it: the time left printed as it starts, then its end.
    fn run(p: &mut Pace, r: u32, est: f64, t: f64) -> f64 {
        let (at, left) = p
            .on(Event::Starting(r), est, t)
            .expect("a line per run started");
        assert_eq!(at, r);
        left
    }

    /// Two cells of 3 runs at 10 s each (60 s), the first read back from
    /// its store (a resumed pass), the second's runs taking 20 s each: the
    /// time left before its runs is 30 s (nothing ran yet), then 2 x 10 s
    /// at twice the estimate, then 1 x 10 s likewise. The line before
    /// session 30 (`kernel::time_left`) counted the three runs read back as
    /// 30 s of work done in the first 0.1 s: 10.05 s, then 8.02 s. As
    /// `kernel::run_cells` does it: the pass's estimate leaves the saved
    /// runs out, each cell's is settled with them and they leave it as
    /// they are read back.
    #[test]
    fn runs_read_back_do_not_set_the_pace() {
        let mut p = Pace::new(30.0);
        p.settle(30.0 + 30.0);
        for _ in 0..3 {
            assert_eq!(p.on(Event::ReadBack, 10.0, 0.0), None);
        }
        assert_eq!(p.left(0.1), 30.0);
        p.settle(30.0);
        assert_eq!(run(&mut p, 0, 10.0, 0.1), 30.0);
        p.on(Event::Ran, 10.0, 20.1);
        let l = run(&mut p, 1, 10.0, 20.1);
        assert!((l - 40.0).abs() < 1e-9, "{l}");
        p.on(Event::Ran, 10.0, 40.1);
        let l = run(&mut p, 2, 10.0, 40.1);
        assert!((l - 20.0).abs() < 1e-9, "{l}");
    }

    /// A cell resumed with runs 0 and 1 of 4 on disk (10 s each), settled
    /// with them: they leave the estimate as [`Pace::on`] reads them back,
    /// so the first line says the 2 runs left, and the runs after it go at
    /// the pace of runs 2 and 3 alone. Fails with a run read back ignored
    /// by `on` (40 s, then 45 s).
    #[test]
    fn on_takes_a_run_read_back_out_of_the_estimate() {
        let mut p = Pace::new(20.0);
        p.settle(40.0);
        p.on(Event::ReadBack, 10.0, 0.0);
        p.on(Event::ReadBack, 10.0, 0.0);
        assert_eq!(run(&mut p, 2, 10.0, 0.0), 20.0);
        p.on(Event::Ran, 10.0, 15.0);
        // run 2 took 15 s for 10 s of estimate: run 3's 10 s at that pace
        let l = run(&mut p, 3, 10.0, 15.0);
        assert!((l - 15.0).abs() < 1e-9, "{l}");
    }

    /// Nothing read back: the pace of the runs so far, as before session
    /// 30 (the estimate left scaled by real over estimated time).
    #[test]
    fn a_fresh_pass_keeps_its_pace() {
        // cells of 3 x 6 s and 3 x 3 s (27 s)
        let mut p = Pace::new(27.0);
        p.settle(27.0);
        assert_eq!(run(&mut p, 0, 6.0, 0.0), 27.0);
        p.on(Event::Ran, 6.0, 6.0);
        run(&mut p, 1, 6.0, 6.0);
        p.on(Event::Ran, 6.0, 12.0);
        // two runs took 6 s each, as estimated: 15 s left
        assert!((run(&mut p, 2, 6.0, 12.0) - 15.0).abs() < 1e-9);
        p.on(Event::Ran, 6.0, 30.0);
        // the second cell after 30 s for 18 s of estimate: 9 s at 30/18
        p.settle(9.0);
        assert!((run(&mut p, 0, 3.0, 30.0) - 9.0 * 30.0 / 18.0).abs() < 1e-9);
    }

    /// A cell that failed after its first run: its runs not run leave the
    /// estimate at the next cell, and its one run sets the pace.
    #[test]
    fn a_failed_cell_s_runs_leave_the_estimate() {
        let mut p = Pace::new(40.0);
        p.settle(40.0);
        run(&mut p, 0, 10.0, 0.0);
        p.on(Event::Ran, 10.0, 10.0);
        run(&mut p, 1, 10.0, 10.0);
        // run 1 failed at 12 s; the next cell is 2 x 10 s, at the pace of
        // run 0 (10 s in 10 s) and the 2 s the failure took
        p.settle(20.0);
        let l = run(&mut p, 0, 10.0, 12.0);
        assert!((l - 20.0 * 12.0 / 10.0).abs() < 1e-9, "{l}");
    }

    /// A run that failed after 1 s of its 10 s estimate is not work done:
    /// it leaves the estimate, its second on the clock. Before, the next
    /// cell's start counted it as done (10 s of estimate in 1 s), so the
    /// next cell's 20 s read as 2 s; now, with no run ended, the plain
    /// estimate, and after a run as long as estimated, about that pace.
    #[test]
    fn a_failed_run_is_not_work_done() {
        let mut p = Pace::new(30.0);
        p.settle(30.0);
        run(&mut p, 0, 10.0, 0.0);
        // it failed at 1 s; the next cell is 2 x 10 s
        p.settle(20.0);
        assert_eq!(run(&mut p, 0, 10.0, 1.0), 20.0);
        p.on(Event::Ran, 10.0, 11.0);
        // 10 s of work done in 11 s (the failure's second included)
        let l = run(&mut p, 1, 10.0, 11.0);
        assert!((l - 10.0 * 11.0 / 10.0).abs() < 1e-9, "{l}");
    }

    /// A round of batches whose first run of all is read back: the first
    /// run really run starts the clock.
    #[test]
    fn the_clock_starts_with_the_first_run_run() {
        let mut p = Pace::new(20.0);
        p.settle(20.0);
        p.on(Event::ReadBack, 10.0, 0.0);
        // 100 s went on reading back and on an earlier batch's merge
        assert_eq!(run(&mut p, 0, 5.0, 100.0), 10.0);
        p.on(Event::Ran, 5.0, 105.0);
        // the run took 5 s as estimated: 5 s left, not 5 x 105 / 15
        assert!((run(&mut p, 1, 5.0, 105.0) - 5.0).abs() < 1e-9);
    }
}
