//! The traffic agent's threads run SCHED_FIFO, below the emulator (issue 15,
//! session 18).
//!
//! Why. A Linux TCP receiver ACKs at once only when the right edge of its
//! window advances far enough (`net/ipv4/tcp_input.c: __tcp_ack_snd_check`,
//! "tcp_recvmsg() will send ACK otherwise"); data the application has not
//! read yet shrinks the window, so a receiving thread that waits for a CPU
//! holds the connection's ACKs back until it reads (`tcp_cleanup_rbuf`), and
//! the sender then answers the late ACK with a burst. Measured (docs/emulation.md,
//! "Under load (session 18)"): at load 15 on 2 CPUs the NTNU->HiN 83 Mbit/s
//! receiver went 3-40 ms without an ACK 275 times in 20 s while data kept
//! arriving, and the bottleneck dropped 196 packets where the simulator drops
//! 20; with the agent at SCHED_FIFO, 0 times and 19 drops. So the host's
//! unrelated (CFS) load decided when the kernel ACKed, i.e. the kernel's
//! result. Such waits were 4-6 times as frequent with the one-thread emulator
//! as per direction; the likely path (not traced with scheduler events): the
//! receiver is woken by the emulator's own TUN write (the delivery runs the
//! receiving stack in the emulator thread), a synchronous wake-up from a CPU
//! whose only runnable task is the waker places it on that CPU
//! (`kernel/sched/fair.c: wake_affine_idle`), behind the one real-time thread
//! that is busy 80-90 % of the time, and with no idle CPU to pull it only
//! periodic load balancing moves it.
//!
//! Real-time agent threads are placed by the RT scheduler instead: a woken
//! RT task goes to a CPU running lower-priority work and preempts it
//! (`kernel/sched/rt.c: select_task_rq_rt`, `find_lowest_rq`; sched(7)), so
//! normal-priority load cannot delay the applications. They stay below the
//! emulator (`EmuOptions::realtime_priority`, 10) so they never delay a
//! release. The agent's threads block in socket calls and timers (no busy
//! loop), and the kernel's RT throttling (95 % of a CPU) bounds them anyway.
//!
//! Scope: the policy is set on the thread that runs an emulation run just
//! before the agent's server starts, and every thread created after inherits
//! it (pthread's default `PTHREAD_INHERIT_SCHED`, pthread_attr_setinheritsched(3));
//! the previous policy is restored when the run ends. Capture processes reset
//! it in their child (capture.rs). `MPTLAB_EMU_AGENT_RT=off` keeps the agent at
//! normal priority (to measure against).

use std::io;

/// The agent's SCHED_FIFO priority: above every normal task, below the
/// emulator's threads (10).
pub const AGENT_PRIORITY: i32 = 5;

/// Environment variable: `off` keeps the agent's threads at normal priority.
pub const AGENT_RT_ENV: &str = "MPTLAB_EMU_AGENT_RT";

/// The agent priority the environment asks for: `None` with `off`.
pub fn from_env() -> io::Result<Option<i32>> {
    match std::env::var(AGENT_RT_ENV).as_deref() {
        Err(_) | Ok("") | Ok("on") => Ok(Some(AGENT_PRIORITY)),
        Ok("off") => Ok(None),
        Ok(v) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{AGENT_RT_ENV}={v:?}: expected \"on\" or \"off\""),
        )),
    }
}

/// The calling thread's scheduling policy and priority.
fn current() -> (i32, libc::sched_param) {
    let mut p = libc::sched_param { sched_priority: 0 };
    // SAFETY: pid 0 is the calling thread; `p` is a valid sched_param.
    let policy = unsafe {
        libc::sched_getparam(0, &mut p);
        libc::sched_getscheduler(0)
    };
    (policy, p)
}

/// While alive, the calling thread (and every thread it creates) runs
/// SCHED_FIFO at the given priority; dropping it restores the policy it had.
pub struct Raised {
    prev: Option<(i32, libc::sched_param)>,
    /// The priority set, if it could be set.
    pub priority: Option<i32>,
    /// Why it could not be set (e.g. no CAP_SYS_NICE), if asked for.
    pub error: Option<String>,
}

impl Raised {
    /// Raise the calling thread to SCHED_FIFO `prio` (`None`: leave it).
    pub fn raise(prio: Option<i32>) -> Raised {
        let Some(prio) = prio else {
            return Raised {
                prev: None,
                priority: None,
                error: None,
            };
        };
        let prev = current();
        match crate::emulator::set_realtime(prio) {
            Ok(()) => Raised {
                prev: Some(prev),
                priority: Some(prio),
                error: None,
            },
            Err(e) => Raised {
                prev: None,
                priority: None,
                error: Some(e.to_string()),
            },
        }
    }
}

impl Drop for Raised {
    fn drop(&mut self) {
        if let Some((policy, p)) = self.prev.take() {
            // SAFETY: restores the calling thread's own earlier policy.
            unsafe { libc::sched_setscheduler(0, policy, &p) };
        }
    }
}

/// In a forked child before exec: back to the normal policy (async-signal-safe).
pub fn reset_in_child() {
    let p = libc::sched_param { sched_priority: 0 };
    // SAFETY: one system call on the calling (child) process.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_OTHER, &p) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_leaves_the_thread_alone_and_a_raise_is_undone_on_drop() {
        let before = current();
        let r = Raised::raise(None);
        assert_eq!((r.priority, r.error.as_deref()), (None, None));
        drop(r);
        let r = Raised::raise(Some(AGENT_PRIORITY));
        match r.priority {
            // Root (CAP_SYS_NICE): the thread is SCHED_FIFO 5 until the drop.
            Some(p) => {
                assert_eq!(p, AGENT_PRIORITY);
                let (pol, sp) = current();
                assert_eq!((pol, sp.sched_priority), (libc::SCHED_FIFO, AGENT_PRIORITY));
                // A thread created now inherits it.
                let child = std::thread::spawn(|| {
                    let (pol, sp) = current();
                    (pol, sp.sched_priority)
                })
                .join()
                .unwrap();
                assert_eq!(child, (libc::SCHED_FIFO, AGENT_PRIORITY));
            }
            None => assert!(r.error.is_some(), "neither set nor an error"),
        }
        drop(r);
        let after = current();
        assert_eq!(
            (after.0, after.1.sched_priority),
            (before.0, before.1.sched_priority)
        );
    }
}
