//! Clean shutdown on SIGINT/SIGTERM without async signal handlers: the
//! signals are blocked in the calling thread (and so in every thread it
//! spawns afterwards) and one thread waits for them with `sigwait`, then sets
//! a flag. Normal code paths (dropping the emulator and the topology) then do
//! the cleanup, exactly as after a successful run.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Block SIGINT, SIGTERM and SIGHUP and return a flag set when one arrives.
/// Call before spawning any other thread.
pub fn stop_on_signals() -> io::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    // SAFETY: sigset manipulation on a local, zero-initialised set.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGHUP);
        let r = libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        if r != 0 {
            return Err(io::Error::from_raw_os_error(r));
        }
        set
    };
    let f = flag.clone();
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || loop {
            let mut sig = 0;
            // SAFETY: `set` is a valid signal set; sig is a valid out pointer.
            if unsafe { libc::sigwait(&set, &mut sig) } == 0 {
                eprintln!("mptlab-emu: signal {sig}, stopping and cleaning up");
                f.store(true, Ordering::SeqCst);
            }
        })?;
    Ok(flag)
}
