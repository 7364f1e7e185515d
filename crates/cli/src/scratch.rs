//! A test's scratch directory, removed when the test ends, passed or failed
//! (the guard drops while a failing test unwinds). Without it one day of
//! test runs left 207 `mptlab-*` directories in /tmp (session 27). Used by
//! the unit tests (`#[cfg(test)] mod scratch`) and, through tests/common,
//! by the integration tests.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::ops::Deref;
use std::path::{Path, PathBuf};

/// `$TMPDIR/mptlab-<name>-<pid>`, empty; removed with everything in it when
/// dropped. Derefs to its path (`dir.join(..)`, `&*dir` as a `&Path`).
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl Scratch {
    /// An empty directory (an older one of the same name is removed first).
    pub fn new(name: &str) -> Scratch {
        let s = Scratch::unmade(name);
        std::fs::create_dir_all(&s.0).unwrap();
        s
    }

    /// The same name, not created: for a test of the command that makes it.
    pub fn unmade(name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("mptlab-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        Scratch(d)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<OsStr> for Scratch {
    fn as_ref(&self) -> &OsStr {
        self.0.as_os_str()
    }
}
