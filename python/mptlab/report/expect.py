"""What the report expects, from the experiment registry
(``scenarios/registry/experiments.toml``, :mod:`mptlab.experiments`): the
registry matches the library files, every experiment a claim names is
registered, every sweep of the output directory is a registered experiment
with the registered axes, and every claim whose experiments all ran got a
verdict. Each failure is a :class:`~mptlab.experiments.RegistryError` with one
message naming the file and key, so a renamed scenario or a claim naming an
unknown experiment stops the report instead of leaving a silent gap
(docs/report.md, "The experiment registry")."""

from __future__ import annotations

from .common import REDO_MISSING_SWEEP, ReportInputError, read_summary
import re
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Set

from .. import experiments as ex
from ..experiments import Registry, RegistryError

__all__ = ["Registry", "RegistryError", "load_checked", "check_sweeps", "check_verdicts", "check_modules"]


def load_checked(registry: Optional[Path], claims: Sequence[Mapping[str, Any]],
                 claims_path: Optional[Path]) -> Registry:
    """Load the registry (default: the repository's), check it against the
    library files beside it (when present) and the claims' references."""
    reg = ex.load(registry)
    library = reg.path.parent.parent  # <library>/registry/experiments.toml
    if any((library / f"seed{s}").is_dir() for s in reg.seeds()):
        ex.check_files(reg, library)
    if claims_path is not None:
        ex.check_claims(reg, claims, claims_path)
    return reg


def check_sweeps(reg: Registry, out: Path, manifest: Mapping[str, Any]) -> Set[str]:
    """Every sweep of reproduce.json is a registered experiment whose
    summary.json has the registered axes; returns the keys that have runs."""
    ran: Set[str] = set()
    for sw in manifest["sweeps"]:
        x = reg.get(sw["name"])
        if x is None:
            raise RegistryError(f"{Path(out) / 'reproduce.json'}: sweep `{sw['name']}` is not in the experiment "
                                f"registry {reg.path} (renamed or removed since these runs were made?)")
        sf = Path(out) / sw["dir"] / "summary.json"
        if not sf.exists():
            # reproduce.json is written after every sweep it lists has
            # merged: a summary gone since is damage, and leaving the sweep
            # out would drop its runs from the report unsaid (session 26)
            raise ReportInputError(f"{sf}: missing, though {Path(out) / 'reproduce.json'} lists sweep "
                                   f"`{sw['name']}` as finished: {REDO_MISSING_SWEEP}")
        summ = read_summary(sf)
        keys = summ.get("keys")
        if keys is not None and list(keys) != list(x.axes):
            raise RegistryError(f"{sf}: key `keys` is {keys}, but experiment {x.key} of {reg.path} has axes "
                                f"{list(x.axes)}")
        # a summary without `keys` (written by hand, e.g. in tests): its
        # points' values must still be registered axes
        for pt in summ.get("points", []) if keys is None else []:
            extra = [k for k in pt.get("values", {}) if k not in x.axes]
            if extra:
                raise RegistryError(f"{sf}: point `{pt.get('point')}`: key `{extra[0]}` is not an axis of experiment "
                                    f"{x.key} in {reg.path}")
        ran.add(x.key)
    return ran


def check_verdicts(claims: Iterable[Mapping[str, Any]], claims_path: Optional[Path], ran: Set[str],
                   judged: Set[str]) -> None:
    """A claim whose experiments all have runs must have been judged: if no
    section gave it a verdict, a report module looked for its runs under
    another name."""
    for cl in claims:
        exps: List[str] = list(cl.get("experiments", []))
        if not exps or not cl.get("verdict_bearing", True) or cl.get("fidelity") == "not-modelled":
            continue
        if set(exps) <= ran and cl["id"] not in judged:
            raise RegistryError(f"{claims_path}: claim {cl['id']}: key `experiments`: {', '.join(exps)} all ran, "
                                "but no report section gave the claim a verdict (does its report module look "
                                "for these runs under another name?)")


def check_modules(reg: Registry, modules: Mapping[str, Any]) -> None:
    """Each seed module's ``EXPERIMENTS`` (full-match patterns of the ids it
    reads) against the registry: a pattern matching no registered id is a name
    the module looks for in vain (a renamed experiment), a registered id
    matching no pattern is one whose runs the module would ignore."""
    for seed, mod in modules.items():
        pats = getattr(mod, "EXPERIMENTS", None)
        if pats is None:
            continue
        where = getattr(mod, "__file__", None) or mod.__name__
        ids = [x.id for x in reg.of_seed(seed)]
        for p in pats:
            if not any(re.fullmatch(p, i) for i in ids):
                raise RegistryError(f"{where}: key `EXPERIMENTS`: `{p}` matches no experiment of seed {seed} in "
                                    f"{reg.path} (renamed?)")
        for i in ids:
            if not any(re.fullmatch(p, i) for p in pats):
                raise RegistryError(f"{reg.path}: experiment seed{seed}/{i}: the report module {where} reads no "
                                    "such experiment (add it to the module's EXPERIMENTS and use its runs)")
