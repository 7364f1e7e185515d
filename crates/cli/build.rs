//! Link-time layout of the `mptlab` binary: LLD places the functions of the
//! simulator's per-packet path first in `.text`, in the order listed in
//! `hot-symbols.txt` (made by
//! `scripts/hot-symbols.sh`; see [`linker_script`]), chosen so that their
//! hot cache lines spread evenly over the sets of a 32 KiB L1 instruction
//! cache (docs/performance.md, "Engine pass 4"). Only the layout changes, not
//! the code, so results are the same with and without it.
//!
//! Passed only where the linker is known to be LLD: x86_64 Linux with Rust
//! 1.90 or later (rust-lld is that target's default linker) and no linker
//! chosen in RUSTFLAGS or `CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER`.
//! `MPTLAB_SYMBOL_ORDER=0` turns it off (a linker set in a Cargo config
//! file is not visible here). Names in the file that the binary lacks
//! (another toolchain's symbol hashes) match no section and are ignored.

use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=hot-symbols.txt");
    println!("cargo:rerun-if-env-changed=MPTLAB_SYMBOL_ORDER");
    println!("cargo:rerun-if-env-changed=CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER");
    if env::var("MPTLAB_SYMBOL_ORDER").as_deref() == Ok("0")
        || env::var("TARGET").as_deref() != Ok("x86_64-unknown-linux-gnu")
        || env::var_os("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER").is_some()
        || env::var("CARGO_ENCODED_RUSTFLAGS")
            .unwrap_or_default()
            .split('\x1f')
            .any(|f| f.contains("linker") || f.contains("fuse-ld"))
        || !rustc_has_lld_default()
    {
        return;
    }
    let dir = env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let file = Path::new(&dir).join("hot-symbols.txt");
    if !file.exists() {
        return;
    }
    let names = std::fs::read_to_string(&file).expect("hot-symbols.txt is readable");
    let out = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("hot-order.ld");
    std::fs::write(&out, linker_script(&names)).expect("OUT_DIR is writable");
    println!("cargo:rustc-link-arg-bin=mptlab=-Wl,-T,{}", out.display());
}

/// A linker script that describes `.text` itself: the sections of the
/// listed functions first, in order, then every other `.text` input
/// section as LLD would place them; `INSERT BEFORE .init` keeps LLD's
/// default layout for everything else (`.text` comes before `.init` in it).
/// One `.text` output section, not a separate one for the hot code, because
/// tools read code addresses against `.text` (valgrind drops the symbols
/// outside it, and its profiles then lose their addresses' debug info).
///
/// Why sections and patterns rather than `--symbol-ordering-file`: ThinLTO
/// renames a local function it exposes to another codegen unit to
/// `NAME.llvm.N`, where N hashes the unit's bitcode, which holds the build
/// directory (debug info), so the same source built in two directories has
/// different names and an exact-name order misses them (docs/performance.md,
/// "A build-path-independent order"). `-ffunction-sections` (rustc's
/// default) gives each function the section `.text.NAME[.llvm.N]`, which a
/// pattern matches whatever N is. A pattern that matches nothing is ignored,
/// as an unknown name was.
fn linker_script(names: &str) -> String {
    let mut s = String::from("SECTIONS\n{\n  .text :\n  {\n");
    for name in names.lines().map(str::trim).filter(|n| !n.is_empty()) {
        let base = name.split(".llvm.").next().unwrap_or(name);
        s.push_str(&format!("    *(.text.{base} .text.{base}.llvm.*)\n"));
    }
    s.push_str("    *(.text .text.*)\n  }\n}\nINSERT BEFORE .init;\n");
    s
}

/// Rust 1.90 made rust-lld the default linker of x86_64-unknown-linux-gnu.
fn rustc_has_lld_default() -> bool {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let Ok(out) = Command::new(rustc).arg("--version").output() else {
        return false;
    };
    // "rustc 1.95.0 (59807616e 2026-04-14)"
    let v = String::from_utf8_lossy(&out.stdout);
    let mut parts = v
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .split('.')
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (1, 90)
}
