"""HTML report of ``mptlab reproduce``: ``python -m mptlab.report DIR``.

Reads ``DIR/reproduce.json`` (written by ``mptlab reproduce``) and the
``summary.json`` of every sweep under ``DIR/runs/``; each seed with runs
contributes a section (module ``seedNNN``: the paper's comparisons, figures
and the verdicts of its claims in ``docs/claims/claims.toml``). Writes
``DIR/report.html``, its figures in ``DIR/figures/`` and every verdict in
``DIR/verdicts.json``. The rules are in docs/report.md and
docs/claims/README.md; only the standard library, numpy and matplotlib are
used (no compiled mptlab module needed).

Before any section is written, the runs and the claims are checked against
the experiment registry ``scenarios/registry/experiments.toml`` (module
:mod:`.expect`); afterwards, every claim whose experiments all ran must have a
verdict. A failed check raises :class:`RegistryError` (exit 2 from ``main``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from . import common
from .common import (BOOTSTRAP, CSS, THRESHOLD, ReportInputError, Section, categorize, claims_file,
                     direction_verdict, e, equivalence_verdict, guard, load_claims, load_manifest, load_runs, paired_r, table, track,
                     unfinished_phrase, unfinished_rows)
from .expect import RegistryError, check_modules, check_sweeps, check_verdicts, load_checked
from .kernel import load_kernel
from .kernel import section as kernel_section
from .kernel import stale_note as kernel_stale_note
from .kernel import verdicts as kernel_verdicts

__all__ = ["generate", "main", "THRESHOLD", "BOOTSTRAP", "categorize", "paired_r", "direction_verdict",
           "equivalence_verdict", "SEEDS", "RegistryError"]

#: seed -> (module, title); a seed's section is written when its runs are present
SEEDS = {
    "000": "seed000",
    "001": "seed001",
    "002": "seed002",
    "003": "seed003",
    "004": "seed004",
}


def _module(seed: str):
    try:
        return importlib.import_module(f".{SEEDS[seed]}", __name__)
    except ModuleNotFoundError:
        return None


def _needs(claim: Dict[str, Any], ran: set) -> str:
    """The registered experiments a claim reads that have no runs here."""
    miss = [k for k in claim.get("experiments", []) if k not in ran]
    return f" (no runs of {e(', '.join(miss))})" if miss else ""


def _section(seed: str, manifest: Dict[str, Any], seed_runs: List[Any], claims: List[Dict[str, Any]],
             figdir: Path) -> Section:
    """One seed's section, its figures written to `figdir`."""
    mod = _module(seed)
    with track() as led:
        sec = mod.section(manifest, seed_runs, claims, figdir)
    # a section that does not mark its verdicts claim by claim gets
    # every verdict marked with what the whole section read
    if not getattr(mod, "MARKS_UNFINISHED", False):
        sec.verdicts = {k: guard(v, led) for k, v in sec.verdicts.items()}
    return sec


def _sections(todo: List[Tuple[str, List[Any]]], manifest: Dict[str, Any], claims: List[Dict[str, Any]],
              figdir: Path, jobs: int) -> Dict[str, Section]:
    """The seeds' sections, in `todo`'s order. With jobs > 1 they are written
    by that many worker processes (drawing and saving the figures is most of
    the report's time, and a section depends on its own runs only; each
    section's bootstrap seeds its own generator, so the results do not depend
    on which process wrote it). Started largest first (by runs)."""
    if jobs <= 1 or len(todo) <= 1:
        # one section (`reproduce 000`): its figures are drawn by `jobs`
        # processes instead (common.draw_figures)
        common.FIGURE_JOBS = max(1, jobs)
        try:
            return {seed: _section(seed, manifest, seed_runs, claims, figdir) for seed, seed_runs in todo}
        finally:
            common.FIGURE_JOBS = 1
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # fork: the children inherit the loaded runs instead of unpickling them
    ctx = multiprocessing.get_context("fork")
    order = sorted(todo, key=lambda t: -len(t[1]))
    with ProcessPoolExecutor(max_workers=min(jobs, len(todo)), mp_context=ctx) as pool:
        futs = {seed: pool.submit(_section, seed, manifest, seed_runs, claims, figdir) for seed, seed_runs in order}
        return {seed: futs[seed].result() for seed, _ in todo}


#: the per-run metrics whose absence in every run of a point leaves a
#: claim over it without data (completion times and delays exist only for
#: what completed; goodput and shares are missing when nothing was received)
VALUED = ("completion_time_ms", "delay_ms_mean", "delay_ms_median", "delay_ms_p95", "fg_throughput_mbit",
          "fg_share_path1", "fg_share_path2")


def _valueless(runs: List[Any]) -> Dict[str, str]:
    """experiment (`seedNNN/stem`) -> `metric at point (values)`, the first
    point of it whose runs all carry `metric` without a finite value."""
    acc: Dict[Tuple[str, str], Dict[str, bool]] = {}
    for r in runs:
        pt = acc.setdefault((f"seed{r.seed}/{r.stem}", ", ".join(f"{a}={b}" for a, b in sorted(r.values.items()))), {})
        for m in VALUED:
            if m in r.metrics:
                pt[m] = pt.get(m, False) or common.finite(r.metrics[m])
    out: Dict[str, str] = {}
    for (x, point), has in sorted(acc.items()):
        none = [m for m, ok in has.items() if not ok]
        if none and x not in out:
            out[x] = f"{', '.join(none)} at point ({point})"
    return out


def generate(out: Path, claims_path: Optional[Path] = None, registry: Optional[Path] = None,
             jobs: int = 1) -> Path:
    """Write out/report.html (and out/figures/*.png, out/verdicts.json); return its path.
    `jobs`: processes writing the seeds' sections (see :func:`_sections`).
    `registry`: the experiment registry (default: the repository's
    scenarios/registry/experiments.toml); raises RegistryError when the runs,
    the claims or the library disagree with it."""
    out = Path(out)
    manifest = load_manifest(out)
    claims_path = claims_file(claims_path)
    claims = load_claims(claims_path)
    # the registry reproduce ran from (reproduce.json), unless given
    if registry is None and manifest.get("registry") and Path(manifest["registry"]).exists():
        registry = Path(manifest["registry"])
    reg = load_checked(registry, claims, claims_path)
    ran = check_sweeps(reg, out, manifest)
    check_modules(reg, {s: m for s in SEEDS if (m := _module(s)) is not None})
    runs = load_runs(out, manifest)
    figdir = out / "figures"
    figdir.mkdir(exist_ok=True)
    seeds: List[str] = list(manifest["seeds"])
    todo = [(seed, [r for r in runs if r.seed == seed]) for seed in seeds if _module(seed) is not None]
    todo = [(seed, seed_runs) for seed, seed_runs in todo if seed_runs]
    sections = _sections(todo, manifest, claims, figdir, jobs)

    title = f"mptlab reproduce: seed {', '.join(seeds)}"
    h: List[str] = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{e(title)}</title>"
                    f"<style>{CSS}</style></head><body>", f"<h1>{e(title)}</h1>"]
    mode = "QUICK pass (not the paper's run counts or duration)" if manifest.get("quick") else "full run counts of the library"
    h.append(f"<p>Mode: <b>{e(mode)}</b>; runs override: {e(manifest.get('runs_override'))}; duration override: "
             f"{e(manifest.get('duration_override_s'))} s; sweeps: {len(manifest['sweeps'])}; "
             f"sweep wall time {manifest.get('sweep_wall_s', 0):.1f} s with {e(manifest.get('jobs'))} job(s); "
             f"{len(runs)} runs in total. Made by mptlab {e(manifest.get('mptlab_version', 'unknown'))}, "
             f"model sources {e(manifest.get('model', 'not recorded'))} (<code>mptlab --version</code>).</p>")
    # unfinished work: every (file, point) where a transfer did not finish or
    # a message was not delivered by the end of its run (issue 12 item 3)
    unf = unfinished_rows(runs)
    n_t = sum(r.transfers_unfinished for r in runs)
    n_m = sum(r.messages_undelivered for r in runs)
    h.append("<h2 id='unfinished'>Unfinished work</h2>")
    if unf:
        h.append(f"<p><b>{unfinished_phrase(n_t, n_m)}</b> by the end "
                 f"of their run, in {len(unf)} sweep point(s). Completion times and message delays exist only for "
                 "what completed: every statistic over them says over how many of how many items it was computed "
                 "(<i>n=27 of 30 finished</i>), and a verdict resting on completion times with unfinished transfers "
                 "left out is at most <b>partly</b>. A few video frames or game packets still in flight when a run "
                 "ends are normal; many, or an unfinished file or page, mean the run was too short or a flow "
                 "stalled.</p>")
        h.append(table(["seed", "file", "point", "runs", "runs with unfinished transfers", "transfers unfinished",
                        "messages undelivered"], unf[:200], "id='unfinished-table'"))
        if len(unf) > 200:
            h.append(f"<p class='note'>... and {len(unf) - 200} more points (verdicts.json has all).</p>")
    else:
        h.append("<p>Every transfer finished and every message was delivered before the end of its run.</p>")
    if len(sections) > 1:
        h.append("<p>Sections: " + ", ".join(f"<a href='#seed{s}'>seed {s}</a>" for s in sections)
                 + ", <a href='#claims'>claims</a>.</p>")
    # the kernel beside the simulator (reproduce --kernel): after each seed's section
    kern = load_kernel(out)
    if kern is not None:
        h.extend(kernel_stale_note(kern, manifest.get("model")))
    for seed, sec in sections.items():
        h.extend(sec.html)
        if kern is not None:
            h.extend(kernel_section(seed, kern))

    # claims of every seed in this report, with the verdicts the sections gave
    rows: List[Tuple[Dict[str, Any], str, str]] = []
    counts: Dict[str, int] = {}
    # experiments none of whose points has 2 runs
    per_point: Dict[Tuple[str, str], int] = {}
    for r in runs:
        k = (f"seed{r.seed}/{r.stem}", json.dumps(r.values, sort_keys=True))
        per_point[k] = per_point.get(k, 0) + 1
    most: Dict[str, int] = {}
    for (x, _), n in per_point.items():
        most[x] = max(most.get(x, 0), n)
    single = {x for x, n in most.items() if n < 2}
    valueless = _valueless(runs)
    for cl in claims:
        if cl.get("seed") not in seeds:
            continue
        # a seed's own section judges its claims; a claim restating another
        # seed's finding may be judged by that seed's section
        res = next((sec.verdicts[cl["id"]] for sec in sections.values() if cl["id"] in sec.verdicts), None)
        if not cl.get("verdict_bearing", True):
            res = ("method", "applied by the report, no verdict")
        elif cl.get("fidelity") == "not-modelled":
            res = ("not checkable", "not modelled in mptlab: " + cl.get("notes", ""))
        if res is None and cl.get("experiments") and set(cl["experiments"]) <= ran \
                and any(k in single for k in cl["experiments"]):
            # `reproduce --runs 1`: the sections compare paired runs, and a
            # claim left unjudged would otherwise stop the report as a
            # misnamed experiment (check_verdicts below; session 26)
            few = [k for k in cl["experiments"] if k in single]
            res = ("not checkable", "1 run per sweep point in " + ", ".join(few[:3])
                   + (f" and {len(few) - 3} more" if len(few) > 3 else "")
                   + " (reproduce --runs 1): its comparisons need at least 2")
        if res is None and cl.get("experiments") and set(cl["experiments"]) <= ran \
                and any(k in valueless for k in cl["experiments"]):
            # every run of a point without a value of a metric (a transfer
            # that finished in none of them, no message delivered): the
            # section had nothing to judge. Was check_verdicts' "look for
            # these runs under another name?", exit 2 (session 27)
            x = next(k for k in cl["experiments"] if k in valueless)
            res = ("not checkable", f"no value in any run of {valueless[x]} in {x} (work that did not finish; "
                   "see Unfinished work): the claim's comparisons had nothing to compare")
        if res is None:
            continue  # not covered by the runs of this slice; listed below
        counts[res[0]] = counts.get(res[0], 0) + 1
        rows.append((cl, res[0], res[1]))
    total = sum(1 for c in claims if c.get("seed") in seeds)
    h.append(f"<h2 id='claims'>Claims</h2><p>{len(rows)} of {total} claims of seed(s) "
             f"{e(', '.join(seeds))} are covered by these runs: "
             + ", ".join(f"{e(k)}: {n}" for k, n in sorted(counts.items()))
             + ". The others need traffic, scenarios or tests not in this slice yet.</p>")
    h.append("<table id='claims-table'><tr><th>claim</th><th>kind</th><th>verdict</th><th>numbers</th><th>expected</th></tr>")
    for cl, v, detail in rows:
        appr = " (approximate setting)" if cl.get("fidelity") == "approximate" else ""
        h.append(f"<tr class='{e(v.replace(' ', '-'))}'><td>{e(cl['id'])}</td><td>{e(cl['kind'])}</td>"
                 f"<td>{e(v + appr)}</td><td>{e(detail)}</td><td>{e(cl.get('expected', ''))}</td></tr>")
    h.append("</table>")
    covered = {cl["id"] for cl, _, _ in rows}
    # a claim whose experiments all ran but which no section judged: a report
    # module looked for its runs under another name
    check_verdicts((c for c in claims if c.get("seed") in seeds), claims_path, ran, covered)
    rest = [c for c in claims if c.get("seed") in seeds and c["id"] not in covered]
    if rest:
        h.append(f"<details><summary>{len(rest)} claims not covered by these runs</summary><ul>"
                 + "".join(f"<li><code>{e(c['id'])}</code>: {e(c.get('compare', ''))}{_needs(c, ran)}</li>" for c in rest)
                 + "</ul></details>")
    h.append("<p class='note'>Generated by <code>python -m mptlab.report</code>; rules in docs/report.md and "
             "docs/claims/README.md.</p></body></html>")
    path = out / "report.html"
    path.write_text("\n".join(h))
    verdicts = {"cells": sections["000"].data.get("cells", []) if "000" in sections else [],
                "seeds": {s: sec.data for s, sec in sections.items() if s != "000"},
                "claims": [{"id": cl["id"], "verdict": v, "detail": d} for cl, v, d in rows],
                "unfinished": {"transfers_unfinished": n_t, "messages_undelivered": n_m,
                               "points": [dict(zip(["seed", "file", "point", "runs", "runs_with_unfinished_transfers",
                                                    "transfers_unfinished", "messages_undelivered"], r))
                                          for r in unf]}}
    if kern is not None:
        verdicts["kernel"] = kernel_verdicts(kern)
    (out / "verdicts.json").write_text(json.dumps(verdicts, indent=1))
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mptlab.report",
                                 description="HTML report of an `mptlab reproduce` output directory")
    ap.add_argument("dir")
    ap.add_argument("--claims", type=Path, help="claims.toml (default: docs/claims/claims.toml of the repository)")
    ap.add_argument("--registry", type=Path,
                    help="experiment registry (default: scenarios/registry/experiments.toml of the repository)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="processes writing the seeds' sections and figures (mptlab reproduce passes its --jobs)")
    a = ap.parse_args(argv)
    if a.jobs < 1:
        print(f"error: --jobs {a.jobs}: expected a number of processes >= 1", file=sys.stderr)
        return 2
    d = Path(a.dir)
    if not (d / "reproduce.json").exists():
        print(f"error: {d}: no reproduce.json (run `mptlab reproduce ... --out {d}` first)", file=sys.stderr)
        return 2
    try:
        p = generate(d, a.claims, a.registry, a.jobs)
    except (RegistryError, ReportInputError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {p}")
    return 0
