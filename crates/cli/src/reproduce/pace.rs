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
//! estimate and counts in neither side of the pace; the planned pass leaves
//! the runs its stores hold out of the estimate from the start
//! (`kernel::saved_runs`).

/// The counts behind the time left of one pass or round, on a clock of
/// the caller's (seconds from any fixed origin).
#[derive(Debug, Clone, PartialEq)]
pub struct Pace {
    /// Estimate of the runs not yet run or read back (s), the run under
    /// way included.
    left_s: f64,
    /// Estimate of the runs this process ran to their end (s).
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
    /// every later one's). The run under way before it ended (a failed
    /// cell's runs not run leave the estimate here).
    pub fn settle(&mut self, left_s: f64) {
        self.finish_running();
        self.left_s = left_s;
    }

    /// A run of estimate `est_s` read back from its store, not run.
    pub fn skipped(&mut self, est_s: f64) {
        self.left_s -= est_s;
    }

    /// A run of estimate `est_s` starts at `t` (the one before it, if any,
    /// ended): the time left, this run included.
    pub fn starting(&mut self, est_s: f64, t: f64) -> f64 {
        self.finish_running();
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

    fn finish_running(&mut self) {
        if let Some(est) = self.running.take() {
            self.left_s -= est;
            self.ran_s += est;
        }
    }
}

/// What a cell's runs report to the progress line: a run read back from
/// the store, or run `r` (0-based) starting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Event {
    ReadBack,
    Starting(u32),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two cells of 3 runs at 10 s each (60 s), the first read back from
    /// its store (a resumed pass), the second's runs taking 20 s each: the
    /// time left before its runs is 30 s (nothing ran yet), then 2 x 10 s
    /// at twice the estimate, then 1 x 10 s likewise. The line before
    /// session 30 (`kernel::time_left`) counted the three runs read back as
    /// 30 s of work done in the first 0.1 s: 10.05 s, then 8.02 s.
    #[test]
    fn runs_read_back_do_not_set_the_pace() {
        let mut p = Pace::new(60.0);
        p.settle(60.0);
        for _ in 0..3 {
            p.skipped(10.0);
        }
        p.settle(30.0);
        assert_eq!(p.starting(10.0, 0.1), 30.0);
        let l = p.starting(10.0, 20.1);
        assert!((l - 40.0).abs() < 1e-9, "{l}");
        let l = p.starting(10.0, 40.1);
        assert!((l - 20.0).abs() < 1e-9, "{l}");
    }

    /// Nothing read back: the pace of the runs so far, as before session
    /// 30 (the estimate left scaled by real over estimated time).
    #[test]
    fn a_fresh_pass_keeps_its_pace() {
        // cells of 3 x 6 s and 3 x 3 s (27 s)
        let mut p = Pace::new(27.0);
        p.settle(27.0);
        assert_eq!(p.starting(6.0, 0.0), 27.0);
        p.starting(6.0, 6.0);
        // two runs took 6 s each, as estimated: 15 s left
        assert!((p.starting(6.0, 12.0) - 15.0).abs() < 1e-9);
        // the second cell after 30 s for 18 s of estimate: 9 s at 30/18
        p.settle(9.0);
        assert!((p.starting(3.0, 30.0) - 9.0 * 30.0 / 18.0).abs() < 1e-9);
    }

    /// A cell that failed after its first run: its runs not run leave the
    /// estimate at the next cell, and its one run sets the pace.
    #[test]
    fn a_failed_cell_s_runs_leave_the_estimate() {
        let mut p = Pace::new(40.0);
        p.settle(40.0);
        p.starting(10.0, 0.0);
        // it failed at 5 s; the next cell is 2 x 10 s
        p.settle(20.0);
        assert!((p.starting(10.0, 5.0) - 10.0).abs() < 1e-9);
    }

    /// A round of batches whose first run of all is read back: the first
    /// run really run starts the clock.
    #[test]
    fn the_clock_starts_with_the_first_run_run() {
        let mut p = Pace::new(20.0);
        p.settle(20.0);
        p.skipped(10.0);
        // 100 s went on reading back and on an earlier batch's merge
        assert_eq!(p.starting(5.0, 100.0), 10.0);
        // the run took 5 s as estimated: 5 s left, not 5 x 105 / 15
        assert!((p.starting(5.0, 105.0) - 5.0).abs() < 1e-9);
    }
}
