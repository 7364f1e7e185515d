//! `--set key=value` overrides, applied to the parsed document before typing.

use std::fmt;
use std::str::FromStr;

/// One `key=value` override; `key` is a dotted path (`transport.cc`), `value`
/// is a TOML value (`1.5`, `true`, `[20, 30]`, `"x"`); anything that does
/// not parse as TOML is taken as a string (`transport.cc=newreno`).
#[derive(Clone, Debug, PartialEq)]
pub struct Override {
    pub key: String,
    pub value: String,
}

impl FromStr for Override {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (k, v) = s
            .split_once('=')
            .ok_or_else(|| format!("expected key=value, found `{s}`"))?;
        let key = k.trim();
        if key.is_empty() || key.split('.').any(|p| p.trim().is_empty()) {
            return Err(format!(
                "expected a dotted key like transport.cc, found `{key}`"
            ));
        }
        Ok(Override {
            key: key.to_string(),
            value: v.trim().to_string(),
        })
    }
}

impl fmt::Display for Override {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.key, self.value)
    }
}

fn parse_value(v: &str) -> toml::Value {
    toml::from_str::<toml::Table>(&format!("v = {v}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(v.to_string()))
}

/// Set `o.key` to `o.value` in `doc`, creating missing tables. Whether the key
/// exists in the scenario schema is checked when the document is typed
/// (unknown keys are errors there); here only paths through non-tables fail.
pub fn apply_override(doc: &mut toml::Table, o: &Override) -> Result<(), String> {
    let parts: Vec<&str> = o.key.split('.').map(str::trim).collect();
    let (last, inner) = parts.split_last().expect("key is non-empty");
    // `--set profile.wlan.delay_ms=5` tweaks the built-in profile when the
    // file has no [profile.wlan] table of its own.
    if parts.len() >= 3 && parts[0] == "profile" && crate::profiles::builtin(parts[1]).is_some() {
        let profiles = doc
            .entry("profile")
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if let toml::Value::Table(p) = profiles {
            p.entry(parts[1].to_string()).or_insert_with(|| {
                let mut t = toml::Table::new();
                t.insert("profile".into(), toml::Value::String(parts[1].to_string()));
                toml::Value::Table(t)
            });
        }
    }
    // a profile neither in the file nor built in: setting one of its keys
    // made a new profile no path uses, and the override did nothing, unsaid
    // (`--set profile.wlna.rate_mbit=5`, session 26). Naming its base
    // (`profile.NAME.profile=wlan`) still adds one on purpose.
    if parts.len() >= 3 && parts[0] == "profile" && *last != "profile" {
        let defined: Vec<String> = match doc.get("profile") {
            Some(toml::Value::Table(p)) => p.keys().cloned().collect(),
            _ => Vec::new(),
        };
        if !defined.iter().any(|d| d == parts[1]) {
            let mut names: Vec<&str> = defined.iter().map(String::as_str).collect();
            names.extend(crate::profiles::BUILTIN.iter().map(|b| b.name));
            return Err(format!(
                "cannot set `{}`: no profile `{}` in the file or built in (have: {}){}; to add one, name its base first: --set profile.{}.profile=wlan",
                o.key,
                parts[1],
                names.join(", "),
                crate::suggest::hint(parts[1], names.iter().copied()),
                parts[1]
            ));
        }
    }
    let mut t = doc;
    let mut walked = String::new();
    for p in inner {
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(p);
        let entry = t
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = match entry {
            toml::Value::Table(t) => t,
            other => {
                return Err(format!(
                    "cannot set `{}`: `{walked}` is {} {}, not a table",
                    o.key,
                    if other.type_str().starts_with(['a', 'i']) {
                        "an"
                    } else {
                        "a"
                    },
                    other.type_str()
                ))
            }
        };
    }
    t.insert(last.to_string(), parse_value(&o.value));
    Ok(())
}
