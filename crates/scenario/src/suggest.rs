//! "did you mean" for misspelt names and keys.

/// Edit distance with adjacent transpositions (optimal string alignment),
/// over chars: "lai" is one edit from "lia".
fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, v) in d[0].iter_mut().enumerate() {
        *v = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

/// The candidate closest to `found`, if it is close enough to be a typo
/// (at most a third of its length edited, case ignored).
pub fn closest<'a>(found: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let f = found.to_lowercase();
    candidates
        .into_iter()
        .map(|c| (distance(&f, &c.to_lowercase()), c))
        .filter(|&(d, c)| d > 0 && d <= (c.chars().count().max(3) / 3).max(1))
        // ties: a shared first letter wins ("mtcp" is mptcp, not tcp)
        .min_by_key(|&(d, c)| (d, c.chars().next() != f.chars().next()))
        .map(|(_, c)| c)
}

/// `"; did you mean `X`?"` or nothing.
pub fn hint<'a>(found: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(found, candidates)
        .map(|c| format!("; did you mean `{c}`?"))
        .unwrap_or_default()
}

/// Add a hint to serde's "unknown variant `x`, expected one of `a`, `b`" and
/// "unknown key `x`, expected one of ..." messages.
pub fn serde_hint(msg: &str) -> String {
    let Some(rest) = msg
        .strip_prefix("unknown variant `")
        .or_else(|| msg.strip_prefix("unknown key `"))
    else {
        return msg.to_string();
    };
    let Some((found, tail)) = rest.split_once('`') else {
        return msg.to_string();
    };
    let cands: Vec<&str> = tail.split('`').skip(1).step_by(2).collect();
    format!("{msg}{}", hint(found, cands))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_near_names_only() {
        assert_eq!(closest("lai", ["lia", "olia", "cubic"]), Some("lia"));
        assert_eq!(closest("cubik", ["lia", "cubic"]), Some("cubic"));
        assert_eq!(closest("xyz", ["lia", "cubic"]), None);
        assert_eq!(closest("mtcp", ["tcp", "udp", "mptcp"]), Some("mptcp"));
        assert_eq!(
            serde_hint("unknown variant `tpc`, expected one of `tcp`, `udp`"),
            "unknown variant `tpc`, expected one of `tcp`, `udp`; did you mean `tcp`?"
        );
    }
}
