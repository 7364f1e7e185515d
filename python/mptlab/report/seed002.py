"""Seed 002 (IMC 2013 fragment): MPTCP over WiFi plus one cellular carrier,
file downloads of 8 KB - 32 MB.

Library: scenarios/seed002/{att,verizon,sprint}.toml (scripts/gen-seed002.py):
TCP over WiFi (path 1), TCP over the carrier (path 2) and MPTCP (initial
subflow on WiFi) for 13 file sizes. Unit of analysis: one download (one run);
metrics: ``completion_time_ms``, per-path mean smoothed RTT
``srtt_ms_mean_path1/2`` (MPTCP runs sample srtt every 100 ms), connection-level
out-of-order delay ``ofo_delay_ms_mean``, ``ofo_fraction`` (share of segments
that arrived out of order at the connection level) and
``ofo_fraction_over_150ms``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, List, Tuple

import numpy as np

from .common import (Run, Section, e, figure_fresh, figure_key, figure_saved, fmt_r, grade, paired_r, pyplot, table,
                     track)

CARRIERS = ["att", "verizon", "sprint"]
#: the experiments (ids in scenarios/registry/experiments.toml) this section reads, as
#: full-match patterns: each must match a registered id, and every registered id of
#: the seed must match one (report/expect.py `check_modules`)
EXPERIMENTS = CARRIERS
LABEL = {"att": "AT&T LTE", "verizon": "Verizon LTE", "sprint": "Sprint 3G"}
PROTOS = ["tcp1", "tcp2", "mptcp1"]
PLABEL = {"tcp1": "TCP over WiFi", "tcp2": "TCP over cellular", "mptcp1": "MPTCP"}
MB = 1024 * 1024
TABLE6 = [4 * MB, 8 * MB, 16 * MB, 32 * MB]
#: Table 6 (column-wise reading, docs/claims/claims.toml): RTT and OFO in ms for 4/8/16/32 MB
PAPER_RTT = {"att": [110.0, 102.0, 114.1, 99.6], "verizon": [228.0, 399.2, 360.4, 296.1],
             "sprint": [202.9, 262.5, 480.4, 346.2], "wifi": [56.2, 43.4, 29.4, 30.0]}
PAPER_OFO = {"att": [30.9, 26.8, 16.7, 13.1], "verizon": [36.7, 67.7, 61.3, 50.2],
             "sprint": [91.3, 126.9, 301.7, 204.5]}
BOUND_MS = 150.0  # s002-method-interactivity-bound


def _size(b: int) -> str:
    return f"{b // MB} MB" if b >= MB else f"{b // 1024} KB"


def records(runs: List[Run]) -> Dict[Tuple[str, int, str], Dict[int, Run]]:
    out: Dict[Tuple[str, int, str], Dict[int, Run]] = defaultdict(dict)
    for r in runs:
        if r.stem not in CARRIERS:
            continue
        p = f"{r.values.get('transport.protocol')}{r.values.get('transport.path')}"
        out[(r.stem, int(r.values["traffic.size_bytes"]), p)][r.run] = r
    return out


def vals(rec, carrier, size, proto, metric) -> Dict[int, float]:
    return {i: r.get(metric) for i, r in rec.get((carrier, size, proto), {}).items() if r.get(metric) is not None}


def stat(v: Dict[int, float]) -> Tuple[float, float]:
    a = np.array(list(v.values()), float)
    if len(a) == 0:
        return float("nan"), float("nan")
    return float(a.mean()), float(a.std(ddof=1) / math.sqrt(len(a))) if len(a) > 1 else float("nan")


def paired(rec, carrier, size, cand, ref, metric="completion_time_ms"):
    a, b = vals(rec, carrier, size, cand, metric), vals(rec, carrier, size, ref, metric)
    idx = sorted(set(a) & set(b))
    if len(idx) < 2:
        return None
    return paired_r(np.array([a[i] for i in idx]), np.array([b[i] for i in idx]))


def _figures(rec, carriers, sizes, figdir: Path) -> List[Tuple[str, str]]:
    """The two figures; each is drawn only when its inputs changed since
    it was last drawn (common.figure_key)."""
    out = []
    # per carrier, per protocol: (file sizes KiB, mean s, 95 % CI half-width s)
    lines = []
    for c in carriers:
        for pi, p in enumerate(PROTOS):
            xs, ys, es = [], [], []
            for s in sizes:
                m, se = stat(vals(rec, c, s, p, "completion_time_ms"))
                if math.isfinite(m):
                    xs.append(s / 1024)
                    ys.append(m / 1000)
                    es.append(1.96 * se / 1000 if math.isfinite(se) else 0)
            lines.append((c, pi, p, xs, ys, es))
    name = "s002-download-time.png"
    key = figure_key(name, carriers, [(c, LABEL[c]) for c in carriers], [PLABEL[p] for p in PROTOS], lines)
    if not any(ln[3] for ln in lines):
        # no download finished in any run: nothing to draw (log axes over no
        # data raised matplotlib's "cannot be log-scaled"; session 27);
        # the section says so
        pass
    elif not figure_fresh(figdir / name, key):
        plt = pyplot()
        fig, axes = plt.subplots(1, len(carriers), figsize=(4.3 * len(carriers), 3.6), dpi=100, squeeze=False)
        for ax, c in zip(axes[0], carriers):
            for lc, pi, p, xs, ys, es in lines:
                if lc == c:
                    ax.errorbar(xs, ys, yerr=es, fmt="o-", ms=3, capsize=2, color=f"C{pi}", label=PLABEL[p])
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("file size (KiB)")
            ax.set_ylabel("download time, s (mean, 95 % CI)")
            ax.set_title(f"WiFi + {LABEL[c]}", fontsize=10)
            ax.grid(alpha=0.3)
        axes[0][0].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(figdir / name)
        plt.close(fig)
        figure_saved(figdir / name, key)
    if any(ln[3] for ln in lines):
        out.append(("figures/" + name, "download time vs file size"))
    # Fig. 13-like: per-run mean OFO delay of MPTCP, 4-32 MB, box plots per carrier
    big = [s for s in sizes if s in TABLE6]
    if big:
        data, labels = [], []
        for c in carriers:
            for s in big:
                v = list(vals(rec, c, s, "mptcp1", "ofo_delay_ms_mean").values())
                if v:
                    data.append(v)
                    labels.append(f"{c}\n{_size(s)}")
        if data:
            name = "s002-ofo-box.png"
            key = figure_key(name, data, labels, BOUND_MS)
            if not figure_fresh(figdir / name, key):
                plt = pyplot()
                fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
                ax.boxplot(data, whis=1.5)
                ax.set_xticks(range(1, len(labels) + 1), labels, fontsize=6)
                ax.set_yscale("log")
                ax.axhline(BOUND_MS, color="r", lw=0.8, ls="--", label="150 ms bound")
                ax.set_ylabel("mean OFO delay per download, ms")
                ax.set_title("MPTCP connection-level out-of-order delay (cf. Fig. 13)", fontsize=10)
                ax.legend(fontsize=7)
                ax.grid(axis="y", alpha=0.3)
                fig.tight_layout()
                fig.savefig(figdir / name)
                plt.close(fig)
                figure_saved(figdir / name, key)
            out.append(("figures/" + name, "OFO delay box plots"))
    return out


def section(manifest: Dict[str, Any], runs: List[Run], claims: List[Dict[str, Any]], figdir: Path) -> Section:
    sec = Section()
    h = sec.html
    rec = records(runs)
    carriers = [c for c in CARRIERS if any(k[0] == c for k in rec)]
    sizes = sorted({k[1] for k in rec})
    h.append("<h2 id='seed002'>Seed 002: MPTCP over WiFi + cellular, downloads 8 KB - 32 MB (IMC 2013 fragment)</h2>")
    h.append("<p class='note'>Simulated. The carriers are profiles (scripts/gen-seed002.py): rates from "
             "docs/claims/matrix.md's proposal (WiFi 8-12 Mbit/s; LTE 10-20 Mbit/s; Sprint EVDO 1.5-2.5 Mbit/s), "
             "delays and drop-tail queue lengths set so the RTT can reach Table 6's values, nothing fitted to download "
             "times or OFO delays. No random loss, no cross traffic, no radio variability (the paper measured in the "
             "wild), so the path RTTs come only from each connection's own queueing. TCP: CUBIC; MPTCP: LIA, minRTT, "
             "fullmesh, initial subflow on WiFi. KB/MB read as KiB/MiB. Paired runs: run i of every protocol draws "
             "the same path parameters.</p>")
    figs = _figures(rec, carriers, sizes, figdir)
    for s, a in figs:
        h.append(f"<div class='figs'><img src='{e(s)}' alt='{e(a)}'></div>")
    if not any(a == "download time vs file size" for _, a in figs):
        h.append("<p class='note' id='s002-no-download-time'>Download times not drawn: no download finished in any "
                 "run (see Unfinished work).</p>")
    # download times
    rows = []
    for c in carriers:
        for s in sizes:
            with track() as led:
                ms = {p: stat(vals(rec, c, s, p, "completion_time_ms"))[0] for p in PROTOS}
            unf = " / ".join(str(sum(r.transfers_unfinished > 0 for r in rec.get((c, s, p), {}).values()))
                             for p in PROTOS)
            best = min(ms["tcp1"], ms["tcp2"])
            sh = stat(vals(rec, c, s, "mptcp1", "fg_share_path1"))[0]
            rto = " / ".join(f"{stat(vals(rec, c, s, p, 'fg_rto_events'))[0]:.1f}" for p in PROTOS)
            rows.append([LABEL[c], _size(s)] + [f"{ms[p]:.0f}" for p in PROTOS]
                        + [f"{ms['mptcp1'] / best:.2f}", f"{sh:.2f}", rto,
                           f"{unf} ({led.mark()})" if led.partial else ""])
    h.append("<h3>Download time (ms, mean over runs)</h3>")
    h.append(table(["carrier", "file", "TCP WiFi", "TCP cellular", "MPTCP", "MPTCP / best single path",
                    "MPTCP share on WiFi", "RTOs per download (TCP WiFi / TCP cell / MPTCP)",
                    "unfinished downloads (TCP WiFi / TCP cell / MPTCP; means over the finished ones)"], rows,
                   "id='s002-times'"))
    h.append("<p class='note'>Download times are not monotone in file size where slow start overshoots a short "
             "drop-tail queue: e.g. TCP over WiFi (40-packet queue) loses a burst of segments at 256 KiB and needs an "
             "RTO (last column), so 256 KiB can take longer than 512 KiB. No loss is configured; all losses are "
             "queue overflows.</p>")
    # Table 6
    rows = []
    t6: Dict[str, Dict[int, Dict[str, float]]] = defaultdict(dict)
    for c in carriers:
        for i, s in enumerate(TABLE6):
            if not rec.get((c, s, "mptcp1")):
                continue
            w = stat(vals(rec, c, s, "mptcp1", "srtt_ms_mean_path1"))
            cl = stat(vals(rec, c, s, "mptcp1", "srtt_ms_mean_path2"))
            o = stat(vals(rec, c, s, "mptcp1", "ofo_delay_ms_mean"))
            fr = stat(vals(rec, c, s, "mptcp1", "ofo_fraction"))[0]
            f150 = stat(vals(rec, c, s, "mptcp1", "ofo_fraction_over_150ms"))[0]
            t6[c][s] = {"wifi": w[0], "cell": cl[0], "ofo": o[0], "frac": fr, "f150": f150}
            rows.append([LABEL[c], _size(s), f"{w[0]:.1f}±{w[1]:.1f}", f"{PAPER_RTT['wifi'][i]}",
                         f"{cl[0]:.1f}±{cl[1]:.1f}", f"{PAPER_RTT[c][i]}", f"{o[0]:.1f}±{o[1]:.1f}",
                         f"{PAPER_OFO[c][i]}", f"{fr:.0%}", f"{f150:.0%}"])
    h.append("<h3>Table 6: MPTCP per-path RTT and out-of-order delay (mean ± standard error over downloads)</h3>")
    h.append(table(["carrier", "file", "WiFi RTT (mptlab)", "WiFi RTT (paper)", "cellular RTT (mptlab)",
                    "cellular RTT (paper)", "OFO ms (mptlab)", "OFO ms (paper)", "segments out of order",
                    f"segments waiting > {BOUND_MS:.0f} ms"], rows, "id='s002-table6'"))

    v = sec.verdicts
    # s002-mptcp-close-to-best-path
    cells = [(c, s) for c in carriers for s in sizes if all(rec.get((c, s, p)) for p in PROTOS)]
    if cells:
        ratio, unknown = {}, []
        for c, s in cells:
            ms = {p: stat(vals(rec, c, s, p, "completion_time_ms"))[0] for p in PROTOS}
            # the faster single path among those with a finished download
            # (min() with a NaN first kept the NaN); a cell where MPTCP
            # finished none but a single path did is not close (inf); one
            # where no single path finished is left out, said below: its
            # ratio was NaN, counted "not within 1.2" (session 27)
            tcp = [ms[p] for p in ("tcp1", "tcp2") if math.isfinite(ms[p])]
            if not tcp:
                unknown.append((c, s))
                continue
            ratio[(c, s)] = ms["mptcp1"] / min(tcp) if math.isfinite(ms["mptcp1"]) else math.inf
        left = (f"; {len(unknown)} cell(s) left out, no single-path download finished in any run: "
                + ", ".join(f"{c} {_size(s)}" for c, s in unknown[:5]) + (" ..." if len(unknown) > 5 else "")
                if unknown else "")
        if not ratio:
            v["s002-mptcp-close-to-best-path"] = (
                "not checkable", f"no (carrier, size) cell with a finished single-path download{left}")
        else:
            ok = [k for k, q in ratio.items() if q <= 1.2]
            bad = sorted((k for k in ratio if k not in ok), key=lambda k: -ratio[k])
            verdict = ("reproduced" if len(ok) == len(ratio)
                       else ("partly" if len(ok) * 2 > len(ratio) else "not reproduced"))
            v["s002-mptcp-close-to-best-path"] = (verdict, (
                f"MPTCP within 1.2 x the faster single path in {len(ok)} of {len(ratio)} (carrier, size) cells; "
                f"median ratio {np.median(list(ratio.values())):.2f}"
                + ("; worst: " + ", ".join(f"{c} {_size(s)} {ratio[(c, s)]:.2f}" for c, s in bad[:5]) if bad else "")
                + left))
        # s002-lte-faster-than-wifi-except-small
        lte = [c for c in carriers if c in ("att", "verizon")]
        if lte:
            large = [s for s in sizes if s >= 4 * MB]
            small = [s for s in sizes if s <= 16 * 1024]
            big_ok, big_n, small_ok, small_n = 0, 0, 0, 0
            detail = []
            for c in lte:
                for s in large:
                    pr = paired(rec, c, s, "tcp2", "tcp1")
                    if pr:
                        big_n += 1
                        big_ok += pr[2] < 0
                for s in small:
                    pr = paired(rec, c, s, "tcp1", "tcp2")
                    if pr:
                        small_n += 1
                        small_ok += pr[0] <= 0
                        detail.append(f"{c} {_size(s)}: WiFi vs LTE {fmt_r(*pr)}")
            if big_n == 0 or small_n == 0:
                # `paired` needs 2 paired runs: with none in one half of the
                # claim, `big_ok == big_n` held on 0 of 0 cells and judged it
                # "reproduced" on no data (session 26)
                half = " and ".join(w for w, k in (("large-file (>= 4 MB)", big_n), ("small-file (<= 16 KB)", small_n))
                                    if k == 0)
                v["s002-lte-faster-than-wifi-except-small"] = (
                    "not checkable", f"fewer than 2 paired runs in every {half} (LTE carrier, size) cell: the claim "
                    f"has two halves, each needs a paired comparison of at least 2 runs ({big_n} large-file and "
                    f"{small_n} small-file cells have one)")
            else:
                v["s002-lte-faster-than-wifi-except-small"] = (grade(big_ok == big_n and small_ok == small_n,
                                                                     big_ok > 0 or small_ok > 0), (
                    f"LTE significantly faster than WiFi for {big_ok} of {big_n} (carrier, file >= 4 MB) cells; WiFi at "
                    f"least as fast for {small_ok} of {small_n} small-file cells ({'; '.join(detail)}). A consistency "
                    "check of the profile rates more than of the protocol"))
        if "sprint" in carriers:
            n, ok_n, det, dropped = 0, 0, [], []
            for s in sizes:
                a = paired(rec, "sprint", s, "mptcp1", "tcp2")
                b = paired(rec, "sprint", s, "tcp1", "tcp2")
                if not (a and b):
                    # named below, not silently left out (session 28)
                    dropped.append(_size(s))
                if a and b:
                    n += 1
                    good = a[2] < 0 and b[2] < 0 and a[0] <= -0.1 and b[0] <= -0.1
                    ok_n += good
                    if s in (8 * 1024, MB, 32 * MB):
                        det.append(f"{_size(s)}: MPTCP {fmt_r(*a)}, TCP WiFi {fmt_r(*b)}")
            # n == 0 (fewer than 2 paired runs at every size) judged "reproduced"
            # on 0 of 0 file sizes (session 26)
            v["s002-3g-wifi-reduces-latency"] = ((
                "reproduced" if ok_n == n else ("partly" if ok_n * 2 > n else "not reproduced"),
                f"MPTCP and TCP over WiFi >= 10 % faster than TCP over Sprint 3G (CI below 0) for {ok_n} of {n} "
                f"file sizes; {'; '.join(det)}"
                + (f"; left out, fewer than 2 paired runs with a completion time on each side: {', '.join(dropped)}"
                   if dropped else "")) if n else (
                "not checkable", f"fewer than 2 paired runs at each of the {len(sizes)} Sprint file sizes: a "
                "confidence interval needs at least 2"))
        # small files like single path
        smalls = [(c, s) for c in carriers for s in sizes if s <= 16 * 1024 and rec.get((c, s, "mptcp1"))]
        if smalls:
            good, det, judged = 0, [], 0
            for c, s in smalls:
                sh = stat(vals(rec, c, s, "mptcp1", "fg_share_path1"))[0]
                pr = paired(rec, c, s, "mptcp1", "tcp1")
                # a cell without 2 paired runs (pr None) or without a share is
                # left out: it was counted as failing, "not reproduced" on no
                # data with reproduce --runs 1 (session 26)
                if pr is None or not math.isfinite(sh):
                    continue
                judged += 1
                fine = sh >= 0.95 and abs(pr[0]) <= 0.10
                good += fine
                det.append(f"{c} {_size(s)}: share {sh:.2f}, vs TCP WiFi " + fmt_r(*pr))
            left_out = f" ({len(smalls) - judged} with fewer than 2 paired runs left out)" if judged < len(smalls) else ""
            v["s002-small-files-like-single-path"] = ((
                "reproduced" if good == judged else ("partly" if good else "not reproduced"),
                f"{good} of {judged} cells{left_out}: MPTCP sends >= 95 % on the initial (WiFi) path and is within "
                f"10 % of TCP over WiFi; {'; '.join(det[:3])}") if judged else (
                "not checkable", f"fewer than 2 paired runs in each of the {len(smalls)} (carrier, <= 16 KB) cells: "
                "'within 10 % of TCP over WiFi' needs a paired comparison of at least 2"))
        # variability
        med = [(c, s) for c, s in cells if s >= MB]
        if med:
            good = 0
            cvs = []
            for c, s in med:
                runs = {p: np.array(list(vals(rec, c, s, p, "completion_time_ms").values())) for p in PROTOS}
                # a coefficient of variation needs 2 runs: a cell with fewer
                # (reproduce --runs 1) is left out rather than counted as not
                # lower, which judged the claim "not reproduced" on no data
                if min(len(a) for a in runs.values()) < 2:
                    continue
                cv = {p: float(a.std(ddof=1) / a.mean()) for p, a in runs.items()}
                good += cv["mptcp1"] < cv["tcp1"] and cv["mptcp1"] < cv["tcp2"]
                cvs.append(cv)
        if med and not cvs:
            v["s002-mptcp-reduces-variability"] = (
                "not checkable", f"fewer than 2 runs in each of the {len(med)} (carrier, >= 1 MB) cells: "
                "a coefficient of variation needs at least 2")
        elif med:
            med_n = len(cvs)
            left_out = f" ({len(med) - med_n} with fewer than 2 runs left out)" if med_n < len(med) else ""
            mcv = {p: float(np.mean([cv[p] for cv in cvs])) for p in PROTOS}
            v["s002-mptcp-reduces-variability"] = (
                "reproduced" if good == med_n else ("partly" if good * 2 > med_n else "not reproduced"),
                f"coefficient of variation of the download time lower for MPTCP than for both single paths in {good} "
                f"of {med_n} (carrier, >= 1 MB) cells{left_out}; mean CV: TCP WiFi {mcv['tcp1']:.3f}, TCP cellular "
                f"{mcv['tcp2']:.3f}, MPTCP {mcv['mptcp1']:.3f}. Weak check: the only variability is the per-run draw of "
                "rate and delay (no radio dynamics)")
    if t6:
        within = total = 0
        within2 = missing = 0
        for c in t6:
            for i, s in enumerate(TABLE6):
                if s not in t6[c]:
                    continue
                for key, paper in (("cell", PAPER_RTT[c][i]), ("wifi", PAPER_RTT["wifi"][i])):
                    x = t6[c][s][key]
                    missing += not math.isfinite(x)
                    if math.isfinite(x):
                        total += 1
                        within += abs(x - paper) / paper <= 0.30
                        within2 += abs(x - paper) / paper <= 0.60
        growth = {c: t6[c].get(16 * MB, {}).get("cell", float("nan")) > t6[c].get(4 * MB, {}).get("cell", float("nan"))
                  for c in t6 if c in ("verizon", "sprint")}
        v["s002-table6-rtt"] = (
            # no RTT value at all (no run sampled an RTT): `within == total`
            # held on 0 of 0 and said "reproduced" (session 27)
            "not checkable" if total == 0 else
            "reproduced" if within == total else ("partly" if within2 == total or within * 2 >= total else "not reproduced"),
            f"{within} of {total} RTT values (per carrier and file size, cellular and WiFi subflow"
            + (f"; {missing} without a value left out" if missing else "") + ") within +-30 % of "
            f"Table 6, {within2} within +-60 %; RTT grows from 4 to 16 MB: "
            + ", ".join(f"{c} {'yes' if g else 'no'}" for c, g in growth.items())
            + ". The queue lengths were set from these RTTs, so this is a calibration check")
        if all(c in t6 for c in CARRIERS):
            # a mean over no download (a metric without a value in every run)
            # is NaN: NaN compared False and judged the claims below "not
            # reproduced" on no data ("nan% of the segments"); each now uses
            # the values that exist and is not checkable without them (session 27)
            def fin(c: str, s: int, k: str) -> bool:
                return s in t6[c] and math.isfinite(t6[c][s][k])

            sizes6 = [s for s in TABLE6 if all(fin(c, s, "ofo") for c in CARRIERS)]
            # an ordering over no size, a decrease over fewer than 2 sizes:
            # not met (all() of nothing held), and said so
            order = bool(sizes6) and all(t6["sprint"][s]["ofo"] > t6["verizon"][s]["ofo"] > t6["att"][s]["ofo"]
                                         for s in sizes6)
            att = [t6["att"][s]["ofo"] for s in TABLE6 if fin("att", s, "ofo")]
            att_dec = len(att) >= 2 and all(a >= b for a, b in zip(att, att[1:]))
            fac = [t6[c][s]["ofo"] / PAPER_OFO[c][i] for c in CARRIERS for i, s in enumerate(TABLE6) if fin(c, s, "ofo")]
            in15 = sum(1 for f in fac if 1 / 1.5 <= f <= 1.5)
            if not fac:
                v["s002-table6-ofo"] = ("not checkable", "no mean out-of-order delay in any (carrier, 4-32 MB) cell")
            else:
                order_t = ("not checkable (no size with a value for every carrier)" if not sizes6
                           else ("yes" if order else "no")
                           + (f" (at the {len(sizes6)} of {len(TABLE6)} sizes with a value for every carrier)"
                              if len(sizes6) < len(TABLE6) else ""))
                att_t = (f"not checkable ({len(att)} value(s))" if len(att) < 2 else ("yes" if att_dec else "no"))
                v["s002-table6-ofo"] = (grade(order and att_dec and in15 == len(fac), order or att_dec), (
                    f"ordering Sprint > Verizon > AT&T at every size: {order_t}; AT&T decreasing with "
                    f"file size: {att_t} ({', '.join(f'{a:.1f}' for a in att)} ms vs paper "
                    f"30.9, 26.8, 16.7, 13.1); {in15} of {len(fac)} means within a factor 1.5 of Table 6 (ratios "
                    f"{', '.join(f'{f:.2f}' for f in fac)})"))
            # 75 % out of order, 20 % above 150 ms, e2e 200 ms
            sp = [t6["sprint"][s] for s in TABLE6 if s in t6["sprint"]]

            def mean_of(xs: List[float]) -> float:
                xs = [x for x in xs if math.isfinite(x)]
                return float(np.mean(xs)) if xs else float("nan")

            frac = mean_of([x["frac"] for x in sp])
            lte_frac = mean_of([t6[c][s]["frac"] for c in ("att", "verizon") for s in TABLE6 if s in t6[c]])
            if not (math.isfinite(frac) and math.isfinite(lte_frac)):
                v["s002-sprint-75pct-ooo"] = ("not checkable", "no out-of-order fraction of "
                                              + ("Sprint" if not math.isfinite(frac) else "the LTE carriers")
                                              + " in any 4-32 MB download")
            else:
                v["s002-sprint-75pct-ooo"] = (
                    "reproduced" if 0.60 <= frac <= 0.90 and frac > 1.5 * lte_frac else
                    ("partly" if 0.45 <= frac <= 1.0 or frac > lte_frac else "not reproduced"),
                    f"Sprint: {frac:.0%} of the segments arrive out of order at the connection level (4-32 MB, mean over "
                    f"downloads; paper 75 %); LTE carriers {lte_frac:.0%}")
            f150 = mean_of([x["f150"] for x in sp])
            v["s002-sprint-20pct-ofo-over-150ms"] = (
                ("not checkable", "no Sprint 4-32 MB download with an out-of-order wait fraction")
                if not math.isfinite(f150) else
                ("reproduced" if f150 > 0.20 else ("partly" if f150 > 0.10 else "not reproduced"),
                 f"Sprint: {f150:.0%} of the segments wait more than 150 ms in the out-of-order queue (paper: more "
                 "than 20 %)"))
            rtt = mean_of([x["cell"] for x in sp])
            ofo = mean_of([x["ofo"] for x in sp])
            e2e = rtt / 2 + ofo
            v["s002-sprint-e2e-200ms"] = (
                ("not checkable", "no Sprint 4-32 MB download with a " + " or a ".join(
                    w for w, x in (("mean cellular RTT", rtt), ("mean out-of-order delay", ofo)) if not math.isfinite(x)))
                if not math.isfinite(e2e) else
                ("reproduced" if 150 <= e2e <= 250 else ("partly" if e2e > BOUND_MS else "not reproduced"),
                 f"Sprint RTT/2 + mean OFO = {rtt:.0f}/2 + {ofo:.0f} = {e2e:.0f} ms (paper (200/2)+100 = 200 ms); "
                 f"{'above' if e2e > BOUND_MS else 'below'} the 150 ms interactivity bound"))
            xs, ys = [], []
            for c in CARRIERS:
                for s in TABLE6:
                    if s in t6[c]:
                        x, y = t6[c][s]["cell"] - t6[c][s]["wifi"], t6[c][s]["ofo"]
                        if math.isfinite(x) and math.isfinite(y):
                            xs.append(x)
                            ys.append(y)
            from .seed001 import spearman
            rho = spearman(np.array(xs), np.array(ys)) if len(xs) >= 3 else float("nan")
            both = [s for s in TABLE6 if all(fin(c, s, "ofo") and fin(c, s, "cell") and fin(c, s, "wifi")
                                             for c in CARRIERS)]
            per_size = bool(both) and all(
                np.argsort([t6[c][s]["cell"] - t6[c][s]["wifi"] for c in CARRIERS]).tolist()
                == np.argsort([t6[c][s]["ofo"] for c in CARRIERS]).tolist() for s in both)
            if len(xs) < 3:
                v["s002-ofo-from-slow-path"] = (
                    "not checkable", f"{len(xs)} (carrier, size) cell(s) with both an RTT difference and a mean "
                    "out-of-order delay: a rank correlation needs at least 3")
            else:
                v["s002-ofo-from-slow-path"] = (grade(rho > 0 and per_size, rho > 0), (
                    f"Spearman rho(cellular - WiFi RTT, mean OFO delay) over {len(xs)} (carrier, size) cells = "
                    f"{rho:+.2f}; carriers ranked alike by RTT difference and by OFO at every size: "
                    f"{'yes' if per_size else 'no'}"))
    h.append("<h3>Verdicts (seed 002)</h3><ul>" + "".join(
        f"<li class='{e(vv[0].replace(' ', '-'))}'><code>{e(cid)}</code>: <b>{e(vv[0])}</b> (approximate setting): "
        f"{e(vv[1])}</li>" for cid, vv in v.items()) + "</ul>")
    h.append(f"<p class='note'>The {BOUND_MS:.0f} ms interactivity bound (s002-method-interactivity-bound) is the "
             "dashed line of the OFO figure and the threshold of the 'waiting &gt; 150 ms' column.</p>")
    sec.data["table6"] = {c: {str(s): x for s, x in d.items()} for c, d in t6.items()}
    return sec
