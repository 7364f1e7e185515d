"""Session 28: the report's kernel judge (report/kernel.py `judged`) and the
Rust judge that writes kernel.json (crates/cli/src/reproduce/kernel.rs
`cell_judgement`) give the same verdict and reason for the same cell. The
cases (python/tests/data/kernel-judge-cases.json) hold the rows the Rust
code writes for them (its test checks that); here they are judged as
kernel.json written before session 28 gave them (its verdict beside them,
e.g. `agree` on one kernel run) and as it writes them now."""

import json
from pathlib import Path

from mptlab.report.kernel import judged, like_summary

CASES = json.loads((Path(__file__).parent / "data" / "kernel-judge-cases.json").read_text())["cases"]


def _cell(case, verdict):
    return {"seed": "000", "experiment": "seed000/x", "point": "p", "point_id": "p", "status": "ran",
            "verdict": verdict, "metrics": case["rows"]}


def test_the_report_judges_as_the_rust_side() -> None:
    for case in CASES:
        want = (case["verdict"], case["reason"] or "")
        for v in (case["verdict_before_session28"], case["verdict"]):
            assert judged(_cell(case, v)) == want, (case["name"], v)


def test_the_verdict_lines_count_alike() -> None:
    # the Rust stderr line (reproduce/like.rs `summary`) and the report's
    # (`like_summary`) start the same way on these cells
    cells = [_cell(c, c["verdict"]) for c in CASES]
    assert like_summary(cells).startswith(
        "1 of 6 cells agree like for like, 4 not checkable (fewer than 2 paired runs, a side without values or "
        "no compared metric: the reason beside each cell) (no cell ran with a substitution)"), like_summary(cells)
