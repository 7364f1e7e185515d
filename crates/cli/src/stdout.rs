//! Standard output that never panics: `println!` panics (exit 101) when the
//! reader went away (`mptlab list | head -1`) or the device is full
//! (`> /dev/full`). A closed pipe ends the process quietly with success, as
//! the reader asked for no more; any other write error is reported and
//! exits 1.

use std::io::Write;

/// Write formatted text to stdout (use the [`out!`] / [`outln!`] macros).
pub fn write(args: std::fmt::Arguments) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args) {
        fail(e);
    }
}

/// Flush stdout before exiting (a block-buffered stdout, e.g. a file, shows
/// its write errors only here).
pub fn flush() {
    if let Err(e) = std::io::stdout().lock().flush() {
        fail(e);
    }
}

fn fail(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    // stderr may be gone too: nothing more to do then
    let _ = writeln!(
        std::io::stderr(),
        "error: cannot write to standard output: {e}"
    );
    std::process::exit(1);
}

/// `print!` without the panic.
macro_rules! out {
    ($($arg:tt)*) => { $crate::stdout::write(format_args!($($arg)*)) };
}

/// `println!` without the panic.
macro_rules! outln {
    () => { $crate::stdout::write(format_args!("\n")) };
    ($($arg:tt)*) => {{
        $crate::stdout::write(format_args!($($arg)*));
        $crate::stdout::write(format_args!("\n"));
    }};
}
