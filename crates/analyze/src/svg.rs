//! The figures mptcptrace and mptcpanalyzer draw, as SVG written here (no
//! plotting dependency): per subflow, the data sequence number over time
//! and the throughput over time, one colour per subflow.

use std::fmt::Write;

use crate::track::FlowRec;
use crate::FileAnalysis;

const W: f64 = 720.0;
const H: f64 = 420.0;
const L: f64 = 70.0;
const B: f64 = 50.0;
const COLORS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
];

/// A scatter/line plot of series (label, points) into an SVG document.
pub fn plot(
    title: &str,
    xlabel: &str,
    ylabel: &str,
    series: &[(String, Vec<(f64, f64)>)],
    lines: bool,
) -> String {
    let pts = series.iter().flat_map(|s| s.1.iter());
    let (mut x0, mut x1, mut y0, mut y1) =
        (f64::INFINITY, f64::NEG_INFINITY, 0.0f64, f64::NEG_INFINITY);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if !x0.is_finite() || !x1.is_finite() {
        (x0, x1, y1) = (0.0, 1.0, 1.0);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    if y1 <= y0 {
        y1 = y0 + 1.0;
    }
    let (pw, ph) = (W - L - 20.0, H - B - 40.0);
    let sx = |x: f64| L + (x - x0) / (x1 - x0) * pw;
    let sy = |y: f64| 40.0 + ph - (y - y0) / (y1 - y0) * ph;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="20" text-anchor="middle" font-size="14">{}</text>"#,
        W / 2.0,
        esc(title)
    );
    let _ = writeln!(
        s,
        r#"<path d="M{L},40 V{} H{}" fill="none" stroke="black"/>"#,
        40.0 + ph,
        L + pw
    );
    for k in 0..=4 {
        let fx = x0 + (x1 - x0) * k as f64 / 4.0;
        let fy = y0 + (y1 - y0) * k as f64 / 4.0;
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            sx(fx),
            40.0 + ph + 16.0,
            num(fx)
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            L - 4.0,
            sy(fy) + 4.0,
            num(fy)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        L + pw / 2.0,
        H - 10.0,
        esc(xlabel)
    );
    let _ = writeln!(
        s,
        r#"<text x="14" y="{}" text-anchor="middle" transform="rotate(-90 14 {})">{}</text>"#,
        40.0 + ph / 2.0,
        40.0 + ph / 2.0,
        esc(ylabel)
    );
    for (i, (name, p)) in series.iter().enumerate() {
        let c = COLORS[i % COLORS.len()];
        if lines {
            let mut d = String::new();
            for (k, &(x, y)) in p.iter().enumerate() {
                let _ = write!(
                    d,
                    "{}{:.1},{:.1} ",
                    if k == 0 { "M" } else { "L" },
                    sx(x),
                    sy(y)
                );
            }
            let _ = writeln!(
                s,
                r#"<path d="{d}" fill="none" stroke="{c}" stroke-width="1.5"/>"#
            );
        } else {
            for &(x, y) in p {
                let _ = writeln!(
                    s,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="1.2" fill="{c}"/>"#,
                    sx(x),
                    sy(y)
                );
            }
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" fill="{c}">{}</text>"#,
            L + 10.0,
            56.0 + 14.0 * i as f64,
            esc(name)
        );
    }
    s.push_str("</svg>\n");
    s
}

fn esc(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn num(v: f64) -> String {
    if v.abs() >= 1e6 {
        format!("{:.2e}", v)
    } else if v.abs() >= 100.0 || v == v.trunc() {
        format!("{:.0}", v)
    } else {
        format!("{:.2}", v)
    }
}

/// The two figures of one flow: (sequence over time, throughput over time).
pub fn flow_figures(
    fa: &FileAnalysis,
    fi: usize,
    f: &FlowRec,
    interval_ms: f64,
) -> (String, String) {
    let ms = |t: i128| (t - fa.t0_ns) as f64 / 1e6;
    let mut seq = Vec::new();
    let mut tput = Vec::new();
    for (pi, p) in f.paths.iter().enumerate() {
        // the direction that carried more data
        let d = if p.dir[0].bytes >= p.dir[1].bytes {
            0
        } else {
            1
        };
        let name = format!("subflow {} {} -> {}", pi + 1, p.client_addr, p.server_addr);
        seq.push((
            name.clone(),
            p.dir[d]
                .seq
                .iter()
                .map(|&(t, s)| (ms(t), s as f64))
                .collect(),
        ));
        let iv = (interval_ms * 1e6).max(1.0) as i128;
        let mut bins = std::collections::BTreeMap::<i128, u64>::new();
        for &(t, b) in &p.dir[d].sends {
            *bins.entry((t - fa.t0_ns).div_euclid(iv)).or_default() += b;
        }
        tput.push((
            name,
            bins.into_iter()
                .map(|(k, b)| {
                    (
                        ((k + 1) * iv) as f64 / 1e6,
                        b as f64 * 8.0 / (iv as f64 / 1e9) / 1e6,
                    )
                })
                .collect(),
        ));
    }
    let title = format!("{} flow {fi} ({})", fa.file, f.protocol);
    (
        plot(
            &format!("{title}: data sequence"),
            "time (ms)",
            "data sequence number (bytes)",
            &seq,
            false,
        ),
        plot(
            &format!("{title}: throughput"),
            "time (ms)",
            "throughput (Mbit/s)",
            &tput,
            true,
        ),
    )
}
