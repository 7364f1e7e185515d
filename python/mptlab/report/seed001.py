"""Seed 001 (thesis summary; Paper II "Probe or Wait"): MPTCP-level tail loss
probe vs the standard per-subflow TLP.

Library: scenarios/seed001/ (scripts/gen-seed001.py). Every file is one loss
pattern and burst size (``tail1-10seg``: the last of 10 segments lost on the
loss path) swept over the alternate path's one-way delay and the TLP variant
(``transport.mptcp.tlp`` = ``subflow`` | ``mptcp-level``); ``cloud-wlan-lte``
runs the built-in wlan + lte profiles. The unit of analysis is one run; the
metric is the run's mean burst completion time (``delay_ms_mean`` of the
``bursts`` model: each burst is one message). Run i of both variants shares its
seed (same drawn delays), so the comparison is paired.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .common import (BOOTSTRAP, Run, Section, direction_verdict, e, figure_fresh, figure_key, figure_saved, fmt_r,
                     grade, paired_r, pyplot, track, table)

D1_MS = 40.0  # one-way delay of the loss path (scripts/gen-seed001.py)
PATTERNS = ["tail1", "tail2", "probeloss", "failure"]
PATTERN_LABEL = {
    "tail1": "last segment lost",
    "tail2": "last two segments lost",
    "probeloss": "last segment and the probe lost (300 ms blackout)",
    "failure": "primary path failure at 10.5 s",
}
TAIL = ("tail1", "tail2", "probeloss")
METRIC = "delay_ms_mean"


def _mid(v: Any) -> float:
    return float(np.mean(v)) if isinstance(v, list) else float(v)

#: the experiments (ids in scenarios/registry/experiments.toml) this section reads, as
#: full-match patterns: each must match a registered id, and every registered id of
#: the seed must match one (report/expect.py `check_modules`)
EXPERIMENTS = [r"(tail1|tail2|probeloss|failure)-(\d+)seg", "cloud-wlan-lte"]


def cells(runs: List[Run]) -> Dict[Tuple[str, int, str], Dict[str, Dict[int, Run]]]:
    """(pattern, segments, alternate-path label) -> tlp variant -> run index -> run."""
    out: Dict[Tuple[str, int, str], Dict[str, Dict[int, Run]]] = defaultdict(lambda: defaultdict(dict))
    for r in runs:
        tlp = r.values.get("transport.mptcp.tlp")
        m = re.fullmatch(r"(tail1|tail2|probeloss|failure)-(\d+)seg", r.stem)
        if m:
            key = (m.group(1), int(m.group(2)), f"{_mid(r.values['profile.altpath.delay_ms']):g}")
        elif r.stem == "cloud-wlan-lte":
            paths = r.values.get("topology.paths", [])
            key = ("cloud", 10, "WLAN loss, LTE alternate" if paths and paths[0].startswith("wlan")
                   else "LTE loss, WLAN alternate")
        else:
            continue
        out[key][tlp][r.run] = r
    return out


def compare(cell: Dict[str, Dict[int, Run]], metric: str = METRIC) -> Optional[Dict[str, Any]]:
    """Paired r of MPTCP-level vs standard TLP over the runs both have."""
    std, mpl = cell.get("subflow", {}), cell.get("mptcp-level", {})
    idx = sorted(i for i in std if i in mpl and std[i].get(metric) is not None and mpl[i].get(metric) is not None)
    if not idx:
        return None
    a = np.array([std[i].get(metric) for i in idx])
    b = np.array([mpl[i].get(metric) for i in idx])
    r, lo, hi = paired_r(b, a)

    def mean(side: Dict[int, Run], m: str) -> float:
        v = [side[i].get(m) for i in idx if side[i].get(m) is not None]
        return float(np.mean(v)) if v else float("nan")

    return {"n": len(idx), "std": float(a.mean()), "mpl": float(b.mean()), "r": r, "lo": lo, "hi": hi,
            "std_se": float(a.std(ddof=1) / math.sqrt(len(a))) if len(a) > 1 else float("nan"),
            "mpl_se": float(b.std(ddof=1) / math.sqrt(len(b))) if len(b) > 1 else float("nan"),
            "a": a, "b": b,
            **{f"{k}_{s}": mean(side, f"fg_{k}") for s, side in (("std", std), ("mpl", mpl))
               for k in ("rto_events", "tlp_probes", "bytes_probe_extra", "bytes_reinjected", "bytes_sent")},
            "bursts": mean(std, "messages")}


def _ranks(x: np.ndarray) -> np.ndarray:
    """Average ranks (ties share their mean rank)."""
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(len(x))
    xs = x[order]
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and xs[j + 1] == xs[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0
        i = j + 1
    return ranks


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    rx, ry = _ranks(np.asarray(x, float)), _ranks(np.asarray(y, float))
    if rx.std() == 0 or ry.std() == 0:
        return float("nan")
    return float(np.corrcoef(rx, ry)[0, 1])


def _gain_rho(series: List[Tuple[float, Dict[str, Any]]], resamples: int = 2000, seed: int = 0):
    """Spearman rho between delay ratio and gain = -r over the cells of some
    series, and its 95 % bootstrap CI (runs resampled within each cell,
    pairs kept)."""
    ratios = np.array([q for q, _ in series])
    gains = np.array([-c["r"] for _, c in series])
    rho = spearman(ratios, gains)
    rng = np.random.default_rng(seed)
    rhos = []
    for _ in range(resamples):
        g = []
        for _, c in series:
            n = len(c["a"])
            idx = rng.integers(0, n, n)
            g.append(-(c["b"][idx] - c["a"][idx]).mean() / c["a"][idx].mean())
        v = spearman(ratios, np.array(g))
        if math.isfinite(v):
            rhos.append(v)
    lo, hi = (np.percentile(rhos, [2.5, 97.5]) if rhos else (float("nan"), float("nan")))
    return rho, float(lo), float(hi)


def _figures(res: Dict[Tuple[str, int, str], Dict[str, Any]], figdir: Path) -> List[Tuple[str, str]]:
    plt = pyplot()
    out = []
    sizes = sorted({k[1] for k in res if k[0] in PATTERNS})
    pats = [p for p in PATTERNS if any(k[0] == p for k in res)]
    if not pats:
        return out
    # both figures are drawn from `res` only
    key = figure_key(res)
    figs = [("s001-completion-vs-ratio.png", "burst completion time vs delay ratio"),
            ("s001-gain-vs-ratio.png", "relative gain vs delay ratio")]
    # every figure asked (no short cut): each stale stamp goes before redrawing
    if all([figure_fresh(figdir / name, key) for name, _ in figs]):
        return [(f"figures/{name}", alt) for name, alt in figs]
    # completion time vs delay ratio, both variants, one panel per pattern
    fig, axes = plt.subplots(1, len(pats), figsize=(4.2 * len(pats), 3.6), dpi=100, squeeze=False)
    for ax, p in zip(axes[0], pats):
        for si, s in enumerate(sizes):
            ks = sorted((k for k in res if k[0] == p and k[1] == s), key=lambda k: D1_MS / float(k[2]))
            if not ks:
                continue
            q = [D1_MS / float(k[2]) for k in ks]
            for var, style in (("std", "--"), ("mpl", "-")):
                y = [res[k][var] for k in ks]
                err = [1.96 * res[k][f"{var}_se"] for k in ks]
                ax.errorbar(q, y, yerr=err, fmt="o" + style, ms=3, capsize=2, color=f"C{si}",
                            label=f"{s} seg, {'standard' if var == 'std' else 'MPTCP-level'}")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("delay ratio d1/d2 (loss path / alternate)")
        ax.set_ylabel("burst completion time, ms (mean, 95 % CI)")
        ax.set_title(PATTERN_LABEL[p], fontsize=9)
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(figdir / "s001-completion-vs-ratio.png")
    plt.close(fig)
    out.append(("figures/s001-completion-vs-ratio.png", "burst completion time vs delay ratio"))
    # relative gain with its bootstrap CI
    fig, axes = plt.subplots(1, len(pats), figsize=(4.2 * len(pats), 3.4), dpi=100, squeeze=False, sharey=True)
    for ax, p in zip(axes[0], pats):
        for si, s in enumerate(sizes):
            ks = sorted((k for k in res if k[0] == p and k[1] == s), key=lambda k: D1_MS / float(k[2]))
            if not ks:
                continue
            q = [D1_MS / float(k[2]) for k in ks]
            g = np.array([-res[k]["r"] for k in ks]) * 100
            lo = np.array([-res[k]["hi"] for k in ks]) * 100
            hi = np.array([-res[k]["lo"] for k in ks]) * 100
            ax.errorbar(q, g, yerr=[np.nan_to_num(g - lo), np.nan_to_num(hi - g)], fmt="o-", ms=3, capsize=2,
                        color=f"C{si}", label=f"{s} segments")
        ax.axhline(0, color="k", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("delay ratio d1/d2")
        ax.set_title(PATTERN_LABEL[p], fontsize=9)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("gain of MPTCP-level TLP, % (95 % CI)")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(figdir / "s001-gain-vs-ratio.png")
    plt.close(fig)
    for name, _ in figs:
        figure_saved(figdir / name, key)
    out.append(("figures/s001-gain-vs-ratio.png", "relative gain vs delay ratio"))
    return out


def _few(n: int, what: str) -> str:
    """Why a claim over `n` configurations is not checkable."""
    return (f"fewer than 2 paired runs in each of the {n} {what}: significance (a confidence interval) "
            "needs at least 2")


def _left(n: int) -> str:
    """What a verdict left out ("" when nothing)."""
    return f" ({n} configuration(s) with fewer than 2 paired runs left out)" if n else ""


def section(manifest: Dict[str, Any], runs: List[Run], claims: List[Dict[str, Any]], figdir: Path) -> Section:
    sec = Section()
    h = sec.html
    res: Dict[Tuple[str, int, str], Dict[str, Any]] = {}
    for k, cell in cells(runs).items():
        with track() as led:
            c = compare(cell)
        if c:
            c["completed"] = led.mark()  # bursts delivered, where not all
            res[k] = c
    ratio = {k: D1_MS / float(k[2]) for k in res if k[0] in PATTERNS}
    h.append("<h2 id='seed001'>Seed 001: MPTCP-level tail loss probe (thesis summary, Paper II)</h2>")
    h.append("<p class='note'>The thesis summary gives mechanisms and directions but no setup; the design is "
             "mptlab's own (docs/claims/matrix.md, docs/report.md). Two 20 Mbit/s paths; the loss path (initial "
             f"subflow) {D1_MS:g} ms one-way, the alternate path 5-160 ms (delay ratio d1/d2 = 0.25-8; below 1 the "
             "alternate is slower). The alternate subflow is a <b>backup</b> subflow, so bursts go on the loss path "
             "and the alternate carries only recovery traffic: RTO reinjections (standard) and, with the MPTCP-level "
             "TLP, a copy of the probe. 100 request/response bursts per run, one per second; losses are "
             "deterministic (<code>train</code> loss model) and hit every burst; one-way delays are drawn "
             "within &plusmn;5 % per run. Metric: the run's mean burst completion time (burst handed to the "
             "transport until its last byte is delivered in order); r = mean(MPTCP-level - standard) / "
             f"mean(standard) over paired runs, 95 % CI by bootstrap ({BOOTSTRAP} resamples). "
             "Simulated, not the thesis's modified Linux in CORE or its WLAN/4G testbed.</p>")
    figs = _figures(res, figdir)
    if figs:
        h.append("<div class='figs'>" + "".join(f"<img src='{e(s)}' alt='{e(a)}'>" for s, a in figs) + "</div>")
    rows = []
    for k in sorted(res, key=lambda k: (PATTERNS.index(k[0]) if k[0] in PATTERNS else 9, k[1],
                                        -ratio.get(k, 0), k[2])):
        c = res[k]
        q = f"{ratio[k]:g}" if k in ratio else "-"
        rows.append([k[0], k[1], k[2] + (" ms" if k in ratio else ""), q, f"{c['std']:.0f}", f"{c['mpl']:.0f}",
                     fmt_r(c["r"], c["lo"], c["hi"]), f"{c['rto_events_std']:.1f} / {c['rto_events_mpl']:.1f}",
                     f"{c['tlp_probes_std']:.0f} / {c['tlp_probes_mpl']:.0f}", f"{c['bytes_probe_extra_mpl']:.0f}",
                     f"{(c['bytes_sent_mpl'] - c['bytes_sent_std']) / c['bytes_sent_std']:+.1%}", c["n"],
                     c["completed"]])
    h.append("<h3>Burst completion time per configuration</h3>")
    h.append(table(["pattern", "segments", "alternate path", "ratio d1/d2", "standard ms", "MPTCP-level ms",
                    "r (MPTCP-level vs standard)", "RTOs/run std / MPL", "TLP probes/run std / MPL",
                    "probe bytes/run MPL", "bytes sent MPL vs std", "runs",
                    "bursts completed (where not all; times over these only)"], rows, "id='s001-table'"))

    v = sec.verdicts
    # the verdicts below that read a configuration's CI (significantly faster
    # or slower, the bootstrap of rho) judge only configurations with 2 paired
    # runs: with 1 (reproduce --runs 1) the CI is NaN, read as "no significant
    # difference", and rho's bootstrap had nothing to resample, a zero-width
    # CI (session 26). `_left` says how many were left out.
    paired2 = {k: c for k, c in res.items() if c["n"] >= 2}
    tail_all = {k: c for k, c in res.items() if k[0] in TAIL}
    tail = {k: c for k, c in tail_all.items() if k in paired2}
    faster_alt = {k: c for k, c in tail.items() if ratio[k] > 1}
    if not faster_alt and any(ratio[k] > 1 for k in tail_all):
        n1 = sum(1 for k in tail_all if ratio[k] > 1)
        v["s001-tlp-alt-lower-delay-helps"] = ("not checkable", _few(n1, "tail-loss configurations with a faster "
                                                                     "alternate path"))
        v["s001-tlp-gain-grows-with-asymmetry"] = ("not checkable", _few(len(tail_all), "tail-loss configurations"))
    if faster_alt:
        sig = sum(1 for c in faster_alt.values() if c["hi"] < 0)
        pooled = float(np.mean([c["r"] for c in faster_alt.values()]))
        worst = max(faster_alt.items(), key=lambda kc: kc[1]["r"])
        verdict = "reproduced" if sig == len(faster_alt) else ("partly" if pooled < 0 else "not reproduced")
        v["s001-tlp-alt-lower-delay-helps"] = (verdict, (
            f"{sig} of {len(faster_alt)} tail-loss configurations with a faster alternate path (ratio 2-8) are "
            f"significantly faster with the MPTCP-level TLP; mean r = {pooled:+.1%}; least favourable: "
            f"{worst[0][0]} {worst[0][1]} seg ratio {ratio[worst[0]]:g}: {fmt_r(worst[1]['r'], worst[1]['lo'], worst[1]['hi'])}"
            + _left(sum(1 for k in tail_all if ratio[k] > 1) - len(faster_alt))))
        series = [(ratio[k], c) for k, c in tail.items()]
        rho, lo, hi = _gain_rho(series)
        per = []
        for p in TAIL:
            for s in sorted({k[1] for k in tail if k[0] == p}):
                ks = [k for k in tail if k[0] == p and k[1] == s]
                per.append(f"{p}/{s}: {spearman(np.array([ratio[k] for k in ks]), np.array([-tail[k]['r'] for k in ks])):+.2f}")
        v["s001-tlp-gain-grows-with-asymmetry"] = (direction_verdict(rho, lo, hi, +1), (
            f"Spearman rho(delay ratio, gain) over {len(series)} tail-loss configurations = {rho:+.2f} "
            f"[{lo:+.2f}, {hi:+.2f}]; per series (pattern/segments): {', '.join(per)}" + _left(len(tail_all) - len(tail))
            # rho is NaN when the gain (or the ratio) is the same in every
            # configuration (`--only tail2-3seg`): no growth, which is what
            # "not reproduced" then rests on; say so rather than print a bare nan
            + ("; rho undefined: the gain is the same in every configuration, it does not grow"
               if not math.isfinite(rho) and len({c["r"] for _, c in series}) == 1 else "")))
    pat_all = {k: c for k, c in res.items() if k[0] in PATTERNS}
    if pat_all and not any(k in paired2 for k in pat_all):
        v["s001-tlp-never-worse"] = ("not checkable", _few(len(pat_all), "configurations"))
    elif pat_all:
        # (was `if res:`: with only the cloud runs, 0 of 0 configurations
        # judged "reproduced")
        pat = {k: c for k, c in pat_all.items() if k in paired2}
        slower = [k for k, c in pat.items() if c["lo"] > 0]
        faster = [k for k, c in pat.items() if c["hi"] < 0]
        verdict = ("reproduced" if not slower and len(faster) * 2 >= len(pat)
                   else "partly" if len(slower) < len(faster) else "not reproduced")
        v["s001-tlp-never-worse"] = (verdict, (
            f"{len(faster)} of {len(pat)} configurations significantly faster, {len(pat) - len(faster) - len(slower)} "
            f"without a significant difference, {len(slower)} significantly slower "
            f"({sum(1 for k in slower if pat[k]['r'] >= 0.01)} of them by 1 % or more)"
            + (": " + "; ".join(f"{k[0]} {k[1]} seg ratio {ratio[k]:g} ({pat[k]['r']:+.1%})" for k in slower[:8])
               if slower else "") + _left(len(pat_all) - len(pat))))
    pl_all = {k: c for k, c in res.items() if k[0] == "probeloss"}
    t1_all = {k: c for k, c in res.items() if k[0] == "tail1"}
    pl = {k: c for k, c in pl_all.items() if k in paired2}
    t1 = {k: c for k, c in t1_all.items() if k in paired2}
    if pl_all and t1_all and not (pl and t1):
        v["s001-tlp-probe-loss-effective"] = ("not checkable", _few(len(pl_all) + len(t1_all) - len(pl) - len(t1),
                                                                    "probe-loss and tail1 configurations"))
    if pl and t1:
        rto_std = float(np.mean([c["rto_events_std"] / max(c["bursts"], 1) for c in pl.values()]))
        rto_mpl = float(np.mean([c["rto_events_mpl"] / max(c["bursts"], 1) for c in pl.values()]))
        g_pl = float(np.mean([-c["r"] for k, c in pl.items() if ratio[k] > 1]))
        g_t1 = float(np.mean([-c["r"] for k, c in t1.items() if ratio[k] > 1]))
        sig = sum(1 for c in pl.values() if c["hi"] < 0)
        conds = [rto_std > 0, g_pl > g_t1, sig == len(pl)]
        v["s001-tlp-probe-loss-effective"] = (grade(all(conds), g_pl > g_t1 or sig > 0), (
            f"probe lost too: standard TLP needs {rto_std:.2f} RTOs per burst; mean gain (ratio 2-8) {g_pl:.1%} vs "
            f"{g_t1:.1%} when only the tail is lost; significantly faster in {sig} of {len(pl)} configurations "
            f"(all ratios). The loss path's own RTO still fires with the MPTCP-level probe ({rto_mpl:.2f} per burst): "
            "the copy completes the burst at the connection level, the subflow still times out its lost segments"
            + _left(len(pl_all) + len(t1_all) - len(pl) - len(t1))))
    # the retransmission cost reads bytes, not a CI: every configuration counts
    t1 = t1_all
    fail = {k: c for k, c in res.items() if k[0] == "failure"}
    if t1 and fail:
        per_event = float(np.mean([c["bytes_probe_extra_mpl"] / 1424.0 / max(c["bursts"], 1) for c in t1.values()]))
        frac = float(np.mean([c["bytes_probe_extra_mpl"] / c["bytes_sent_mpl"] for c in t1.values()]))
        fextra = float(np.mean([(c["bytes_sent_mpl"] - c["bytes_sent_std"]) / c["bytes_sent_std"] for c in fail.values()]))
        fprobe = float(np.mean([c["bytes_probe_extra_mpl"] / 1424.0 for c in fail.values()]))
        ok_small = per_event <= 1.0 + 1e-9 and frac < 0.01
        ok_fail = abs(fextra) < 0.01
        v["s001-tlp-extra-retransmission-cost"] = (grade(ok_small and ok_fail, per_event <= 1.0 + 1e-9 or ok_fail), (
            f"tail loss recovered on the primary path: {per_event:.2f} extra probes per tail-loss event, "
            f"{frac:.1%} of the bytes sent (every burst loses its tail here, so the share is far above the 1 % a "
            f"realistic loss rate would give); primary path failure: bytes sent {fextra:+.2%} vs standard "
            f"({fprobe:.1f} probe copies per run, sent before the RTO declared the path failed)"))
    cand = {k: c for k, c in res.items() if k[0] in TAIL or k[0] == "cloud"}
    if cand:
        best = max(cand.items(), key=lambda kc: -kc[1]["r"])
        g = -best[1]["r"]
        cl = [f"{k[2]}: {fmt_r(c['r'], c['lo'], c['hi'])}" for k, c in res.items() if k[0] == "cloud"]
        verdict = "reproduced" if 0.40 <= g <= 0.60 else ("partly" if 0.2 <= g <= 0.8 else "not reproduced")
        v["s001-tlp-up-to-50pct"] = (verdict, (
            f"largest reduction of the mean burst completion time: {g:.1%} ({best[0][0]} {best[0][1]} seg, "
            f"alternate {best[0][2]}); built-in wlan + lte: " + ("; ".join(cl) if cl else "not run")))
    # a run without one of the three counters is left out and counted, not
    # read as 0: a missing retransmission count made an RTO look like one
    # without a retransmission (session 28)
    counters = ("fg_rto_events", "fg_bytes_reinjected", "fg_retrans_rto")
    tlp_runs = [r for r in runs if r.values.get("transport.mptcp.tlp") == "subflow"
                and any(r.get(c) is not None for c in counters)]
    std_runs = [r for r in tlp_runs if all(r.get(c) is not None for c in counters)]
    lacking = [r for r in tlp_runs if any(r.get(c) is None for c in counters)]
    dropped = (f"; {len(lacking)} run(s) left out for lacking " + " or ".join(
        c for c in counters if any(r.get(c) is None for r in lacking))
        + f" (in {', '.join(sorted({r.stem for r in lacking}))})") if lacking else ""
    if lacking and not std_runs:
        v["s001-linux-loss-recovery-heuristic"] = ("not checkable", "no standard-TLP run with all of "
                                                   + ", ".join(counters) + dropped)
    if std_runs:
        reinj_wo_rto = sum(1 for r in std_runs if r.get("fg_bytes_reinjected") > 0 and r.get("fg_rto_events") == 0)
        odd = [r for r in std_runs if r.get("fg_rto_events") > 0 and r.get("fg_retrans_rto") == 0]
        rto_wo_retx = len(odd)
        where = sorted({r.stem for r in odd})
        with_reinj = sum(1 for r in std_runs if r.get("fg_bytes_reinjected") > 0)
        v["s001-linux-loss-recovery-heuristic"] = (grade(reinj_wo_rto == 0 and rto_wo_retx == 0, reinj_wo_rto == 0), (
            f"standard-TLP runs{dropped}: {with_reinj} of {len(std_runs)} reinjected data on the other subflow, "
            f"{reinj_wo_rto} of them without an RTO; {rto_wo_retx} runs had an RTO without a retransmission on "
            "the original subflow" + (f" (in {', '.join(where)}; they retransmitted and reinjected no data at all, "
                                      "so the timer was not a data RTO; not investigated further)" if odd else "")
            + ". Fast retransmits stay on the loss path by construction here (the alternate is a "
            "backup subflow), so that part is not tested separately"))
    h.append("<h3>Verdicts (seed 001)</h3><ul>" + "".join(
        f"<li class='{e(vv[0].replace(' ', '-'))}'><code>{e(cid)}</code>: <b>{e(vv[0])}</b> (approximate setting): "
        f"{e(vv[1])}</li>" for cid, vv in v.items()) + "</ul>")
    h.append("<p class='note'>Why the gains are modest where only the tail is lost: with 2 or more segments in "
             "flight the probe fires 2 SRTT after the last ACK, with one segment in flight after 2 SRTT + 200 ms "
             "(RFC 8985), and both variants send it at the same instant. The copy on the alternate path saves only "
             "the difference of the one-way delays (at most 35 ms here) out of a completion time of 400-800 ms. "
             "The big gains come when the probe is lost too: then the standard TLP waits for the RTO. "
             "Where the MPTCP-level TLP is <i>slower</i> (30-segment bursts, tail loss only), the bursts span several "
             "rounds and the loss path's window matters: a check run with uncoupled CUBIC instead of LIA gave equal "
             "completion times for both TLP variants (tail1, 30 segments, ratio 1; the command and its numbers are "
             "in docs/report.md, seed 001, as they are not part of this run), so the "
             "slowdown comes from LIA's coupled increase once the alternate subflow carries probe copies, not from "
             "the probe itself. "
             "The claim <code>s001-mptcp-latency-symmetric-vs-asymmetric</code> restates seed 000 and is judged "
             "from seed 000's runs, not here.</p>")
    sec.data["configs"] = [{"pattern": k[0], "segments": k[1], "alternate": k[2],
                            **{kk: vv for kk, vv in c.items() if kk not in ("a", "b")}} for k, c in res.items()]
    return sec
