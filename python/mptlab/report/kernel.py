"""The kernel beside the simulator: the "on the kernel" part of a seed's
section, from ``DIR/kernel.json`` (written by ``mptlab reproduce SEED
--kernel``; crates/cli/src/reproduce/kernel.rs).

The comparisons (medians, order-statistic intervals, ratio or difference,
PASS/FAIL) are computed in Rust with the criteria of ``mptlab validate``, so
the report and ``validate`` judge alike; this module only renders them. The
verdict is paired: the kernel's runs against the simulator's runs with the
same indices (the same seeds), "sim median, same runs"; the simulator's
median over all its runs is shown beside it ("all runs"), not judged.
Without ``kernel.json`` nothing is added and the report is unchanged.
Only the standard library."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .common import ReportInputError, e, finite, read_json, table

#: cell statuses, in the order the summary names them
STATUSES = ("ran", "failed", "refused", "skipped", "not run")

#: what the report says instead of agree / disagree when a cell's verdict
#: would rest on no data (the seeds' claims say the same, docs/report.md
#: "Session 26: verdicts on no data")
NOT_CHECKABLE = "not checkable"

#: paired runs a judged median needs: the "median" of one kernel run is
#: that run's draw, its spread unknown. The Rust judge says so in its
#: decision (validate/shift.rs `decide`: "one kernel run: its spread is
#: unknown", never `disagree`) but still gives the point verdict; the seeds'
#: own claims need 2 paired runs too (session 26).
MIN_RUNS = 2


def load_kernel(out: Path) -> Optional[Dict[str, Any]]:
    """``DIR/kernel.json``, or None when the kernel did not run. Valid JSON
    of another shape (a key missing, a cell without its seed or status)
    raises :class:`ReportInputError` naming the key, not a traceback."""
    p = Path(out) / "kernel.json"
    if not p.exists():
        return None
    kern = read_json(p, KERNEL_AGAIN)
    bad = _shape(kern)
    if bad:
        raise ReportInputError(f"{p}: key {bad} is missing or of another type; it is not a kernel.json `mptlab "
                               f"reproduce --kernel` wrote: {KERNEL_AGAIN}")
    return kern


def _shape(kern: Any) -> Optional[str]:
    """The first key of `kern` the report reads that is missing or of
    another type (None when there is none)."""
    if not isinstance(kern, dict):
        return "`cells` (the file is not a table)"
    if not isinstance(kern.get("cells"), list):
        return "`cells` (a list of cells)"
    for k in ("criteria", "interval"):
        if not isinstance(kern.get(k), str):
            return f"`{k}` (text)"
    if not isinstance(kern.get("kernel_runs"), int):
        return "`kernel_runs` (a number of runs)"
    for i, c in enumerate(kern["cells"]):
        if not isinstance(c, dict):
            return f"`cells[{i}]` (a table)"
        for k in ("seed", "experiment", "point"):
            if not isinstance(c.get(k), str):
                return f"`cells[{i}].{k}` (text)"
        if c.get("status") not in STATUSES:
            return f"`cells[{i}].status` (one of {', '.join(STATUSES)})"
        ms = c.get("metrics", [])
        if not isinstance(ms, list):
            return f"`cells[{i}].metrics` (a list)"
        for j, m in enumerate(ms):
            if not isinstance(m, dict) or not isinstance(m.get("metric"), str):
                return f"`cells[{i}].metrics[{j}].metric` (text)"
    return None


#: a damaged kernel.json: the kernel runs are in DIR/kernel, judged again by
#: the same pass (they are kept) or by --kernel-from a saved copy
KERNEL_AGAIN = ("run the same `mptlab reproduce ... --kernel` command again (the kernel runs in DIR/kernel are "
                "kept and judged again), or move it away to report without the kernel")


def stale_note(kern: Dict[str, Any], model: Optional[str]) -> List[str]:
    """A warning when kernel.json's verdicts were judged against simulated
    runs of another build than the directory's (`reproduce` run again
    without `--kernel` keeps the older kernel.json)."""
    was = kern.get("model")
    if model is None or was == model:
        return []
    said = f"model sources {was}" if was else "a build that did not record its model sources"
    return [f"<p class='note' id='kernel-stale'><b>The kernel verdicts below were judged against another build "
            f"of the simulator</b> ({e(said)}; this directory's simulated runs: model sources {e(model)}). Judge "
            f"them again against these runs: <code>mptlab reproduce SEED --kernel-from DIR/kernel.json</code> "
            f"into a new directory.</p>"]


def _num(metric: str, v: Optional[float], unit: bool = True) -> str:
    if v is None:
        return "-"
    if metric.startswith("fg_share_path"):
        return f"{100 * v:.1f}" + (" %" if unit else "")
    if metric == "fg_throughput_mbit":
        return f"{v:.3g}" + (" Mbit/s" if unit else "")
    return f"{v:.1f}" + (" ms" if unit else "")


def _median(metric: str, m: Optional[Dict[str, Any]]) -> str:
    """`48.1 ms [45.0, 52.3] (n=3, 75 %)`: median, interval, runs and the
    interval's actual coverage; `-` for a bound or coverage that is not a
    number (NaN is written as null)."""
    if not m or not finite(m.get("median")):
        return "no value"
    s = _num(metric, m["median"])
    n = m.get("n") if isinstance(m.get("n"), int) else 0
    if n > 1:
        lo, hi = (m.get(b) if finite(m.get(b)) else None for b in ("lo", "hi"))
        s += f" [{_num(metric, lo, False)}, {_num(metric, hi, False)}]"
    cov = m.get("coverage")
    return s + f" (n={n}" + (f", {100 * cov:.0f} %)" if n > 1 and finite(cov) else ")")


def metric_gap(m: Dict[str, Any]) -> Optional[str]:
    """Why a compared metric's verdict would rest on no data, or None when
    it does not: a side without a value (every run on it unfinished), fewer
    than MIN_RUNS paired runs (:func:`paired_gap`), an interval whose bounds
    are not numbers, or a comparison the criterion could not make (the Rust
    judge's `info`, e.g. a ratio against a simulated median of 0)."""
    gap = paired_gap(m)
    if gap:
        return gap
    sim, ker = m.get("sim"), m.get("kernel")
    if not all(finite(x.get(b)) for x in (sim, ker) for b in ("lo", "hi")):
        return "no interval (its bounds are not numbers)"
    if m.get("verdict") not in ("PASS", "FAIL"):
        return f"the criterion could not compare the medians (verdict {m.get('verdict')})"
    return None


def paired_gap(m: Dict[str, Any]) -> Optional[str]:
    """Why a compared metric has fewer than MIN_RUNS paired runs (a side
    without a value, or too few runs both sides finished at the same
    indices), or None: the first gaps of :func:`metric_gap`. No decision
    stands on such a row (reproduce/kernel.rs `paired_gap`, the same rule
    and words)."""
    sim, ker = m.get("sim"), m.get("kernel")
    med = lambda x: finite(x.get("median")) if isinstance(x, dict) else False  # noqa: E731
    # the paired medians lack both sides when either does: the side to name
    # is the kernel when none of its runs finished (`kernel_all`)
    if not med(sim) or not med(ker):
        if not med(m.get("kernel_all")) and not med(ker):
            return "no kernel value (no kernel run finished)"
        if not med(sim):
            return "no simulated value (no paired simulated run finished)"
        return "no kernel value (no kernel run finished)"
    n = min(x.get("n") if isinstance(x.get("n"), int) else 0 for x in (sim, ker))
    if n < MIN_RUNS:
        return f"{n} paired run{'' if n == 1 else 's'}: a median of one run has no spread (at least {MIN_RUNS} needed)"
    return None


def row_decision(m: Dict[str, Any]) -> Tuple[Optional[str], str]:
    """A metric row's decision as the report gives it, and why when it is
    "not checkable": the row's `agree` (or no decision, the criterion's
    `info`) on no data (:func:`metric_gap`) is not checkable, as the cell
    (:func:`judged`); so is any decision on fewer than MIN_RUNS paired runs
    (:func:`paired_gap`; session 30: an `undecided` or `disagree` from the
    shift over all runs stood beside a cell not checkable when the simulated
    runs at the kernel's indices did not finish); other `undecided` and
    `disagree` rows (the shift over all runs) stand. kernel.json written
    before session 29 (30) says `agree` (`undecided`, `disagree`) in such a
    row; the Rust judge writes what this gives (reproduce/kernel.rs
    `mark_unjudged`)."""
    d = m.get("decision")
    if m.get("criterion") != "shown only":
        gap = metric_gap(m) if d in (None, "agree", NOT_CHECKABLE) else paired_gap(m)
        if gap:
            return NOT_CHECKABLE, gap
    return d, ""


def judged(c: Dict[str, Any]) -> Tuple[str, str]:
    """A ran cell's verdict as the report gives it, and why when it is "not
    checkable". kernel.json's `agree` / `disagree` stands when every
    compared metric was judged on data (or a metric judged on data failed:
    one failure decides `disagree`); otherwise, and for a cell without
    compared metrics (kernel.json's `no verdict`), it is not checkable,
    with each metric's reason."""
    v = c.get("verdict") or "no verdict"
    ms = [m for m in c.get("metrics") or [] if m.get("criterion") != "shown only"]
    if not ms:
        return NOT_CHECKABLE, c.get("reason") or "no compared metric"
    gaps = [(m, metric_gap(m)) for m in ms]
    if v in ("agree", "disagree") and (all(g is None for _, g in gaps)
                                        or (v == "disagree" and any(g is None and m.get("verdict") == "FAIL"
                                                                    for m, g in gaps))):
        return v, ""
    return NOT_CHECKABLE, "; ".join(f"{m['metric']}: {g}" for m, g in gaps if g) or f"kernel.json says {v}"


def _kernel_runs_ok(c: Dict[str, Any]) -> bool:
    """Every compared metric of `c` has at least MIN_RUNS kernel values
    (a comparison of the kernel with anything needs them)."""
    ms = c.get("metrics") or []
    return bool(ms) and all(isinstance(m.get("kernel"), dict) and (m["kernel"].get("n") or 0) >= MIN_RUNS
                            for m in ms)


def _compared(metric: str, row: Dict[str, Any]) -> str:
    if row.get("ratio") is not None and not metric.startswith("fg_share_path"):
        return f"x{row['ratio']:.3f}"
    if row.get("diff") is not None:
        d = row["diff"]
        return f"{100 * d:+.1f} points" if metric.startswith("fg_share_path") else f"{d:+.3g}"
    return "-"


def _cell_verdict(c: Dict[str, Any]) -> str:
    """`disagree [1 of 5 simulated run(s) did not finish (run 4), ...]`: the
    verdict (:func:`judged`; `not checkable: why` on no data) with how many
    runs of each side did not finish, when any; and for a failing cell what
    its runs decide (kernel.json `decision`, validate/shift.rs): `disagree
    beyond the 95 % interval`, or `undecided (about N more kernel runs):
    why`. A cell not checkable gets no such clause: its `decision` rests on
    the shift over all runs (kernel.json keeps it, reproduce/kernel.rs
    `mark_unjudged`), while the cell stands on fewer than MIN_RUNS paired
    runs or a side without values; the verdict line leaves it out alike
    (:func:`noise_clause`, reproduce/like.rs `decisions`), so the cell read
    "not checkable: ... 1 paired run ...; disagree beyond the 95 % interval"
    (session 30)."""
    v, why = judged(c)
    checkable = v != NOT_CHECKABLE
    v = f"{v}: {why}" if why else v
    u = c.get("unfinished") or {}
    v = f"{v} [{u['note']}]" if u.get("note") else v
    d = c.get("decision") if checkable else None
    if d == "disagree":
        v += "; disagree beyond the 95 % interval"
    elif d == "undecided":
        und = c.get("undecided") or {}
        more = und.get("more_kernel_runs")
        v += (f"; undecided ({'about %d more kernel run%s' % (more, '' if more == 1 else 's') if more is not None else 'not by kernel runs alone'})"
              f": {und.get('why', '')}")
    # reproduce --until-decided (kernel.json `until_decided`, reproduce/until.rs)
    ud = c.get("until_decided") or {}
    if ud.get("runs", 0) != ud.get("runs_before", 0) or (ud and not str(ud.get("stopped", "")).startswith("decided")):
        v += (f"; until decided: {ud.get('runs_before')} -> {ud.get('runs')} kernel runs in "
              f"{ud.get('batches')} batch(es), {ud.get('stopped')}")
    return v


def _shift(metric: str, m: Dict[str, Any]) -> str:
    """`x1.402 [0.950, 2.101] (30 sim, 3 kernel runs), undecided`: the
    Hodges-Lehmann shift over all runs with its interval, and the metric's
    decision (kernel.json `shift`, `decision`)."""
    s = m.get("shift")
    if not s:
        return "-"
    if not all(finite(s.get(k)) for k in ("estimate", "lo", "hi", "coverage")):
        # NaN is written as null: no shift to show, and no decision drawn from it
        return "no interval (its bounds are not numbers)"
    if str(s.get("scale", "")).startswith("ratio"):
        t = f"x{s['estimate']:.3f} [{s['lo']:.3f}, {s['hi']:.3f}]"
    else:
        t = f"{100 * s['estimate']:+.1f} [{100 * s['lo']:+.1f}, {100 * s['hi']:+.1f}] points"
    t += f" ({s['sim_runs']} sim, {s['kernel_runs']} kernel runs, {100 * s['coverage']:.0f} %)"
    d, _ = row_decision(m)
    return t + (f", {d}" if d else "")


def noise_clause(ran: List[Dict[str, Any]]) -> str:
    """`; D disagree beyond their 95 % interval; U undecided (about N more
    kernel runs each, a-b; K not by kernel runs alone)`, as the Rust side
    says it (validate/shift.rs ``clause``); empty for a kernel.json written
    before cells had a `decision`."""
    if not any(isinstance(c.get("decision"), str) for c in ran):
        return ""
    # a cell the rule leaves not checkable is counted there only (its noise
    # decision, e.g. `undecided` on one kernel run, counted it twice)
    ran = [c for c in ran if judged(c)[0] != NOT_CHECKABLE]
    dis = sum(1 for c in ran if c.get("decision") == "disagree")
    more = [(c.get("undecided") or {}).get("more_kernel_runs") for c in ran if c.get("decision") == "undecided"]
    s = f"; {dis} disagree beyond their 95 % interval; {len(more)} undecided"
    if not more:
        return s
    known = sorted(x for x in more if x is not None)
    parts = []
    if known:
        mid = known[(len(known) - 1) // 2]
        parts.append(f"about {mid} more kernel run{'' if mid == 1 else 's'} each" + (f", {known[0]}-{known[-1]}" if known[0] != known[-1]
                                                              else ""))
    if len(known) < len(more):
        parts.append(f"{len(more) - len(known)} not by kernel runs alone")
    return s + f" ({'; '.join(parts)})"


def _subst_text(c: Dict[str, Any]) -> str:
    """`transport.mptcp.scheduler = minrtt -> upstream`: what the kernel ran
    in place of the cell's settings (kernel.json `substituted`)."""
    return ", ".join(f"{s['key']} = {s['scenario']} -> {s['kernel']}" for s in c.get("substituted") or [])


def like_summary(ran: List[Dict[str, Any]]) -> str:
    """What the verdicts compared, as the Rust side says it (reproduce/like.rs
    ``summary``): `N of M cells agree like for like; K cells ran with a
    substitution: ...`, per substitution how many agree like for like and how
    many with the simulator at the seed's settings (the seed's mechanism)."""
    agree = sum(1 for c in ran if judged(c)[0] == "agree")
    s = f"{agree} of {len(ran)} cells agree like for like" + _unjudged_clause(ran)
    sub = [c for c in ran if c.get("substituted")]
    if not sub:
        return s + " (no cell ran with a substitution)" + noise_clause(ran)
    s += noise_clause(ran)
    groups: Dict[str, List[Dict[str, Any]]] = {}
    for c in sub:
        groups.setdefault(_subst_text(c), []).append(c)
    parts = []
    for t, cs in groups.items():
        like = sum(1 for c in cs if judged(c)[0] == "agree")
        # the kernel against the seed's settings: the same kernel runs, so
        # on fewer than MIN_RUNS of them not counted either
        seed = sum(1 for c in cs if (c.get("seed_mechanism") or {}).get("verdict") == "agree" and _kernel_runs_ok(c))
        parts.append(f"{t} ({len(cs)} cells: {like} agree like for like; {seed} agree with the simulator at the "
                     "seed's settings, the seed's mechanism, not agreement)")
    rest = agree - sum(1 for c in sub if judged(c)[0] == "agree")
    return (s + f"; {len(sub)} cells ran with a substitution: " + "; ".join(parts)
            + f"; {rest} of {len(ran) - len(sub)} cells without one agree")


def _unjudged_clause(ran: List[Dict[str, Any]]) -> str:
    """`, 2 not checkable (fewer than 2 paired runs or a side without
    values)`; empty when every cell was judged on data."""
    k = sum(1 for c in ran if judged(c)[0] == NOT_CHECKABLE)
    return (f", {k} not checkable (fewer than {MIN_RUNS} paired runs, a side without values or no compared metric: "
            "the reason beside each cell)" if k else "")


def _mechanism(metric: str, c: Dict[str, Any]) -> str:
    """The seed's settings beside a substituted cell's like-for-like row:
    the simulator's median with the seed's settings, over the same runs, and
    seed / like for like (shares: the difference in points)."""
    for m in (c.get("seed_mechanism") or {}).get("metrics", []):
        if m["metric"] == metric:
            what = _compared(metric, m)
            med = _median(metric, m.get("sim"))
            return f"{med}, seed / like for like {what}" if what != "-" else med
    return "-"


def counts(cells: List[Dict[str, Any]]) -> Dict[str, int]:
    """verdicts.json's counts of one seed's cells: by status, a ran cell by
    its verdict (:func:`judged`), and a failing cell that is checkable also
    by what its runs decide (`ran, decision disagree|undecided`, kernel.json
    `decision`). A cell not checkable is counted there only, as the verdict
    line counts it (:func:`noise_clause`, reproduce/like.rs `decisions`):
    its `decision` rests on the shift over all runs while the cell stands on
    fewer than MIN_RUNS paired runs or a side without values, so before
    session 31 a cell not checkable on one kernel run whose shift said
    `undecided` was counted under `ran, not checkable` and again under
    `ran, decision undecided`."""
    c: Dict[str, int] = {}
    for x in cells:
        k = x["status"] if x["status"] != "ran" else f"ran, {judged(x)[0]}"
        c[k] = c.get(k, 0) + 1
        if k != f"ran, {NOT_CHECKABLE}" and x["status"] == "ran" and x.get("decision") in ("disagree", "undecided"):
            d = f"ran, decision {x['decision']}"
            c[d] = c.get(d, 0) + 1
    return c


def section(seed: str, kern: Dict[str, Any]) -> List[str]:
    """The kernel part of seed `seed`'s section (empty when kernel.json has
    no cell of the seed)."""
    cells = [c for c in kern["cells"] if c["seed"] == seed]
    if not cells:
        return []
    h = [f"<h3 id='seed{seed}-kernel'>Seed {e(seed)} on the Linux kernel</h3>"]
    ran = [c for c in cells if c["status"] == "ran"]
    agree = sum(1 for c in ran if judged(c)[0] == "agree")
    # cells judged on fewer runs than the kernel ran: a simulated or kernel
    # run did not finish (its page or file in the run, its messages); its
    # pair is left out of the medians and the count is said beside the
    # verdict (kernel.json `unfinished`, reproduce/kernel.rs unfinished_of),
    # as the report marks statistics over completed items only
    unf = [c for c in ran if c.get("unfinished")]
    n = {s: sum(1 for c in cells if c["status"] == s) for s in STATUSES}
    subst = [c for c in ran if c.get("substituted")]
    h.append(f"<p>Of {len(cells)} cells (sweep points), the kernel ran <b>{n['ran']}</b> "
             f"({kern['kernel_runs']} run(s) each, one after another in real time): "
             # no cell ran (all failed, refused or skipped): no count of
             # agreeing cells over none
             + (f"<b>{agree} of {n['ran']} agree like for like</b> with the simulator{e(_unjudged_clause(ran))}"
                if ran else "<b>no kernel verdict</b>: not one cell ran on the kernel")
             # the noise-aware clause (with substitutions it is in the line below)
             + (f"<span id='seed{seed}-kernel-decided'>{e(noise_clause(ran))}</span>" if not subst else "")
             # the verdict line without its first clause, said just before
             + (f"; <span id='seed{seed}-kernel-like'>{e(like_summary(ran).split('; ', 1)[1])}</span> (a cell "
                "the kernel ran with a substitution is judged against the simulator with the settings the kernel "
                "ran, the same runs; the simulator with the seed's settings is shown beside it as the seed's "
                "mechanism, not as agreement)" if subst else "")
             + (f" ({len(unf)} of them with runs that did not finish on one side: judged on the runs both "
                "finished, the count beside the cell's verdict)" if unf else "")
             + f". {n['refused']} cannot run on the kernel, {n['failed']} failed"
             + (f", {n['skipped']} were left out by --kernel-only" if n["skipped"] else "")
             + (f", {n['not run']} were not run (stopped)" if n["not run"] else "")
             + f". Criteria: {e(kern['criteria'])}. Intervals: {e(kern['interval'])}."
             + (f" Pairing: {e(kern['pairing'])}." if kern.get("pairing") else "")
             + (f" Decision: {e(kern['decision'])}." if kern.get("decision") else "")
             + (f" Until decided (at most {e(str(kern['until_decided'].get('max')))} kernel runs per cell, "
                f"{e(str(kern['until_decided'].get('added_runs')))} added): {e(kern['until_decided'].get('rule', ''))}."
                if kern.get("until_decided") else "")
             + (f" Re-judged: the kernel runs saved in {e(kern['rejudged_from'])} against these simulated runs"
                " (reproduce --kernel-from)." if kern.get("rejudged_from") else "") + "</p>")
    if ran:
        rows = []
        for c in ran:
            for i, m in enumerate(c.get("metrics", [])):
                metric = m["metric"]
                verdict = _cell_verdict(c) if i == 0 else ""
                if i == 0 and c.get("substituted"):
                    verdict += f" (like for like: {_subst_text(c)})"
                gap = metric_gap(m) if m.get("criterion") != "shown only" else None
                row = [c["experiment"].split("/")[-1] if i == 0 else "", c["point"] if i == 0 else "",
                       metric, _median(metric, m.get("sim")), _median(metric, m.get("kernel")),
                       _compared(metric, m),
                       f"{NOT_CHECKABLE}: {gap} ({m.get('criterion')})" if gap else f"{m.get('verdict')} ({m.get('criterion')})",
                       _median(metric, m["sim_all"]) if m.get("sim_all") else "-", _shift(metric, m), verdict]
                rows.append(row + ([_mechanism(metric, c)] if subst else []))
            if not c.get("metrics"):
                rows.append([c["experiment"].split("/")[-1], c["point"], "-", "-", "-", "-",
                             c.get("reason", ""), "-", "-", _cell_verdict(c)]
                            + (["-"] if subst else []))
        # with substitutions: the judged simulator median is the kernel's
        # settings' (like for like), the seed's settings in the last column
        h.append(table(["file", "point", "metric", "sim median, same runs", "kernel median", "kernel vs sim",
                        "verdict (criterion)", "sim median, all runs",
                        "shift kernel vs sim, all runs [95 % interval], decision", "cell"]
                       + (["seed's mechanism: sim at the seed's settings, same runs (not judged)"] if subst else []),
                       rows, f"id='seed{seed}-kernel-table'"))
    differ: Dict[str, List[Dict[str, Any]]] = {}
    for c in ran:
        if c.get("differs"):
            differ.setdefault(c["differs"], []).append(c)
    if differ:
        # cells the kernel ran with another send path than the simulated one
        # (`mptlab_emu::run::differs`): their verdict compares different models
        h.append(f"<p>Cells the kernel ran differently from the scenario ({sum(map(len, differ.values()))}):</p>"
                 f"<ul id='seed{seed}-kernel-differs'>")
        for why, cs in differ.items():
            pts = "".join(f"<li><code>{e(c['experiment'].split('/')[-1])}</code>: {e(c['point'])} "
                          f"({e(judged(c)[0])})</li>" for c in cs)
            h.append(f"<li>{e(why)} <details><summary>{len(cs)} cell(s)</summary><ul>{pts}</ul></details></li>")
        h.append("</ul>")
    failed = [c for c in cells if c["status"] in ("failed", "not run")]
    if failed:
        h.append("<p><b>Cells without a kernel result</b> (a failed cell is not averaged away):</p>")
        h.append(table(["file", "point", "status", "why"],
                       [[c["experiment"].split("/")[-1], c["point"], c["status"], c.get("reason", "")]
                        for c in failed], f"id='seed{seed}-kernel-failed'"))
    refused = [c for c in cells if c["status"] == "refused"]
    if refused:
        by: Dict[str, List[Dict[str, Any]]] = {}
        for c in refused:
            by.setdefault(c.get("reason", ""), []).append(c)
        h.append(f"<p>Cells the kernel cannot run ({len(refused)}), by reason:</p><ul id='seed{seed}-kernel-refused'>")
        for reason, cs in by.items():
            pts = "".join(f"<li><code>{e(c['experiment'].split('/')[-1])}</code>: {e(c['point'])}</li>" for c in cs)
            h.append(f"<li>{e(reason)} <details><summary>{len(cs)} cell(s)</summary><ul>{pts}</ul></details></li>")
        h.append("</ul>")
    return h


def verdicts(kern: Dict[str, Any]) -> Dict[str, Any]:
    """The kernel's part of verdicts.json: per seed the counts by status and
    verdict."""
    seeds = sorted({c["seed"] for c in kern["cells"]})
    return {s: counts([c for c in kern["cells"] if c["seed"] == s]) for s in seeds}
