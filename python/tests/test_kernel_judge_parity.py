"""Session 28: the report's kernel judge (report/kernel.py `judged`) and the
Rust judge that writes kernel.json (crates/cli/src/reproduce/kernel.rs
`cell_judgement`) give the same verdict and reason for the same cell. The
cases (python/tests/data/kernel-judge-cases.json) hold the rows the Rust
code writes for them (its test checks that); here they are judged as
kernel.json written before session 28 gave them (its verdict beside them,
e.g. `agree` on one kernel run) and as it writes them now."""

import json
from pathlib import Path

from mptlab.report.kernel import counts, judged, like_summary, noise_clause, row_decision, section

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
        "1 of 8 cells agree like for like, 6 not checkable (fewer than 2 paired runs, a side without values or "
        "no compared metric: the reason beside each cell) (no cell ran with a substitution)"), like_summary(cells)


def _old_rows(case):
    """The case's rows as kernel.json wrote them before session 29: the
    point verdict's decision (`agree` on one paired run), no reason, no
    `shift_decision` (session 30)."""
    rows = []
    for r, (_, d) in zip(case["rows"], case["row_decisions_before_session29"]):
        r = {k: v for k, v in r.items() if k not in ("decision", "reason", "shift_decision")}
        if d is not None:
            r["decision"] = d
        rows.append(r)
    return rows


def test_a_row_s_decision_follows_the_cell_s_rule() -> None:
    # session 29: the rows the Rust side writes now and the rows it wrote
    # before read the same in the report (reproduce/kernel.rs mark_unjudged)
    for case in CASES:
        want = [(m, d, r or "") for m, d, r in case["row_decisions"]]
        for rows in (case["rows"], _old_rows(case)):
            assert [(r["metric"], *row_decision(r)) for r in rows] == want, case["name"]


def test_the_report_never_shows_agree_in_a_row_on_one_run() -> None:
    # the shift column said ", agree" beside a verdict "not checkable: 1 paired run"
    case = next(c for c in CASES if c["name"].startswith("one kernel run, within"))
    cell = dict(_cell(case, "agree"), metrics=_old_rows(case))
    html = "".join(section("000", {"cells": [cell], "criteria": "c", "interval": "i", "kernel_runs": 1}))
    assert "kernel runs, 50 %), not checkable" in html, html
    assert "kernel runs, 50 %), agree" not in html


def test_the_report_never_shows_a_decision_in_a_row_on_one_paired_run() -> None:
    # session 30: 3 kernel runs whose simulated runs 1 and 2 did not finish:
    # the row said "disagree" (the shift over all runs) beside a cell "not
    # checkable: 1 paired run"; a file written before reads the same now.
    # The cell's `decision` is `disagree`, as the Rust judge writes it for
    # this case (drawn from the row's `shift_decision`): the cell column
    # added "; disagree beyond the 95 % interval" to "not checkable: ..."
    case = next(c for c in CASES if c["name"].startswith("3 kernel runs, 2 of their simulated runs unfinished: 1 "
                                                          "paired run outside"))
    why = "1 paired run: a median of one run has no spread (at least 2 needed)"
    for rows in (case["rows"], _old_rows(case)):
        assert [row_decision(r) for r in rows] == [("not checkable", why)]
        cell = dict(_cell(case, "not checkable"), metrics=rows, decision="disagree")
        html = "".join(section("000", {"cells": [cell], "criteria": "c", "interval": "i", "kernel_runs": 3}))
        assert "), not checkable" in html, html
        # the cell column: the verdict and its reason, no decision
        assert f"<td>not checkable: delay_ms_median: {why}</td>" in html, html
        # no decision words for the cell anywhere: not in its row, its cell,
        # nor counted in the verdict line (which counts it as not checkable)
        for words in ("), disagree", "), undecided", "disagree beyond the 95 % interval", "undecided (",
                      "1 disagree", "1 undecided"):
            assert words not in html, (words, html)
        assert "1 not checkable" in html and "; 0 disagree beyond their 95 % interval; 0 undecided" in html, html


def test_a_not_checkable_cell_is_counted_once() -> None:
    # session 29: "26 not checkable ...; 1 undecided" of 26 cells: a cell not
    # checkable on one kernel run also counted by its noise decision (the Rust
    # line, reproduce/like.rs `summary`, alike)
    case = next(c for c in CASES if c["name"].startswith("one kernel run, within"))
    cell = dict(_cell(case, "not checkable"), decision="undecided", undecided={"more_kernel_runs": 20})
    s = like_summary([cell])
    assert s.startswith("0 of 1 cells agree like for like, 1 not checkable"), s
    assert s.endswith("; 0 disagree beyond their 95 % interval; 0 undecided"), s


def test_verdicts_json_counts_a_not_checkable_cell_once() -> None:
    # session 31: verdicts.json (`counts`) counted a cell not checkable under
    # `ran, not checkable` and again under `ran, decision ...`, its noise
    # decision drawn from the shift over all runs (the fixture's `decision`,
    # which the Rust judge writes for these cells: kernel.rs
    # `the_verdict_line_counts_them_not_checkable`); the verdict lines, the
    # Rust one and the report's, count it as not checkable only
    cells = [dict(_cell(c, c["verdict"]), decision=c["decision"]) for c in CASES]
    assert [c["decision"] for c in cells if judged(c)[0] == "not checkable"].count("disagree") == 1
    n = counts(cells)
    assert n == {"ran, not checkable": 6, "ran, agree": 1, "ran, disagree": 1, "ran, decision undecided": 1}, n
    # what the verdict line says of the decisions is what verdicts.json counts
    clause = noise_clause(cells)
    assert clause.startswith(f"; {n.get('ran, decision disagree', 0)} disagree beyond their 95 % interval; "
                             f"{n.get('ran, decision undecided', 0)} undecided"), clause
    assert noise_clause(cells) in like_summary(cells)
    html = "".join(section("000", {"cells": cells, "criteria": "c", "interval": "i", "kernel_runs": 3}))
    assert "6 not checkable" in html and "; 0 disagree beyond their 95 % interval; 1 undecided" in html, html
