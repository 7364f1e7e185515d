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
from typing import Any, Dict, List, Optional

from .common import e, read_json, table

#: cell statuses, in the order the summary names them
STATUSES = ("ran", "failed", "refused", "skipped", "not run")


def load_kernel(out: Path) -> Optional[Dict[str, Any]]:
    """``DIR/kernel.json``, or None when the kernel did not run."""
    p = Path(out) / "kernel.json"
    return read_json(p, KERNEL_AGAIN) if p.exists() else None


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
    interval's actual coverage."""
    if not m:
        return "no value"
    s = _num(metric, m["median"])
    if m["n"] > 1:
        s += f" [{_num(metric, m['lo'], False)}, {_num(metric, m['hi'], False)}]"
    return s + f" (n={m['n']}" + (f", {100 * m['coverage']:.0f} %)" if m["n"] > 1 else ")")


def _compared(metric: str, row: Dict[str, Any]) -> str:
    if row.get("ratio") is not None and not metric.startswith("fg_share_path"):
        return f"x{row['ratio']:.3f}"
    if row.get("diff") is not None:
        d = row["diff"]
        return f"{100 * d:+.1f} points" if metric.startswith("fg_share_path") else f"{d:+.3g}"
    return "-"


def _cell_verdict(c: Dict[str, Any]) -> str:
    """`disagree [1 of 5 simulated run(s) did not finish (run 4), ...]`: the
    verdict with how many runs of each side did not finish, when any; and
    for a failing cell what its runs decide (kernel.json `decision`,
    validate/shift.rs): `disagree beyond the 95 % interval`, or `undecided
    (about N more kernel runs): why`."""
    v = c.get("verdict", "")
    u = c.get("unfinished") or {}
    v = f"{v} [{u['note']}]" if u.get("note") else v
    d = c.get("decision")
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
    if s["scale"].startswith("ratio"):
        t = f"x{s['estimate']:.3f} [{s['lo']:.3f}, {s['hi']:.3f}]"
    else:
        t = f"{100 * s['estimate']:+.1f} [{100 * s['lo']:+.1f}, {100 * s['hi']:+.1f}] points"
    t += f" ({s['sim_runs']} sim, {s['kernel_runs']} kernel runs, {100 * s['coverage']:.0f} %)"
    return t + (f", {m['decision']}" if m.get("decision") else "")


def noise_clause(ran: List[Dict[str, Any]]) -> str:
    """`; D disagree beyond their 95 % interval; U undecided (about N more
    kernel runs each, a-b; K not by kernel runs alone)`, as the Rust side
    says it (validate/shift.rs ``clause``); empty for a kernel.json written
    before cells had a `decision`."""
    if not any(isinstance(c.get("decision"), str) for c in ran):
        return ""
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
    agree = sum(1 for c in ran if c.get("verdict") == "agree")
    s = f"{agree} of {len(ran)} cells agree like for like"
    sub = [c for c in ran if c.get("substituted")]
    if not sub:
        return s + " (no cell ran with a substitution)" + noise_clause(ran)
    s += noise_clause(ran)
    groups: Dict[str, List[Dict[str, Any]]] = {}
    for c in sub:
        groups.setdefault(_subst_text(c), []).append(c)
    parts = []
    for t, cs in groups.items():
        like = sum(1 for c in cs if c.get("verdict") == "agree")
        seed = sum(1 for c in cs if (c.get("seed_mechanism") or {}).get("verdict") == "agree")
        parts.append(f"{t} ({len(cs)} cells: {like} agree like for like; {seed} agree with the simulator at the "
                     "seed's settings, the seed's mechanism, not agreement)")
    rest = agree - sum(1 for c in sub if c.get("verdict") == "agree")
    return (s + f"; {len(sub)} cells ran with a substitution: " + "; ".join(parts)
            + f"; {rest} of {len(ran) - len(sub)} cells without one agree")


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
    c: Dict[str, int] = {}
    for x in cells:
        k = x["status"] if x["status"] != "ran" else f"ran, {x.get('verdict', 'no verdict')}"
        c[k] = c.get(k, 0) + 1
        # what a failing cell's runs decide (kernel.json `decision`)
        if x["status"] == "ran" and x.get("decision") in ("disagree", "undecided"):
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
    agree = sum(1 for c in ran if c.get("verdict") == "agree")
    # cells judged on fewer runs than the kernel ran: a simulated or kernel
    # run did not finish (its page or file in the run, its messages); its
    # pair is left out of the medians and the count is said beside the
    # verdict (kernel.json `unfinished`, reproduce/kernel.rs unfinished_of),
    # as the report marks statistics over completed items only
    unf = [c for c in ran if c.get("unfinished")]
    n = {s: sum(1 for c in cells if c["status"] == s) for s in STATUSES}
    subst = [c for c in ran if c.get("substituted")]
    h.append(f"<p>Of {len(cells)} cells (sweep points), the kernel ran <b>{n['ran']}</b> "
             f"({kern['kernel_runs']} run(s) each, one after another in real time): <b>{agree} of {n['ran']} "
             f"agree like for like</b> with the simulator"
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
                row = [c["experiment"].split("/")[-1] if i == 0 else "", c["point"] if i == 0 else "",
                       metric, _median(metric, m["sim"]), _median(metric, m["kernel"]),
                       _compared(metric, m), f"{m['verdict']} ({m['criterion']})",
                       _median(metric, m["sim_all"]) if m.get("sim_all") else "-", _shift(metric, m), verdict]
                rows.append(row + ([_mechanism(metric, c)] if subst else []))
            if not c.get("metrics"):
                rows.append([c["experiment"].split("/")[-1], c["point"], "-", "-", "-", "-",
                             c.get("reason", ""), "-", "-", c.get("verdict", "no verdict")]
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
                          f"({e(c.get('verdict', ''))})</li>" for c in cs)
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
