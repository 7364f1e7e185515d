//! A `[profile.X]` that no link reaches changes nothing: `[profile.wlann]`
//! (a typo) beside `topology.paths = ["wlan", "3g"]` left the built-in
//! `wlan` in use without a word (session 27). Such a table is refused,
//! naming it and the closest profile the links do use. A sweep checks the
//! union over its points (a profile one point's `topology.paths` names is
//! used), so only a table no path, sweep point or `--set` reaches is
//! refused.

use std::collections::BTreeSet;

/// The names of `defined` (the file's `[profile.*]` tables, after
/// overrides) outside `used` (every profile name a link reaches, see
/// `validate::link::Resolver::used`), in name order.
pub fn unused<'a>(
    defined: impl IntoIterator<Item = &'a String>,
    used: &BTreeSet<String>,
) -> Vec<String> {
    defined
        .into_iter()
        .filter(|n| !used.contains(*n))
        .cloned()
        .collect()
}

/// The message for `unused` (not empty), the key to blame being
/// `profile.<unused[0]>`. `scope` is "link" or "link of any sweep point".
pub fn message(unused: &[String], used: &BTreeSet<String>, scope: &str) -> String {
    let first = &unused[0];
    let others = if unused.len() > 1 {
        format!(" (nor `{}`)", unused[1..].join("`, `"))
    } else {
        String::new()
    };
    let names: Vec<&str> = used.iter().map(String::as_str).collect();
    format!(
        "profile `{first}` is defined but no {scope} uses it{others} (the links use {}): a profile \
         must be named in topology.paths (or a link's `profile`); name it there or remove the table{}",
        if names.is_empty() {
            "none".to_string()
        } else {
            format!("`{}`", names.join("`, `"))
        },
        crate::suggest::hint(first, names.iter().copied())
    )
}
