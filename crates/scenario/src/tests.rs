use super::*;

const BASE: &str = r#"[scenario]
name = "t"
duration_s = 10.0

[topology]
preset = "two-path"
paths = ["wlan", "3g"]

[profile.mine]
rate_mbit = [5, 10]
delay_ms = 20

[traffic]
model = "video"

# a profile no link uses is refused (session 27): the server link uses it
[topology.server_link]
profile = "mine"
"#;

fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    Scenario::from_str(text, "test.toml")
}

/// Replace `from` in BASE by `to` (must occur), parse, return the error text.
fn err_of(from: &str, to: &str) -> ScenarioError {
    assert!(BASE.contains(from), "{from}");
    let text = BASE.replacen(from, to, 1);
    match parse(&text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => {
            eprintln!("{e}");
            e
        }
    }
}

fn assert_err(e: &ScenarioError, key: &str, line: usize, msg: &[&str]) {
    let s = e.to_string();
    assert_eq!(e.key.as_deref(), Some(key), "{s}");
    assert_eq!(e.line, Some(line), "{s}");
    assert!(s.starts_with(&format!("test.toml:{line}:")), "{s}");
    for m in msg {
        assert!(s.contains(m), "`{m}` not in: {s}");
    }
}

#[test]
fn base_parses_and_resolves() {
    let s = parse(BASE).unwrap();
    assert_eq!(s.meta.runs, 1);
    assert_eq!(s.transport, Transport::default());
    let Topology::Preset {
        paths, server_link, ..
    } = &s.topology
    else {
        panic!()
    };
    assert_eq!(
        paths[0].link.down.rate_mbit,
        Some(Range::Uniform { lo: 20.0, hi: 30.0 })
    );
    assert_eq!(
        paths[0].link.up.loss,
        LossModel::Bernoulli {
            percent: Range::Uniform { lo: 1.0, hi: 2.0 }
        }
    );
    assert_eq!(paths[1].link.up.queue, QueueLimit::Packets(3750));
    assert_eq!(
        server_link.down.rate_mbit,
        Some(Range::Uniform { lo: 5.0, hi: 10.0 })
    );
    assert_eq!(
        s.traffic.model,
        TrafficModel::Video {
            bitrate_kbit: 950.0,
            fps: 30.0
        }
    );
    assert_ne!(s.run_seed(0), s.run_seed(1));
}

#[test]
fn example_scenarios_parse() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            Scenario::from_file(&p).unwrap_or_else(|e| panic!("{e}"));
            n += 1;
        }
    }
    assert!(n >= 4);
}

#[test]
fn per_direction_override_and_profile_chain() {
    let s = Scenario::from_file(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/file-1mb.toml"
    ))
    .unwrap();
    let Topology::Preset { paths, .. } = &s.topology else {
        panic!()
    };
    let l = &paths[0].link;
    assert_eq!(l.up.rate_mbit, Some(Range::Uniform { lo: 5.0, hi: 10.0 }));
    assert_eq!(
        l.down.rate_mbit,
        Some(Range::Uniform { lo: 20.0, hi: 30.0 })
    );
    assert_eq!(l.down.delay_ms, Range::Uniform { lo: 20.0, hi: 25.0 });
    assert!(matches!(l.down.loss, LossModel::GilbertElliott { .. }));
    assert_eq!(
        s.traffic.model,
        TrafficModel::File {
            size_bytes: 1_000_000
        }
    );
}

#[test]
fn syntax_error() {
    let e = err_of("duration_s = 10.0", "duration_s = = 10");
    assert_eq!(e.kind, ErrorKind::Syntax);
    assert_eq!(e.line, Some(3));
}

#[test]
fn unknown_key() {
    let e = err_of("delay_ms = 20", "delay_ms = 20\njitter_ms = 3");
    assert_eq!(e.kind, ErrorKind::Schema);
    assert_err(
        &e,
        "profile.mine.jitter_ms",
        12,
        &["unknown key `jitter_ms`", "delay_ms"],
    );
}

#[test]
fn unknown_top_level_table() {
    let e = err_of("[traffic]", "[trafic]\nx = 1\n[traffic]");
    assert_err(&e, "trafic", 13, &["unknown key `trafic`"]);
}

#[test]
fn wrong_type() {
    let e = err_of("duration_s = 10.0", "duration_s = \"ten\"");
    assert_err(
        &e,
        "scenario.duration_s",
        3,
        &["invalid type", "string", "f64"],
    );
}

#[test]
fn wrong_range_shape() {
    let e = err_of("rate_mbit = [5, 10]", "rate_mbit = [5, 10, 15]");
    assert_err(&e, "profile.mine.rate_mbit", 10, &["[lo, hi]", "3 element"]);
}

#[test]
fn negative_delay() {
    let e = err_of("delay_ms = 20", "delay_ms = -5");
    assert_eq!(e.kind, ErrorKind::Invalid);
    assert_err(
        &e,
        "profile.mine.delay_ms",
        11,
        &["expected a delay in ms >= 0", "found -5"],
    );
}

#[test]
fn loss_over_100() {
    let e = err_of(
        "delay_ms = 20",
        "delay_ms = 20\nloss = { model = \"bernoulli\", percent = 150 }",
    );
    assert_err(
        &e,
        "profile.mine.loss.percent",
        12,
        &["loss percentage", "<= 100", "found 150"],
    );
}

#[test]
fn loss_wrong_keys() {
    let e = err_of(
        "delay_ms = 20",
        "delay_ms = 20\nloss = { model = \"bernoulli\", p_gb = 0.1 }",
    );
    assert_err(
        &e,
        "profile.mine.loss",
        12,
        &["`p_gb` does not apply", "bernoulli"],
    );
    let e = err_of(
        "delay_ms = 20",
        "delay_ms = 20\nloss = { model = \"markov\" }",
    );
    assert_err(
        &e,
        "profile.mine.loss.model",
        12,
        &["unknown variant `markov`", "gilbert-elliott"],
    );
}

#[test]
fn zero_rate() {
    let e = err_of("rate_mbit = [5, 10]", "rate_mbit = 0");
    assert_err(
        &e,
        "profile.mine.rate_mbit",
        10,
        &["expected a rate in Mbit/s >= 0.001", "found 0"],
    );
}

#[test]
fn lo_greater_than_hi() {
    let e = err_of("rate_mbit = [5, 10]", "rate_mbit = [10, 5]");
    assert_err(
        &e,
        "profile.mine.rate_mbit",
        10,
        &["lo <= hi", "found [10, 5]"],
    );
}

#[test]
fn unknown_profile() {
    let e = err_of("paths = [\"wlan\", \"3g\"]", "paths = [\"wlan\", \"4g\"]");
    assert_err(
        &e,
        "topology.paths[1]",
        7,
        &["link profile name", "wlan", "mine", "found \"4g\""],
    );
}

#[test]
fn unknown_names() {
    let e = err_of("model = \"video\"", "model = \"vidoe\"");
    assert_err(
        &e,
        "traffic.model",
        14,
        &["unknown variant `vidoe`", "video", "bulk"],
    );
    let e = err_of("[traffic]", "[transport]\ncc = \"reno\"\n[traffic]");
    assert_err(
        &e,
        "transport.cc",
        14,
        &["unknown variant `reno`", "newreno"],
    );
    let e = err_of("[traffic]", "[transport]\nprotocol = \"quic\"\n[traffic]");
    assert_err(
        &e,
        "transport.protocol",
        14,
        &["unknown variant `quic`", "cmt-sctp"],
    );
}

#[test]
fn cubic_and_hystart_keys() {
    let s = parse(&BASE.replacen(
        "[traffic]",
        "[transport]\ncubic = \"rfc9438\"\nhystart = \"hystart++\"\n[traffic]",
        1,
    ))
    .unwrap();
    assert_eq!(s.transport.cubic, CubicVariant::Rfc9438);
    assert_eq!(s.transport.hystart, HyStart::HyStartPP);
    let s =
        parse(&BASE.replacen("[traffic]", "[transport]\nhystart = \"off\"\n[traffic]", 1)).unwrap();
    assert_eq!(
        (s.transport.cubic, s.transport.hystart),
        (CubicVariant::Linux, HyStart::Off)
    );
    let e = err_of("[traffic]", "[transport]\ncubic = \"bic\"\n[traffic]");
    assert_err(
        &e,
        "transport.cubic",
        14,
        &["unknown variant `bic`", "linux", "rfc9438"],
    );
    let e = err_of("[traffic]", "[transport]\nhystart = \"hystart\"\n[traffic]");
    assert_err(
        &e,
        "transport.hystart",
        14,
        &["unknown variant `hystart`", "linux", "hystart++", "off"],
    );
    // the former boolean form is refused with the accepted names
    let e = err_of("[traffic]", "[transport]\nhystart = true\n[traffic]");
    assert_err(
        &e,
        "transport.hystart",
        14,
        &["found boolean `true`", "\"hystart++\"", "\"off\""],
    );
}

#[test]
fn missing_required_key() {
    let e = err_of("name = \"t\"\n", "");
    assert_eq!(e.kind, ErrorKind::Schema);
    assert!(e.to_string().contains("missing key `name`"), "{e}");
    assert_eq!(e.key.as_deref(), Some("scenario"));
    assert_eq!(e.line, Some(1));
}

#[test]
fn model_key_mismatch() {
    let e = err_of(
        "model = \"video\"",
        "model = \"web\"\nsite = \"amazon\"\nfps = 30",
    );
    assert_err(
        &e,
        "traffic.fps",
        16,
        &["`fps` does not apply to model \"web\"", "site"],
    );
}

#[test]
fn coupled_cc_needs_multipath() {
    let e = err_of("[traffic]", "[transport]\ncc = \"lia\"\n[traffic]");
    assert_err(
        &e,
        "transport.cc",
        14,
        &["needs protocol \"mptcp\"", "found protocol \"tcp\""],
    );
}

#[test]
fn file_not_found() {
    let e = Scenario::from_file("/nonexistent/x.toml").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Io);
    assert_eq!(
        e.to_string(),
        "/nonexistent/x.toml: cannot read scenario: file not found"
    );
}

/// Session 26: `--set profile.wlna.rate_mbit=5` (a typo) made a new,
/// unused profile and changed nothing, without a word.
#[test]
fn an_override_of_an_unknown_profile_is_refused() {
    let o = |s: &str| s.parse::<Override>().unwrap();
    let e = Scenario::from_str_with_overrides(BASE, "test.toml", &[o("profile.wlna.rate_mbit=5")])
        .unwrap_err();
    let msg = e.to_string();
    assert_eq!(e.key.as_deref(), Some("profile.wlna.rate_mbit"), "{msg}");
    assert!(
        msg.contains("no profile `wlna` in the file or built in")
            && msg.contains("did you mean `wlan`?"),
        "{msg}"
    );
    // the file's own and the built-in profiles still take overrides, and a
    // new one is added by naming its base
    let s = Scenario::from_str_with_overrides(
        BASE,
        "test.toml",
        &[
            o("profile.mine.delay_ms=5"),
            o("profile.3g.delay_ms=50"),
            o("profile.new.profile=lte"),
            o("profile.new.delay_ms=7"),
            // used by a path (session 27: a profile no link uses is refused)
            o("topology.paths=[\"new\", \"3g\"]"),
        ],
    )
    .unwrap();
    assert_eq!(s.file.profile["new"].delay_ms, Some(Range::Fixed(7.0)));
    // and the message says "an integer"
    let e = Scenario::from_str_with_overrides(BASE, "test.toml", &[o("scenario.duration_s.x=1")])
        .unwrap_err();
    assert!(e.to_string().contains("is a float, not a table"), "{e}");
    let e = Scenario::from_str_with_overrides(BASE, "test.toml", &[o("topology.paths.x=1")])
        .unwrap_err();
    assert!(e.to_string().contains("is an array, not a table"), "{e}");
}

#[test]
fn overrides_apply_and_report() {
    let o = |s: &str| s.parse::<Override>().unwrap();
    let s = Scenario::from_str_with_overrides(
        BASE,
        "test.toml",
        &[
            o("transport.cc=newreno"),
            o("profile.mine.delay_ms=[1, 2]"),
            o("scenario.runs=4"),
        ],
    )
    .unwrap();
    assert_eq!(s.transport.cc, CongestionControl::NewReno);
    assert_eq!(s.meta.runs, 4);
    assert_eq!(
        s.file.profile["mine"].delay_ms,
        Some(Range::Uniform { lo: 1.0, hi: 2.0 })
    );
    assert!(s.effective_toml.contains("newreno"));

    let e = Scenario::from_str_with_overrides(BASE, "test.toml", &[o("transport.ccc=newreno")])
        .unwrap_err();
    let msg = e.to_string();
    assert_eq!(e.key.as_deref(), Some("transport.ccc"), "{msg}");
    assert!(
        msg.contains("unknown key `ccc`") && msg.contains("(from --set transport.ccc=newreno)"),
        "{msg}"
    );

    // value from an override that fails validation, key present in the file
    let e = Scenario::from_str_with_overrides(BASE, "test.toml", &[o("profile.mine.delay_ms=-1")])
        .unwrap_err();
    assert_eq!(e.line, Some(11), "{e}");
    assert!(
        e.to_string()
            .contains("from --set profile.mine.delay_ms=-1"),
        "{e}"
    );

    let e = Scenario::from_str_with_overrides(BASE, "test.toml", &[o("scenario.name.x=1")])
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Override);
    assert!(
        e.to_string()
            .contains("`scenario.name` is a string, not a table"),
        "{e}"
    );

    assert!("novalue".parse::<Override>().is_err());
    assert!("a..b=1".parse::<Override>().is_err());
}

#[test]
fn registry_lists_match_parser() {
    for c in categories() {
        assert!(!c.entries.is_empty(), "{}", c.title);
    }
    for p in Protocol::ALL {
        let text = BASE.replace(
            "[traffic]",
            &format!("[transport]\nprotocol = \"{}\"\n[traffic]", p.name()),
        );
        assert_eq!(parse(&text).unwrap().transport.protocol, *p);
    }
    for b in crate::profiles::BUILTIN {
        let text = BASE.replace("\"3g\"", &format!("\"{}\"", b.name));
        parse(&text).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn explicit_topology_errors() {
    let base = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/bulk.toml"
    ))
    .unwrap();
    let e = Scenario::from_str(&base.replace("b = \"server\"", "b = \"srv\""), "bulk.toml")
        .unwrap_err();
    assert_eq!(e.key.as_deref(), Some("topology.link[4].b"), "{e}");
    assert!(e.to_string().contains("found \"srv\""), "{e}");
    let e = Scenario::from_str(&base.replace("10.0.2.2", "10.0.2"), "bulk.toml").unwrap_err();
    assert_eq!(
        e.key.as_deref(),
        Some("topology.node[0].addresses[1]"),
        "{e}"
    );
    assert!(e.to_string().contains("IPv4"), "{e}");
}

#[test]
fn unknown_base_profile_and_cycles() {
    let e = err_of("delay_ms = 20", "delay_ms = 20\nprofile = \"nope\"");
    assert_err(
        &e,
        "profile.mine.profile",
        12,
        &["link profile name", "found \"nope\""],
    );
    let e = err_of("delay_ms = 20", "delay_ms = 20\nprofile = \"mine\"");
    assert_err(&e, "profile.mine.profile", 12, &["cycle"]);
}

#[test]
fn missing_top_level_table_has_no_key() {
    let e = parse("[scenario]\nname = \"x\"\nduration_s = 1\n[topology]\npreset = \"single-path\"\npaths = [\"lte\"]\n").unwrap_err();
    assert_eq!(e.to_string(), "test.toml: missing key `traffic`");
}

#[test]
fn overriding_a_builtin_profile_key_starts_from_the_builtin() {
    let o: Override = "profile.wlan.delay_ms=[10, 12]".parse().unwrap();
    let s = Scenario::from_str_with_overrides(BASE, "test.toml", &[o]).unwrap();
    let Topology::Preset { paths, .. } = &s.topology else {
        panic!()
    };
    assert_eq!(
        paths[0].link.up.delay_ms,
        Range::Uniform { lo: 10.0, hi: 12.0 }
    );
    assert_eq!(
        paths[0].link.up.rate_mbit,
        Some(Range::Uniform { lo: 20.0, hi: 30.0 })
    );
    // a file profile named like a built-in may start from it explicitly
    let text = BASE.replace(
        "[profile.mine]",
        "[profile.wlan]\nprofile = \"wlan\"\nqueue_packets = 7\n[profile.mine]",
    );
    let s = parse(&text).unwrap();
    let Topology::Preset { paths, .. } = &s.topology else {
        panic!()
    };
    assert_eq!(paths[0].link.down.queue, QueueLimit::Packets(7));
    assert_eq!(
        paths[0].link.down.delay_ms,
        Range::Uniform { lo: 20.0, hi: 25.0 }
    );
    // without `profile`, it replaces the built-in, and the error says so
    let text = BASE.replace(
        "[profile.mine]",
        "[profile.wlan]\nqueue_packets = 7\n[profile.mine]",
    );
    let e = parse(&text).unwrap_err();
    assert!(e.to_string().contains("add profile = \"wlan\""), "{e}");
}

/// Upstream endpoint flags are parsed once, into `EpFlags`, when the file is
/// read; an unknown flag names its entry, on its line.
#[test]
fn endpoint_flags_are_typed() {
    let mp = "[traffic]\nmodel = \"video\"\n\n[transport]\nprotocol = \"mptcp\"\n\n\
              [transport.mptcp]\npath_manager = \"upstream\"\n";
    let ok = BASE.replacen(
        "[traffic]\nmodel = \"video\"\n",
        &format!("{mp}endpoints = [\"\", \"subflow backup\"]\nserver_endpoints = [\"signal\"]\n"),
        1,
    );
    let s = parse(&ok).unwrap();
    let m = &s.transport.mptcp;
    assert_eq!(m.endpoints[0], EpFlags::default());
    assert!(m.endpoints[1].subflow && m.endpoints[1].backup && !m.endpoints[1].signal);
    assert!(m.server_endpoints[0].signal);
    let e = err_of(
        "[traffic]\nmodel = \"video\"\n",
        &format!("{mp}server_endpoints = [\"signal,turbo\"]\n"),
    );
    assert_err(
        &e,
        "transport.mptcp.server_endpoints[0]",
        21,
        &[
            "unknown endpoint flag \"turbo\"",
            "subflow, signal, backup, fullmesh",
        ],
    );
    assert_eq!(e.kind, ErrorKind::Schema);
}

/// In-kernel path manager limits: upstream only, at most 8 (the kernel's
/// `MPTCP_PM_ADDR_MAX`), written as a table; `laminar` is an endpoint flag.
#[test]
fn mptcp_limits_are_checked() {
    let mp = "[traffic]\nmodel = \"video\"\n\n[transport]\nprotocol = \"mptcp\"\n\n\
              [transport.mptcp]\npath_manager = \"upstream\"\nendpoints = [\"\", \"laminar\"]\n";
    let ok = BASE.replacen(
        "[traffic]\nmodel = \"video\"\n",
        &format!("{mp}[transport.mptcp.limits]\nsubflows = 3\nadd_addr_accepted = 0\n"),
        1,
    );
    let s = parse(&ok).unwrap();
    let m = &s.transport.mptcp;
    assert_eq!(m.limits.subflows, Some(3));
    assert_eq!(m.limits.add_addr_accepted, Some(0));
    assert!(m.endpoints[1].laminar && !m.endpoints[1].subflow);
    assert_eq!(m.add_addr_timeout_s, 120.0);
    let e = err_of(
        "[traffic]\nmodel = \"video\"\n",
        &format!("{mp}[transport.mptcp.limits]\nsubflows = 9\n"),
    );
    let t = e.to_string();
    assert_eq!(
        e.key.as_deref(),
        Some("transport.mptcp.limits.subflows"),
        "{t}"
    );
    assert!(t.contains("at most 8") && t.contains("found 9"), "{t}");
    let e = err_of(
        "[traffic]\nmodel = \"video\"\n",
        "[traffic]\nmodel = \"video\"\n\n[transport]\nprotocol = \"mptcp\"\n\n\
         [transport.mptcp.limits]\nadd_addr_accepted = 1\n",
    );
    assert!(
        e.to_string().contains("need path_manager = \"upstream\""),
        "{e}"
    );
    let e = err_of(
        "[traffic]\nmodel = \"video\"\n",
        &format!("{mp}[transport.mptcp.limits]\nsubflow = 1\n"),
    );
    assert!(e.to_string().contains("subflow"), "{e}");
}

#[test]
fn ip_version_is_4_or_6_and_ipv6_needs_1280_bytes_of_mtu() {
    use mptlab_core::packet::IpVersion;
    let with = |t: &str| parse(&format!("{BASE}\n[transport]\n{t}\n"));
    let s = with("ip_version = 6").unwrap();
    assert_eq!(s.transport.ip(), IpVersion::V6);
    assert_eq!(s.transport.mss_bytes(), 1440, "1500 - 40 - 20");
    assert_eq!(parse(BASE).unwrap().transport.ip(), IpVersion::V4);
    let e = with("ip_version = 5").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("transport.ip_version"), "{e}");
    assert!(e.to_string().contains("expected 4 or 6, found 5"), "{e}");
    let e = with("ip_version = 6\nmtu_bytes = 1000").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("transport.mtu_bytes"), "{e}");
    assert!(e.to_string().contains("at least 1280"), "{e}");
    assert!(with("mtu_bytes = 1000").is_ok(), "IPv4 keeps 576..9000");
}

#[test]
fn client_hello_bytes_on_message_models_files_and_bulk_over_byte_streams_only() {
    let with = BASE.replacen(
        "model = \"video\"",
        "model = \"video\"\nclient_hello_bytes = 16",
        1,
    );
    assert_eq!(parse(&with).unwrap().traffic.client_hello_bytes, 16);
    assert_eq!(parse(BASE).unwrap().traffic.client_hello_bytes, 0);
    // a file download's request (the emulator's agent writes its hello)
    let file = BASE.replacen(
        "model = \"video\"",
        "model = \"file\"\nsize_bytes = 1000\nclient_hello_bytes = 16",
        1,
    );
    assert_eq!(parse(&file).unwrap().traffic.client_hello_bytes, 16);
    // bulk: the agent writes its hello before the data (issue 15, ndiff16)
    let bulk = BASE.replacen(
        "model = \"video\"",
        "model = \"bulk\"\nclient_hello_bytes = 16",
        1,
    );
    assert_eq!(parse(&bulk).unwrap().traffic.client_hello_bytes, 16);
    // and a failover bulk transfer: the agent writes it on both connections
    let fo = BASE.replacen(
        "model = \"video\"",
        "model = \"bulk\"\nclient_hello_bytes = 16\nfailover_path = 2",
        1,
    );
    let fo = parse(&fo).unwrap();
    assert_eq!(fo.traffic.client_hello_bytes, 16);
    assert_eq!(fo.traffic.failover.map(|f| f.path), Some(2));
    let e = err_of(
        "model = \"video\"",
        "model = \"web\"\nsite = \"amazon\"\nclient_hello_bytes = 16",
    );
    assert_err(
        &e,
        "traffic.client_hello_bytes",
        16,
        &["does not apply to model \"web\""],
    );
    let e = err_of(
        "model = \"video\"",
        "model = \"video\"\nclient_hello_bytes = 16\n\n[transport]\nprotocol = \"sctp\"",
    );
    assert_err(
        &e,
        "traffic.client_hello_bytes",
        15,
        &["TCP or MPTCP", "\"sctp\""],
    );
}

#[test]
fn hz_is_a_kconfig_choice_and_defaults_to_1000() {
    let with = |t: &str| parse(&format!("{BASE}\n[transport]\n{t}\n"));
    assert_eq!(parse(BASE).unwrap().transport.hz, 1000);
    for hz in [100, 250, 300, 1000] {
        assert_eq!(with(&format!("hz = {hz}")).unwrap().transport.hz, hz);
    }
    for bad in ["hz = 200", "hz = 0", "hz = 1024"] {
        let e = with(bad).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("transport.hz"), "{e}");
        let m = e.to_string();
        assert!(m.contains("test.toml"), "{m}");
        assert!(
            m.contains("expected one of 100, 250, 300, 1000 (Linux CONFIG_HZ"),
            "{m}"
        );
    }
    let e = with("hz = \"250\"").unwrap_err();
    assert!(
        e.to_string().contains("transport.hz") || e.key.as_deref() == Some("transport.hz"),
        "{e}"
    );
    // a written scenario leaves the default out, keeps any other value
    let t = toml::to_string(&with("hz = 250").unwrap().transport).unwrap();
    assert!(t.contains("hz = 250"), "{t}");
    let t = toml::to_string(&parse(BASE).unwrap().transport).unwrap();
    assert!(!t.contains("hz ="), "{t}");
}

#[test]
fn hz_phase_is_within_one_jiffy_and_defaults_to_0() {
    let with = |t: &str| parse(&format!("{BASE}\n[transport]\n{t}\n"));
    assert_eq!(parse(BASE).unwrap().transport.hz_phase_us, 0);
    assert_eq!(
        with("hz = 250\nhz_phase_us = 3999")
            .unwrap()
            .transport
            .hz_phase_us,
        3999
    );
    assert_eq!(
        with("hz_phase_us = 999").unwrap().transport.hz_phase_us,
        999
    );
    for (bad, limit) in [
        ("hz = 250\nhz_phase_us = 4000", "0 to 3999 us"),
        ("hz_phase_us = 1000", "0 to 999 us"),
    ] {
        let e = with(bad).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("transport.hz_phase_us"), "{e}");
        let m = e.to_string();
        assert!(m.contains("test.toml") && m.contains(limit), "{m}");
    }
    let t = toml::to_string(&with("hz = 250\nhz_phase_us = 1509").unwrap().transport).unwrap();
    assert!(t.contains("hz_phase_us = 1509"), "{t}");
    let t = toml::to_string(&parse(BASE).unwrap().transport).unwrap();
    assert!(!t.contains("hz_phase_us"), "{t}");
}

/// Session 27: `[profile.wlann]` (a typo) beside `paths = ["wlan", "3g"]`
/// was accepted and the built-in wlan used, without a word. A profile no
/// link reaches is refused, naming its table and the closest used name;
/// one reached only as another's base, or picked by `--set
/// topology.paths`, is used.
#[test]
fn a_profile_no_link_uses_is_refused() {
    let typo = "[scenario]\nname = \"t\"\nduration_s = 10\n\n[topology]\npreset = \"two-path\"\n\
        paths = [\"wlan\", \"3g\"]\n\n[profile.wlann]\nrate_mbit = 5\n\n[traffic]\nmodel = \"bulk\"\n";
    let e = parse(typo).unwrap_err();
    assert_err(
        &e,
        "profile.wlann",
        9,
        &[
            "profile `wlann` is defined but no link uses it",
            "the links use `3g`, `ethernet`, `wlan`",
            "did you mean `wlan`?",
        ],
    );
    // picked by --set: used
    let o = |s: &str| s.parse::<Override>().unwrap();
    let s = Scenario::from_str_with_overrides(
        typo,
        "test.toml",
        &[o("topology.paths=[\"wlann\", \"3g\"]")],
    )
    .unwrap();
    assert!(s.profiles_used.contains("wlann"));
    // reached as the base of a used profile: used
    let chain = typo.replace(
        "[profile.wlann]",
        "[profile.a]\nprofile = \"wlann\"\n[profile.wlann]",
    );
    let chain = chain.replace("paths = [\"wlan\", \"3g\"]", "paths = [\"a\", \"3g\"]");
    let s = parse(&chain).unwrap();
    assert!(s.profiles_used.contains("wlann") && s.profiles_used.contains("a"));
    // an override of a profile no path uses changed nothing: refused, the
    // override named, no place in the file
    let e = Scenario::from_str_with_overrides(
        &typo.replace("[profile.wlann]\nrate_mbit = 5\n", ""),
        "test.toml",
        &[o("profile.lte.delay_ms=5")],
    )
    .unwrap_err();
    assert_eq!(e.key.as_deref(), Some("profile.lte"), "{e}");
    assert_eq!(e.line, None, "{e}");
    assert_eq!(e.from_override.as_deref(), Some("profile.lte.delay_ms=5"));
}

/// A sweep checks the union of its points: a profile one point's paths
/// name is used; one no point reaches is refused as "no link of any sweep
/// point".
#[test]
fn a_sweep_refuses_a_profile_no_point_uses() {
    let text = "[scenario]\nname = \"t\"\nduration_s = 10\n\n[topology]\npreset = \"two-path\"\n\
        paths = [\"wlan\", \"3g\"]\n\n[profile.mine]\nrate_mbit = 5\n\n[traffic]\nmodel = \"bulk\"\n\n\
        [sweep]\n\"topology.paths\" = [[\"wlan\", \"3g\"], [\"mine\", \"3g\"]]\n";
    let sw = Sweep::from_str(text, "test.toml", &[], None).unwrap();
    assert_eq!(sw.points.len(), 2);
    let unused = text.replace("[\"mine\", \"3g\"]", "[\"lte\", \"3g\"]");
    let e = Sweep::from_str(&unused, "test.toml", &[], None).unwrap_err();
    let msg = e.to_string();
    assert_eq!(e.key.as_deref(), Some("profile.mine"), "{msg}");
    assert_eq!(e.line, Some(9), "{msg}");
    assert!(
        msg.contains("profile `mine` is defined but no link of any sweep point uses it"),
        "{msg}"
    );
    // `mptlab run` of the file (its base document) is not refused for a
    // profile only a sweep point uses
    Scenario::from_str(text, "test.toml").unwrap();
}
