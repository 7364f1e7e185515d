"""The experiment registry, ``scenarios/registry/experiments.toml``: every
generated scenario file of the seed libraries, with its sweep axes and the
report sections that show it. Claims (``docs/claims/claims.toml``) name the
experiments their verdicts read in their ``experiments`` key
(``"seed003/hukru"``).

Three readers share it, so a renamed or missing scenario is an error rather
than a silent gap in the report:

* the generators (``scripts/gen-seedNNN.py``) refuse to write a set of files
  other than the registry's (:func:`check_generated`);
* ``mptlab reproduce`` runs the registry's experiments, after the same checks
  on the Rust side (``crates/cli/src/experiments.rs``);
* the report (``python -m mptlab.report``) checks the registry, the claims'
  references and the runs against it (:func:`check_files`,
  :func:`check_claims`).

One strict parser per side (this module, and serde structs with
``deny_unknown_fields`` in Rust) rather than a JSON schema: both sides need
checks a schema cannot state (files on disk, sweep axes, claim ids), and the
error messages name the file, the entry and the key the same way. This module
uses the standard library only, so the generators load it by path
(``scripts/registry.py``) without the compiled package. See docs/report.md,
"The experiment registry".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

try:
    import tomllib  # Python >= 3.11
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore

#: repository root (python/mptlab/experiments.py -> ../..)
_ROOT = Path(__file__).resolve().parents[2]
#: the registry's place relative to the scenario library root
REGISTRY = Path("registry") / "experiments.toml"
#: the experiment id doubles as the file stem and the run directory name
_ID = re.compile(r"^[a-z0-9][a-z0-9.-]*$")
_SEED = re.compile(r"^[0-9]{3}$")
_FIELDS = {"seed": str, "id": str, "axes": list, "figures": list}


class RegistryError(ValueError):
    """A registry, claim or library inconsistency: one message naming the
    file, the entry and the key."""


@dataclass(frozen=True)
class Experiment:
    """One generated scenario file: ``scenarios/seed<seed>/<id>.toml``, run by
    ``mptlab reproduce`` into ``DIR/runs/seed<seed>/<id>/``."""
    seed: str
    id: str
    #: the file's sweep keys in order of first appearance ([sweep] axes,
    #: then keys only explicit points set): the axis values the report reads
    axes: Tuple[str, ...]
    #: report sections / figures that show it (for readers; not matched)
    figures: Tuple[str, ...]

    @property
    def key(self) -> str:
        """``seed<seed>/<id>``: how claims, reproduce.json and DIR/runs name it."""
        return f"seed{self.seed}/{self.id}"

    def file(self, library: Path) -> Path:
        return Path(library) / f"seed{self.seed}" / f"{self.id}.toml"


@dataclass(frozen=True)
class Registry:
    path: Path
    experiments: Tuple[Experiment, ...]

    def keys(self) -> List[str]:
        return [x.key for x in self.experiments]

    def of_seed(self, seed: str) -> List[Experiment]:
        return [x for x in self.experiments if x.seed == seed]

    def seeds(self) -> List[str]:
        return sorted({x.seed for x in self.experiments})

    def get(self, key: str) -> Optional[Experiment]:
        return next((x for x in self.experiments if x.key == key), None)


def default_library() -> Path:
    return _ROOT / "scenarios"


def find(path: Optional[Path] = None) -> Path:
    """`path`, else the repository's registry (an editable install), else
    ./scenarios/registry/experiments.toml."""
    if path is not None:
        return Path(path)
    for lib in (default_library(), Path.cwd() / "scenarios"):
        if (lib / REGISTRY).exists():
            return lib / REGISTRY
    return default_library() / REGISTRY


def load(path: Optional[Path] = None) -> Registry:
    """Parse and validate the registry (types, unknown keys, duplicate ids)."""
    path = find(path)
    try:
        doc = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise RegistryError(f"{path}: experiment registry not found (pass --registry FILE)") from None
    except tomllib.TOMLDecodeError as err:
        raise RegistryError(f"{path}: not valid TOML: {err}") from None
    except (OSError, UnicodeDecodeError) as err:
        # a directory or a binary file given as --registry (session 26: a traceback)
        raise RegistryError(f"{path}: cannot be read as the experiment registry ({err})") from None
    return parse(doc, path)


def parse(doc: Mapping[str, Any], path: Path) -> Registry:
    extra = set(doc) - {"experiment"}
    if extra:
        raise RegistryError(f"{path}: unknown key `{sorted(extra)[0]}` (expected only [[experiment]] tables)")
    items = doc.get("experiment", [])
    if not isinstance(items, list) or not items:
        raise RegistryError(f"{path}: key `experiment`: expected one or more [[experiment]] tables")
    out: List[Experiment] = []
    seen: Dict[str, int] = {}
    for n, it in enumerate(items, 1):
        where = f"{path}: [[experiment]] #{n}"
        if isinstance(it.get("id"), str) and isinstance(it.get("seed"), str):
            where = f"{path}: experiment seed{it['seed']}/{it['id']}"
        for k in it:
            if k not in _FIELDS:
                raise RegistryError(f"{where}: unknown key `{k}` (known: {', '.join(_FIELDS)})")
        for k, ty in _FIELDS.items():
            if k not in it:
                raise RegistryError(f"{where}: missing key `{k}`")
            if not isinstance(it[k], ty) or (ty is list and not all(isinstance(v, str) for v in it[k])):
                want = "a string" if ty is str else "an array of strings"
                raise RegistryError(f"{where}: key `{k}`: expected {want}")
        if not _SEED.match(it["seed"]):
            raise RegistryError(f"{where}: key `seed`: `{it['seed']}` is not three digits")
        if not _ID.match(it["id"]):
            raise RegistryError(f"{where}: key `id`: `{it['id']}` is not a file stem of [a-z0-9.-]")
        x = Experiment(it["seed"], it["id"], tuple(it["axes"]), tuple(it["figures"]))
        if x.key in seen:
            raise RegistryError(f"{where}: key `id`: duplicate of [[experiment]] #{seen[x.key]}")
        seen[x.key] = n
        out.append(x)
    return Registry(path, tuple(out))


def _dotted(table: Mapping[str, Any], prefix: str = "") -> List[str]:
    """Keys of a sweep table or point, nested tables as dotted keys."""
    out: List[str] = []
    for k, v in table.items():
        if isinstance(v, dict):
            out.extend(_dotted(v, f"{prefix}{k}."))
        else:
            out.append(prefix + k)
    return out


def sweep_axes(text: str) -> List[str]:
    """A scenario's sweep keys in order of first appearance over its points,
    as the sweep planner orders them (crates/scenario/src/sweep.rs
    `Sweep::keys`): each explicit point's keys, then the grid axes; the axes
    alone without explicit points."""
    sw = tomllib.loads(text).get("sweep", {})
    axes = _dotted({k: v for k, v in sw.items() if k not in ("runs", "point")})
    keys: List[str] = []
    for p in sw.get("point", []) or [{}]:
        keys.extend(k for k in _dotted(p) + axes if k not in keys)
    return keys


def check_axes(x: Experiment, text: str, reg_path: Path) -> None:
    have = sweep_axes(text)
    if list(x.axes) != have:
        raise RegistryError(f"{reg_path}: experiment {x.key}: key `axes` is {list(x.axes)}, but the file's "
                            f"sweep has {have}")


def check_files(reg: Registry, library: Optional[Path] = None, axes: bool = True) -> None:
    """Every listed file exists (with the listed sweep axes), and every
    ``seed<seed>/*.toml`` of a registered seed is listed."""
    library = Path(library) if library is not None else default_library()
    for x in reg.experiments:
        f = x.file(library)
        if not f.exists():
            raise RegistryError(f"{reg.path}: experiment {x.key}: file {f} does not exist (a renamed scenario "
                                "is renamed here, in its generator and in the claims' `experiments` together)")
        if axes:
            check_axes(x, f.read_text(), reg.path)
    keys = set(reg.keys())
    for seed in reg.seeds():
        for f in sorted((library / f"seed{seed}").glob("*.toml")):
            if f"seed{seed}/{f.stem}" not in keys:
                raise RegistryError(f"{f}: scenario file not in the experiment registry {reg.path} "
                                    f"(add an [[experiment]] with seed = \"{seed}\", id = \"{f.stem}\", or remove the file)")


def claim_experiments(claim: Mapping[str, Any], claims_path: Path) -> List[str]:
    v = claim.get("experiments", [])
    if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
        raise RegistryError(f"{claims_path}: claim {claim.get('id')}: key `experiments`: expected an array of "
                            "strings like \"seed003/hukru\"")
    return v


def check_claims(reg: Registry, claims: Sequence[Mapping[str, Any]], claims_path: Path) -> None:
    """Every experiment a claim names is registered; every claim that can get
    a verdict names at least one."""
    keys = set(reg.keys())
    for cl in claims:
        exps = claim_experiments(cl, claims_path)
        for k in exps:
            if k not in keys:
                raise RegistryError(f"{claims_path}: claim {cl.get('id')}: key `experiments`: `{k}` is not in the "
                                    f"experiment registry {reg.path}")
        judged = cl.get("verdict_bearing", True) and cl.get("fidelity") != "not-modelled"
        if judged and not exps and cl.get("seed") in reg.seeds():
            raise RegistryError(f"{claims_path}: claim {cl.get('id')}: key `experiments` is missing or empty: name "
                                "the experiments its verdict reads")


def check_generated(reg: Registry, seed: str, stems: Iterable[str]) -> None:
    """A generator's files (stems) are exactly the registry's for its seed."""
    want = {x.id for x in reg.of_seed(seed)}
    have = set(stems)
    if have - want:
        raise RegistryError(f"{reg.path}: scripts/gen-seed{seed}.py writes seed{seed}/{sorted(have - want)[0]}.toml, "
                            "which has no [[experiment]] entry (add it, or rename it back)")
    if want - have:
        raise RegistryError(f"{reg.path}: experiment seed{seed}/{sorted(want - have)[0]}: "
                            f"scripts/gen-seed{seed}.py does not write it (remove the entry, or fix the generator)")
