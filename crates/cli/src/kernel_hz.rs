//! CONFIG_HZ of the kernel a comparison runs against, so the simulator side
//! of `mptlab validate` and `mptlab reproduce --kernel` models the same
//! jiffy (`transport.hz`, docs/scenario.md). The kernel's HZ is fixed when
//! it is built; it is read from its build configuration, never guessed:
//! `/boot/config-$(uname -r)` (distributions) or `/proc/config.gz`
//! (CONFIG_IKCONFIG_PROC, read through `gzip -dc`). `getconf CLK_TCK` is
//! USER_HZ (always 100 to user space), not CONFIG_HZ, so it is not used.

use mptlab_scenario::HZ_CHOICES;
use std::process::Command;

/// `--hz N`: one of the Kconfig choices.
pub fn parse(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(v) if HZ_CHOICES.contains(&v) => Ok(v),
        _ => Err(format!(
            "expected one of 100, 250, 300, 1000 (Linux CONFIG_HZ), found {s:?}"
        )),
    }
}

/// `CONFIG_HZ=` in a kernel configuration text.
pub fn from_config(text: &str) -> Option<u32> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("CONFIG_HZ="))
        .and_then(|v| v.trim().parse().ok())
        .filter(|v| HZ_CHOICES.contains(v))
}

/// The running kernel's CONFIG_HZ and where it was read, or why not.
pub fn host() -> Result<(u32, String), String> {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let boot = format!("/boot/config-{release}");
    if let Some(hz) = std::fs::read_to_string(&boot)
        .ok()
        .and_then(|t| from_config(&t))
    {
        return Ok((hz, boot));
    }
    let gz = "/proc/config.gz";
    if std::path::Path::new(gz).exists() {
        if let Ok(out) = Command::new("gzip").args(["-dc", gz]).output() {
            if let Some(hz) = from_config(&String::from_utf8_lossy(&out.stdout)) {
                return Ok((hz, gz.into()));
            }
        }
    }
    Err(format!(
        "CONFIG_HZ of kernel {release:?} unknown (no CONFIG_HZ= in {boot} or {gz})"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_hz_is_read_from_a_kernel_config() {
        let cfg =
            "# CONFIG_HZ_100 is not set\nCONFIG_HZ_250=y\nCONFIG_HZ=250\nCONFIG_SCHED_HRTICK=y\n";
        assert_eq!(from_config(cfg), Some(250));
        assert_eq!(
            from_config("CONFIG_HZ_1000=y\nCONFIG_HZ=1000\n"),
            Some(1000)
        );
        assert_eq!(from_config("CONFIG_HZ_PERIODIC=y\n"), None);
        assert_eq!(from_config("CONFIG_HZ=1024\n"), None);
    }

    #[test]
    fn hz_flag_takes_the_kconfig_choices_only() {
        assert_eq!(parse("250"), Ok(250));
        assert!(parse("200").unwrap_err().contains("100, 250, 300, 1000"));
        assert!(parse("x").is_err());
    }
}
