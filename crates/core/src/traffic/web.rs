//! Web pages: a page is a list of object sizes, the first being the HTML
//! document. Presets reproduce seed 000 Table 2 (count and total exactly);
//! the individual sizes, which the paper does not give, are drawn from a
//! heavy-tailed log-normal and then rescaled so count and total match.
//!
//! Size distribution: log-normal with sigma = 1.318, the body of the file-size
//! model of SURGE (Barford & Crovella, SIGMETRICS 1998). Only sigma matters,
//! since the draw is rescaled to the preset's total (mu cancels). The
//! rescaling gives every object 1 byte and splits the rest proportionally to
//! the draws with the largest-remainder method, so the sum is exact and the
//! page is a pure function of (preset, seed).

use super::invalid;
use crate::rng::SimRng;

/// Shape of the object-size log-normal (SURGE body, Barford & Crovella 1998).
pub const OBJECT_SIZE_SIGMA: f64 = 1.318;

/// A web page: object sizes in bytes, `objects[0]` is the HTML document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    pub name: String,
    pub objects: Vec<u32>,
}

/// A Table 2 site class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WebPreset {
    pub name: &'static str,
    pub site: &'static str,
    pub objects: usize,
    /// Total bytes (the table's KiB times 1024).
    pub total_bytes: u64,
}

/// Seed 000 Table 2: small / medium / large sites.
pub fn presets() -> &'static [WebPreset] {
    &[
        WebPreset {
            name: "wikipedia",
            site: "www.wikipedia.org",
            objects: 15,
            total_bytes: 72 * 1024,
        },
        WebPreset {
            name: "amazon",
            site: "www.amazon.com",
            objects: 54,
            total_bytes: 1024 * 1024,
        },
        WebPreset {
            name: "huffpost",
            site: "www.huffingtonpost.com",
            objects: 138,
            total_bytes: 3994 * 1024,
        },
    ]
}

impl Page {
    /// An explicit page; sizes in bytes, first = HTML.
    pub fn from_sizes(name: &str, objects: &[u64]) -> Result<Page, String> {
        if objects.is_empty() {
            return Err(invalid("web", format!("page {name:?} has no objects")));
        }
        let mut out = Vec::with_capacity(objects.len());
        for (i, &b) in objects.iter().enumerate() {
            if b == 0 || b > u32::MAX as u64 {
                return Err(invalid(
                    "web",
                    format!("page {name:?} object {i}: size {b} not in 1..=u32::MAX"),
                ));
            }
            out.push(b as u32);
        }
        Ok(Page {
            name: name.to_string(),
            objects: out,
        })
    }

    /// A Table 2 preset; sizes fixed by (preset, seed).
    pub fn preset(name: &str, seed: u64) -> Result<Page, String> {
        let p = presets()
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| invalid("web", format!("unknown preset {name:?}")))?;
        Self::synthetic(p.name, p.objects, p.total_bytes, seed)
    }

    /// `count` log-normal object sizes rescaled to exactly `total_bytes`.
    pub fn synthetic(
        name: &str,
        count: usize,
        total_bytes: u64,
        seed: u64,
    ) -> Result<Page, String> {
        if count == 0 {
            return Err(invalid("web", "a page needs at least one object"));
        }
        if total_bytes < count as u64 {
            return Err(invalid(
                "web",
                "total_bytes must be at least one byte per object",
            ));
        }
        if total_bytes / count as u64 >= u32::MAX as u64 / 2 {
            return Err(invalid("web", "objects too large"));
        }
        let mut rng = SimRng::stream(seed, &format!("web.page.{name}"));
        let w: Vec<f64> = (0..count)
            .map(|_| rng.lognormal(0.0, OBJECT_SIZE_SIGMA))
            .collect();
        let sizes = apportion(total_bytes - count as u64, &w);
        let objects: Vec<u64> = sizes.iter().map(|s| s + 1).collect();
        Self::from_sizes(name, &objects)
    }

    pub fn total_bytes(&self) -> u64 {
        self.objects.iter().map(|&b| b as u64).sum()
    }
}

/// Split `total` into integers proportional to `w` that sum to `total`
/// exactly: floors first, then one extra unit to the largest remainders
/// (ties to the lower index, so the result is deterministic).
fn apportion(total: u64, w: &[f64]) -> Vec<u64> {
    let sum: f64 = w.iter().sum();
    let exact: Vec<f64> = w.iter().map(|x| total as f64 * x / sum).collect();
    let mut out: Vec<u64> = exact.iter().map(|x| x.floor() as u64).collect();
    let assigned: u64 = out.iter().sum();
    // float rounding can push floors a unit over; take it back from the largest
    let mut left = total as i64 - assigned as i64;
    let mut order: Vec<usize> = (0..w.len()).collect();
    order.sort_by(|&a, &b| {
        let (fa, fb) = (exact[a] - exact[a].floor(), exact[b] - exact[b].floor());
        fb.total_cmp(&fa).then(a.cmp(&b))
    });
    let mut k = 0;
    while left > 0 {
        out[order[k % order.len()]] += 1;
        left -= 1;
        k += 1;
    }
    while left < 0 {
        let i = (0..out.len())
            .max_by_key(|&i| (out[i], std::cmp::Reverse(i)))
            .unwrap();
        out[i] -= 1;
        left += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_match_table_2_exactly() {
        for p in presets() {
            for seed in 0..20 {
                let page = Page::preset(p.name, seed).unwrap();
                assert_eq!(page.objects.len(), p.objects);
                assert_eq!(page.total_bytes(), p.total_bytes);
                assert!(page.objects.iter().all(|&b| b >= 1));
            }
        }
    }

    #[test]
    fn fixed_per_preset_and_seed() {
        assert_eq!(
            Page::preset("amazon", 4).unwrap(),
            Page::preset("amazon", 4).unwrap()
        );
        assert_ne!(
            Page::preset("amazon", 4).unwrap(),
            Page::preset("amazon", 5).unwrap()
        );
    }

    #[test]
    fn sizes_are_heavy_tailed() {
        // the largest object dwarfs the median, as in real pages
        let mut s = Page::preset("huffpost", 1).unwrap().objects;
        s.sort();
        assert!(s[s.len() - 1] > 5 * s[s.len() / 2], "{s:?}");
    }

    #[test]
    fn explicit_pages_and_errors() {
        let p = Page::from_sizes("x", &[1000, 20]).unwrap();
        assert_eq!(p.objects, vec![1000, 20]);
        assert!(Page::from_sizes("x", &[]).is_err());
        assert!(Page::from_sizes("x", &[1, 0])
            .unwrap_err()
            .contains("object 1"));
        assert!(Page::preset("nope", 0).is_err());
        assert!(Page::synthetic("x", 10, 5, 0).is_err());
    }

    #[test]
    fn apportion_is_exact() {
        assert_eq!(apportion(10, &[1.0, 1.0, 1.0]), vec![4, 3, 3]);
        assert_eq!(apportion(0, &[2.0, 1.0]), vec![0, 0]);
    }
}
