//! `sweep.json` read back on resume: any bytes are compared with this
//! sweep's record without a panic (a difference refuses the resume).
#![no_main]
use libfuzzer_sys::fuzz_target;
use mptlab_scenario::Sweep;
use mptlab_sweep::store::{manifest, manifest_difference, InputHashes};
use std::sync::LazyLock;

static WANT: LazyLock<serde_json::Value> = LazyLock::new(|| {
    let text = "[scenario]\nname = \"m\"\nduration_s = 5\nruns = 2\n\
        [topology]\npreset = \"two-path\"\npaths = [\"wlan\", \"3g\"]\n\
        [transport]\nprotocol = \"tcp\"\n[traffic]\nmodel = \"bulk\"\n\
        [sweep]\n\"transport.path\" = [1, 2]\n";
    let sw = Sweep::from_str(text, "m.toml", &[], None).expect("valid sweep");
    manifest(&sw, &InputHashes::default())
});

fuzz_target!(|data: &[u8]| {
    let _ = manifest_difference(data, &WANT);
});
