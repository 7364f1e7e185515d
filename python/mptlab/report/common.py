"""What every seed's report section shares: loading the runs of an
``mptlab reproduce`` directory, the claims catalogue, the paired bootstrap
and the verdict rules of docs/claims/README.md, and HTML helpers.

Only the standard library and numpy; matplotlib is imported where a figure
is drawn."""

from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

try:
    import tomllib  # Python >= 3.11
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore

import numpy as np

#: significance threshold S between "slight" and "significant" (relative)
THRESHOLD = 0.10
#: bootstrap resamples for the 95 % CI of r
BOOTSTRAP = 10_000
#: equivalence margin of "no change" claims
TAU = 0.10

CATS = ["significant-degradation", "no-change", "slight-improvement", "significant-improvement"]
ABBR = {"significant-improvement": "SI", "slight-improvement": "sI", "no-change": "NC",
        "significant-degradation": "SD", None: "-"}
COLOR = {"SI": "#1a9850", "sI": "#a6d96a", "NC": "#fee08b", "SD": "#d73027", "-": "#eeeeee"}

#: a claim's verdict and the numbers behind it
Verdict = Tuple[str, str]


# ---------------------------------------------------------------- loading

@dataclass
class Run:
    """One run of one sweep point: which seed's library and file it came
    from, the point's axis values and the run's summary metrics."""
    seed: str          # "000" .. "004"
    stem: str          # library file stem, e.g. "video-wlan3g-tcp"
    values: Dict[str, Any]
    run: int
    rng_seed: int
    metrics: Dict[str, Any]

    def get(self, metric: str) -> Optional[float]:
        note(self.metrics, metric)
        v = self.metrics.get(metric)
        return float(v) if finite(v) else None

    @property
    def transfers_unfinished(self) -> int:
        """Transfers (file, page) of this run not finished when it ended."""
        return int(self.metrics.get("transfers_unfinished") or 0)

    @property
    def messages_undelivered(self) -> int:
        """Messages (frames, game packets, bursts) not delivered when it ended."""
        return int(self.metrics.get("messages_undelivered") or 0)


class ReportInputError(ValueError):
    """A file of the output directory that cannot be read as `mptlab
    reproduce` writes it (`main` prints it as one line and exits 2)."""


#: How to repair a damaged file: `reproduce.json` and a sweep's
#: `summary.json` are rewritten from the run files by the same `mptlab
#: reproduce` command; a run file is redone once it is gone (`--force` would
#: not touch it: its key still matches).
REMAKE = "run the same `mptlab reproduce` command again: it writes this file anew from the run files"
REDO_RUN = "delete it and run the same `mptlab reproduce` command again: it redoes that run"
REDO_MISSING = "run the same `mptlab reproduce` command again: it redoes that run"
REDO_MISSING_SWEEP = ("run the same `mptlab reproduce` command again: it redoes the runs that are gone and "
                      "merges the sweep anew")


def read_json(path: Path, fix: str = REMAKE) -> Any:
    """`path` parsed as JSON; a damaged file (cut short by a full disk or a
    copy interrupted half way: `mptlab` itself writes these files to a
    temporary name and renames them) raises :class:`ReportInputError`
    naming the file and `fix`, not a traceback."""
    try:
        return json.loads(Path(path).read_text())
    except json.JSONDecodeError as err:
        what = "empty" if err.doc == "" else f"{err.msg} at line {err.lineno} column {err.colno}"
        raise ReportInputError(f"{path}: not valid JSON ({what}); the file is damaged: {fix}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ReportInputError(f"{path}: cannot be read ({err})") from None


def read_summary(path: Path) -> Dict[str, Any]:
    """A sweep's ``summary.json`` (:func:`read_json`), checked for the shape
    the report reads: ``points``, each with ``point``, ``values`` and
    ``per_run``. Valid JSON of another shape (a list, a file from another
    tool) raises :class:`ReportInputError` naming the key, not a traceback."""
    summ = read_json(path)
    bad = None
    if not isinstance(summ, dict) or not isinstance(summ.get("points"), list):
        bad = "`points` (a list of the sweep's points)"
    else:
        for i, pt in enumerate(summ["points"]):
            if not isinstance(pt, dict):
                bad = f"`points[{i}]` (a table)"
            elif not isinstance(pt.get("values"), dict):
                bad = f"`points[{i}].values` (a table of axis values)"
            elif not isinstance(pt.get("per_run"), list):
                bad = f"`points[{i}].per_run` (a list of runs)"
            elif not isinstance(pt.get("point"), str):
                bad = f"`points[{i}].point` (the point id)"
            elif not pt["per_run"]:
                # a point without runs: its claims were judged on the other
                # points alone, or not at all (session 27)
                bad = f"`points[{i}].per_run` (the point's runs; it is empty)"
            else:
                for j, pr in enumerate(pt["per_run"]):
                    if not isinstance(pr, dict) or not isinstance(pr.get("run"), int) \
                            or isinstance(pr.get("run"), bool):
                        bad = f"`points[{i}].per_run[{j}].run` (the run index)"
                    elif not isinstance(pr.get("metrics"), dict):
                        bad = f"`points[{i}].per_run[{j}].metrics` (a table of metrics)"
                    elif "seed" not in pr:
                        bad = f"`points[{i}].per_run[{j}].seed` (the run's seed)"
                    if bad:
                        break
            if bad:
                break
    if bad:
        raise ReportInputError(f"{path}: key {bad} is missing or of another type; it is not a summary `mptlab "
                               f"reproduce` wrote: {REMAKE}")
    return summ


def load_manifest(out: Path) -> Dict[str, Any]:
    m = read_json(Path(out) / "reproduce.json")
    missing = [k for k in ("seeds", "sweeps") if not isinstance(m, dict) or k not in m]
    if missing:
        raise ReportInputError(f"{Path(out) / 'reproduce.json'}: key `{missing[0]}` is missing; it is not a "
                               f"manifest `mptlab reproduce` wrote")
    return m


def load_runs(out: Path, manifest: Dict[str, Any]) -> List[Run]:
    """Every (sweep point, run) of every finished sweep in the manifest."""
    runs: List[Run] = []
    for sw in manifest["sweeps"]:
        sf = Path(out) / sw["dir"] / "summary.json"
        if not sf.exists():
            continue
        seed_dir, stem = sw["name"].split("/")[-2:]
        summ = read_summary(sf)
        for pt in summ["points"]:
            for pr in pt["per_run"]:
                runs.append(Run(seed=seed_dir.removeprefix("seed"), stem=stem, values=pt["values"],
                                run=pr["run"], rng_seed=pr["seed"], metrics=pr["metrics"]))
    return runs


def claims_file(path: Optional[Path] = None) -> Optional[Path]:
    """The claims catalogue: `path`, else docs/claims/claims.toml of the
    repository or of the working directory; None if there is none. A `path`
    given that does not exist raises :class:`ReportInputError` (session 26:
    `--claims` with a typo wrote a report without any claim, exit 0)."""
    if path is not None and not Path(path).exists():
        raise ReportInputError(f"{path}: claims file not found (--claims)")
    if path is None:
        for c in (Path(__file__).resolve().parents[3] / "docs/claims/claims.toml",
                  Path.cwd() / "docs/claims/claims.toml"):
            if c.exists():
                path = c
                break
    return path if path is not None and path.exists() else None


def load_claims(path: Optional[Path] = None) -> List[Dict[str, Any]]:
    path = claims_file(path)
    if path is None:
        return []
    # a directory, a binary file, a TOML error or no [[claim]] table: one
    # message naming the file, not a traceback (session 26)
    try:
        doc = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as err:
        raise ReportInputError(f"{path}: not valid TOML: {err}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ReportInputError(f"{path}: cannot be read as the claims file ({err})") from None
    claims = doc.get("claim")
    if not isinstance(claims, list) or not all(isinstance(c, dict) and isinstance(c.get("id"), str) for c in claims):
        raise ReportInputError(f"{path}: key `claim`: expected [[claim]] tables, each with an `id`")
    return claims


def finite(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


# ------------------------------------------------------ unfinished work
#
# Issue 12 item 3: a completion time or message delay exists only for the
# items that completed. Every statistic over such a metric says over how many
# of how many items it was computed, and a verdict that rests on completion
# times from which unfinished transfers had to be left out is at most
# "partly" (the left-out ones are the slowest, so the rest flatters the
# protocol that failed to finish). Message delays are marked, and cap a
# verdict only when more than MESSAGES_CAP of the messages were not
# delivered: a few frames still in flight when a run ends are normal, but the
# messages generated in the last (delay) seconds of a run are exactly the
# ones missing, so many missing ones mean a mean delay biased low.

#: share of undelivered messages above which a delay-based verdict is capped
MESSAGES_CAP = 0.01

#: per-run metrics computed over completed items only -> the kind of items
COMPLETED_ONLY = {"completion_time_ms": "transfers", "delay_ms_mean": "messages",
                  "delay_ms_median": "messages", "delay_ms_p95": "messages"}


class Ledger:
    """Which runs a statistic read completed-only metrics of, and how many
    of their items did not complete. Filled by :func:`note` while active
    (``with track() as led: ...``); a run read twice counts once."""

    def __init__(self) -> None:
        # (id of the run's metrics, kind) -> (total, not completed)
        self.reads: Dict[Tuple[int, str], Tuple[int, int]] = {}

    def add(self, metrics: Dict[str, Any], metric: str) -> None:
        kind = COMPLETED_ONLY.get(metric)
        if kind is None:
            return
        if kind == "transfers":
            n, u = metrics.get("transfers"), metrics.get("transfers_unfinished")
        else:
            n, u = metrics.get("messages"), metrics.get("messages_undelivered")
        self.reads[(id(metrics), kind)] = (int(n or 0), int(u or 0))

    def merge(self, other: "Ledger") -> None:
        self.reads.update(other.reads)

    def _sum(self, kind: str, i: int) -> int:
        return sum(v[i] for (_, k), v in self.reads.items() if k == kind)

    @property
    def transfers(self) -> int:
        return self._sum("transfers", 0)

    @property
    def transfers_unfinished(self) -> int:
        return self._sum("transfers", 1)

    @property
    def messages(self) -> int:
        return self._sum("messages", 0)

    @property
    def messages_undelivered(self) -> int:
        return self._sum("messages", 1)

    @property
    def partial(self) -> bool:
        return self.transfers_unfinished > 0 or self.messages_undelivered > 0

    def mark(self) -> str:
        """E.g. ``n=27 of 30 transfers finished``; "" when every item completed."""
        parts = []
        if self.transfers_unfinished:
            parts.append(n_of(self.transfers - self.transfers_unfinished, self.transfers, "transfers finished"))
        if self.messages_undelivered:
            parts.append(n_of(self.messages - self.messages_undelivered, self.messages, "messages delivered"))
        return "; ".join(parts)

    def as_dict(self) -> Dict[str, int]:
        return {"transfers": self.transfers, "transfers_unfinished": self.transfers_unfinished,
                "messages": self.messages, "messages_undelivered": self.messages_undelivered}


_ACTIVE: List[Ledger] = []


def note(metrics: Dict[str, Any], metric: str) -> None:
    """Record a read of `metric` from a run's metrics in every active ledger."""
    for led in _ACTIVE:
        led.add(metrics, metric)


class track:
    """``with track() as led:`` collects the completed-only reads inside."""

    def __enter__(self) -> Ledger:
        self.led = Ledger()
        _ACTIVE.append(self.led)
        return self.led

    def __exit__(self, *exc: Any) -> None:
        _ACTIVE.remove(self.led)


def n_of(done: int, total: int, what: str = "finished") -> str:
    return f"n={done:,} of {total:,} {what}"


def guard(res: Optional[Verdict], led: Ledger) -> Optional[Verdict]:
    """A verdict with the completeness of what it was computed from: the
    mark appended to its numbers, and "reproduced" capped at "partly" when
    completion times of unfinished transfers had to be left out, or more than
    MESSAGES_CAP of the messages were not delivered."""
    if res is None or not led.partial:
        return res
    verdict, detail = res
    note_ = f" [computed over completed items only: {led.mark()}"
    many = led.messages_undelivered > MESSAGES_CAP * max(led.messages, 1)
    if verdict == "reproduced" and led.transfers_unfinished:
        verdict = "partly"
        note_ += "; capped at partly: the unfinished transfers are left out of the completion times"
    elif verdict == "reproduced" and many:
        verdict = "partly"
        note_ += (f"; capped at partly: more than {MESSAGES_CAP:.0%} of the messages undelivered, the delays "
                  "of the delivered ones are biased low")
    return verdict, detail + note_ + "]"


def unfinished_rows(runs: Sequence["Run"]) -> List[List[Any]]:
    """Per (seed, file, point) with unfinished work: [seed, file, point
    values, runs, runs with unfinished transfers, transfers unfinished /
    total, messages undelivered / total]."""
    acc: Dict[Tuple[str, str, str], List[int]] = {}
    for r in runs:
        k = (r.seed, r.stem, ", ".join(f"{a}={b}" for a, b in sorted(r.values.items())))
        a = acc.setdefault(k, [0, 0, 0, 0, 0, 0])
        a[0] += 1
        a[1] += r.transfers_unfinished > 0
        a[2] += r.transfers_unfinished
        a[3] += int(r.metrics.get("transfers") or 0)
        a[4] += r.messages_undelivered
        a[5] += int(r.metrics.get("messages") or 0)
    # a run without `transfers` / `messages` (not what mptlab writes) adds
    # 0 to the total: the unfinished count is still shown, "-" only when
    # nothing is unfinished (it was "-" beside 2 unfinished of no total)
    def of(n: int, total: int, sep: str) -> str:
        return (f"{n:{sep}} of {total:{sep}}" if total else (f"{n:{sep}} (total not recorded)" if n else "-"))
    return [[s, f, p, a[0], a[1], of(a[2], a[3], ""), of(a[4], a[5], ",")]
            for (s, f, p), a in sorted(acc.items()) if a[2] or a[4]]


def unfinished_phrase(transfers: int, messages: int) -> str:
    """`3 transfer(s) did not finish and 311 message(s) were not delivered`,
    naming only what is not zero."""
    parts = []
    if transfers:
        parts.append(f"{transfers:,} transfer(s) did not finish")
    if messages:
        parts.append(f"{messages:,} message(s) were not delivered")
    return " and ".join(parts)


# ------------------------------------------------------------- statistics

def paired_r(cand: np.ndarray, ref: np.ndarray, *, resamples: int = BOOTSTRAP,
             seed: int = 0) -> Tuple[float, float, float]:
    """r = mean(cand - ref) / mean(ref) over paired runs and its 95 %
    percentile bootstrap CI (runs resampled with their pairing)."""
    r, lo, hi, _ = paired_r_boot(cand, ref, resamples=resamples, seed=seed)
    return r, lo, hi


def paired_r_boot(cand: np.ndarray, ref: np.ndarray, *, resamples: int = BOOTSTRAP,
                  seed: int = 0) -> Tuple[float, float, float, Optional[np.ndarray]]:
    """:func:`paired_r` and the bootstrap distribution its CI came from
    (:func:`boot`), for callers that need both (one bootstrap, not two)."""
    cand = np.asarray(cand, float)
    ref = np.asarray(ref, float)
    r = float(np.mean(cand - ref) / np.mean(ref))
    rs = boot(cand, ref, resamples, seed)
    if rs is None:
        return r, float("nan"), float("nan"), None
    lo, hi = np.percentile(rs, [2.5, 97.5])
    return r, float(lo), float(hi), rs


def boot(cand: np.ndarray, ref: np.ndarray, resamples: int = BOOTSTRAP, seed: int = 0) -> Optional[np.ndarray]:
    """Bootstrap distribution of r (runs resampled with their pairing)."""
    n = len(cand)
    if n < 2:
        return None
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(resamples, n))
    # (cand - ref)[idx] holds the same values as cand[idx] - ref[idx], in the
    # same layout, so the means are bit-identical; one gather fewer
    return (cand - ref)[idx].mean(axis=1) / ref[idx].mean(axis=1)


def unpaired_r(cand: Sequence[float], ref: Sequence[float], *, resamples: int = BOOTSTRAP,
               seed: int = 0) -> Tuple[float, float, float]:
    """r = (mean(cand) - mean(ref)) / mean(ref) with a 95 % percentile CI from
    resampling each group on its own (docs/claims/README.md: where pairing is
    impossible)."""
    c = np.asarray(cand, float)
    f = np.asarray(ref, float)
    r = float((c.mean() - f.mean()) / f.mean())
    if len(c) < 2 or len(f) < 2:
        return r, float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    cm = c[rng.integers(0, len(c), size=(resamples, len(c)))].mean(axis=1)
    fm = f[rng.integers(0, len(f), size=(resamples, len(f)))].mean(axis=1)
    lo, hi = np.percentile((cm - fm) / fm, [2.5, 97.5])
    return r, float(lo), float(hi)


def mean_ci(x: Sequence[float], *, resamples: int = BOOTSTRAP, seed: int = 0) -> Tuple[float, float, float]:
    """Mean and its 95 % percentile bootstrap CI."""
    a = np.asarray(x, float)
    m = float(a.mean())
    if len(a) < 2:
        return m, float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    ms = a[rng.integers(0, len(a), size=(resamples, len(a)))].mean(axis=1)
    lo, hi = np.percentile(ms, [2.5, 97.5])
    return m, float(lo), float(hi)


def categorize(r: float, lo: float, hi: float, threshold: float = THRESHOLD) -> Optional[str]:
    """Fig. 19 category of a delay-like r (negative = improvement), rules of
    docs/claims/README.md: CI wholly below 0 -> improvement (significant if
    |r| >= S), CI wholly above 0 and r >= S -> significant degradation,
    everything else -> no change."""
    if not math.isfinite(r) or not math.isfinite(lo) or not math.isfinite(hi):
        return None
    if hi < 0:
        return "significant-improvement" if -r >= threshold else "slight-improvement"
    if lo > 0 and r >= threshold:
        return "significant-degradation"
    return "no-change"


def direction_verdict(r: float, lo: float, hi: float, side: int, size: float = 0.0) -> str:
    """`direction` claims (docs/claims/README.md): the claimed side is
    side = -1 (candidate lower) or +1 (candidate higher). Reproduced: the CI
    excludes 0 on the claimed side and |r| reaches `size`; partly: the point
    estimate is on the claimed side; not reproduced otherwise."""
    on_side = r * side > 0
    ci_ok = math.isfinite(lo) and math.isfinite(hi) and (hi < 0 if side < 0 else lo > 0)
    if on_side and ci_ok and abs(r) >= size:
        return "reproduced"
    return "partly" if on_side else "not reproduced"


def equivalence_verdict(r: float, lo: float, hi: float, tau: float = TAU) -> str:
    """"No change" claims: reproduced if the CI lies in [-tau, tau], partly if
    the point estimate does, not reproduced otherwise."""
    if math.isfinite(lo) and math.isfinite(hi) and -tau <= lo and hi <= tau:
        return "reproduced"
    return "partly" if -tau <= r <= tau else "not reproduced"


def grade(full: bool, some: bool) -> str:
    """A hand-coded test's verdict: every condition met, some met, none."""
    return "reproduced" if full else ("partly" if some else "not reproduced")


def fmt_r(r: float, lo: float, hi: float) -> str:
    return f"r = {r:+.1%} [{lo:+.1%}, {hi:+.1%}]"


# ------------------------------------------------------------------- HTML

def e(s: Any) -> str:
    return html.escape(str(s))


def cat_cell(cat: Optional[str], title: str = "") -> str:
    a = ABBR.get(cat, "-")
    return f'<td class="cat" style="background:{COLOR[a]}" title="{e(title)}">{a}</td>'


def table(header: Sequence[str], rows: Sequence[Sequence[Any]], attrs: str = "") -> str:
    """An HTML table; cells are escaped."""
    h = [f"<table{(' ' + attrs) if attrs else ''}><tr>" + "".join(f"<th>{e(c)}</th>" for c in header) + "</tr>"]
    for r in rows:
        h.append("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>")
    h.append("</table>")
    return "".join(h)


def figure_key(*inputs: Any) -> str:
    """SHA-256 of what a figure is drawn from: its inputs (numbers, labels,
    titles; numpy arrays as lists, floats by repr so every bit counts), the
    matplotlib version and the source of the report package (a changed
    drawing function redraws every figure)."""
    import hashlib

    import matplotlib

    def plain(x: Any) -> Any:
        if isinstance(x, np.ndarray):
            return x.tolist()
        if isinstance(x, dict):
            return [[plain(k), plain(v)] for k, v in sorted(x.items(), key=lambda kv: repr(kv[0]))]
        if isinstance(x, (list, tuple)):
            return [plain(v) for v in x]
        return repr(x)

    h = hashlib.sha256()
    h.update(matplotlib.__version__.encode())
    h.update(_SOURCE_HASH.encode())
    h.update(json.dumps(plain(list(inputs))).encode())
    return h.hexdigest()


def _package_source_hash() -> str:
    import hashlib
    h = hashlib.sha256()
    for f in sorted(Path(__file__).parent.glob("*.py")):
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()


_SOURCE_HASH = _package_source_hash()


def _stamp(png: Path) -> Path:
    return png.with_name(png.name + ".sha256")


def figure_fresh(png: Path, key: str) -> bool:
    """True when `png` exists and was drawn from inputs with this
    :func:`figure_key` (stored beside it in ``<name>.png.sha256``): the
    report then keeps it instead of drawing it again. When False, the
    stale stamp is removed before the caller redraws: a run killed between
    writing the new PNG and its stamp must not leave the new picture under
    the old inputs' key (were the inputs changed back, it would be kept)."""
    try:
        if png.is_file() and _stamp(png).read_text().strip() == key:
            return True
    except OSError:
        pass
    _stamp(png).unlink(missing_ok=True)
    return False


def figure_saved(png: Path, key: str) -> None:
    """Record the key of the inputs `png` was just drawn from."""
    _stamp(png).write_text(key + "\n")


#: processes :func:`draw_figures` draws in. ``generate`` sets it to its
#: ``jobs`` when the report has fewer sections than jobs (``reproduce 000``
#: has one section, whose 42 box plots are most of its report time), and
#: leaves 1 when the sections themselves are written in parallel.
FIGURE_JOBS = 1


def draw_figures(draw: Callable[..., None], todo: Sequence[Tuple[Any, ...]]) -> None:
    """``draw(*args)`` for every ``args`` in `todo`, each drawing and saving
    one figure. With :data:`FIGURE_JOBS` > 1 and more than one figure, in
    that many forked processes (the children inherit the loaded modules;
    `draw` must be a module-level function). Each figure is drawn by the
    same code from the same inputs in any process, so the PNG files are the
    same bytes; only who draws them changes."""
    jobs = min(FIGURE_JOBS, len(todo) - 1)
    if jobs <= 1:
        for args in todo:
            draw(*args)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # the first figure here: the children inherit matplotlib's warm caches
    # (fonts, text layout) instead of each filling its own
    draw(*todo[0])
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        # list(): re-raise the first failure here
        list(pool.map(_call, [(draw, args) for args in todo[1:]]))


def _call(job: Tuple[Callable[..., None], Tuple[Any, ...]]) -> None:
    draw, args = job
    draw(*args)


def pyplot():
    """matplotlib.pyplot with the headless backend."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


CSS = """body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:3px 7px;font-size:13px}
th{background:#f2f2f2}td.cat{text-align:center;font-weight:bold;min-width:3em}
.reproduced{background:#d9f0d3}.partly{background:#fff3bf}.not-reproduced{background:#f8d0cc}
.figs img{max-width:48%;margin:4px;border:1px solid #ddd}.note{color:#555;font-size:13px}"""


@dataclass
class Section:
    """What a seed module contributes to the report: its HTML (figures
    already written to the figure directory), verdicts per claim id, and
    extra machine-readable results for verdicts.json."""
    html: List[str] = field(default_factory=list)
    verdicts: Dict[str, Verdict] = field(default_factory=dict)
    data: Dict[str, Any] = field(default_factory=dict)
