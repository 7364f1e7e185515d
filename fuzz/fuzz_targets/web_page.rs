//! Web site descriptions. A page is described in the scenario itself
//! (`traffic.site` = a built-in site, or `traffic.objects_bytes` = object
//! sizes, plus `max_connections`); there is no separate file format. The
//! input is the rest of a `[traffic]` table of model "web"; a valid one is
//! turned into the page and browser the simulator builds
//! (`mptlab_sim::runner`, TrafficModel::Web).
#![no_main]
use libfuzzer_sys::fuzz_target;
use mptlab_core::traffic::browser::{Browser, BrowserConfig};
use mptlab_core::traffic::web::Page;
use mptlab_scenario::{Scenario, TrafficModel, WebPage};

const BASE: &str = "[scenario]\nname = \"w\"\nduration_s = 10\n\
[topology]\npreset = \"two-path\"\npaths = [\"wlan\", \"3g\"]\n\
[transport]\nprotocol = \"tcp\"\n\
[traffic]\nmodel = \"web\"\n";

fuzz_target!(|data: &[u8]| {
    let Ok(rest) = std::str::from_utf8(data) else {
        return;
    };
    let text = format!("{BASE}{rest}");
    let s = match Scenario::from_str(&text, "fuzz.toml") {
        Ok(s) => s,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    if let TrafficModel::Web {
        page,
        max_connections,
    } = &s.traffic.model
    {
        let page = match page {
            WebPage::Site(name) => Page::preset(name, s.run_seed(0)),
            WebPage::Objects(v) => Page::from_sizes("custom", v),
        };
        if let Ok(page) = page {
            let cfg = BrowserConfig {
                max_connections: *max_connections as usize,
                ..BrowserConfig::default()
            };
            if let Ok(mut b) = Browser::new(page, cfg) {
                let _ = b.start(0);
            }
        }
    }
});
