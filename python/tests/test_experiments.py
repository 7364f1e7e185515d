"""The experiment registry (scenarios/registry/experiments.toml): the
repository's library, claims and generators agree with it, and a renamed
scenario, a stray file, a claim naming an unknown experiment or a report
module missing a claim's runs is an error naming the file and key."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mptlab import experiments as ex
from mptlab.report import RegistryError, generate
from mptlab.report.common import claims_file, load_claims
from mptlab.report.expect import check_verdicts, load_checked

ROOT = Path(__file__).resolve().parents[2]
REG = ROOT / "scenarios" / "registry" / "experiments.toml"


def test_repository_library_and_claims_match_the_registry() -> None:
    cp = claims_file()
    reg = load_checked(None, load_claims(cp), cp)
    assert len(reg.experiments) == 94
    assert {x.seed for x in reg.experiments} == {"000", "001", "002", "003", "004"}
    # every judged claim of a registered seed names what it reads
    judged = [c for c in load_claims(cp) if c.get("verdict_bearing", True) and c.get("fidelity") != "not-modelled"]
    assert judged and all(c.get("experiments") for c in judged)


def _library(tmp: Path) -> Path:
    """A copy of seed 003's library and the registry, trimmed to seed 003."""
    lib = tmp / "scenarios"
    shutil.copytree(ROOT / "scenarios" / "seed003", lib / "seed003")
    (lib / "registry").mkdir()
    reg = ex.load(REG)
    keep = [x for x in reg.experiments if x.seed == "003"]
    (lib / "registry" / "experiments.toml").write_text("".join(
        f'[[experiment]]\nseed = "{x.seed}"\nid = "{x.id}"\naxes = {json.dumps(list(x.axes))}\n'
        f'figures = {json.dumps(list(x.figures))}\n\n' for x in keep))
    return lib


def test_renamed_scenario_is_an_error_naming_entry_and_file(tmp_path: Path) -> None:
    lib = _library(tmp_path)
    reg = ex.load(lib / "registry" / "experiments.toml")
    ex.check_files(reg, lib)
    (lib / "seed003" / "hukru.toml").rename(lib / "seed003" / "hu-kru.toml")
    with pytest.raises(RegistryError) as err:
        ex.check_files(reg, lib)
    msg = str(err.value)
    assert msg.startswith(f"{reg.path}: experiment seed003/hukru: file ") and "hukru.toml does not exist" in msg
    # the entry renamed as well, the old file left: the stray file is named
    (lib / "seed003" / "hu-kru.toml").rename(lib / "seed003" / "hukru.toml")
    shutil.copy(lib / "seed003" / "hukru.toml", lib / "seed003" / "hukru-old.toml")
    with pytest.raises(RegistryError, match=r"hukru-old\.toml: scenario file not in the experiment registry"):
        ex.check_files(reg, lib)


def test_axes_unknown_keys_and_duplicates_are_errors(tmp_path: Path) -> None:
    p = tmp_path / "r.toml"
    one = '[[experiment]]\nseed = "003"\nid = "hukru"\naxes = ["transport.cc"]\nfigures = []\n'
    p.write_text(one + one)
    with pytest.raises(RegistryError, match=r"experiment seed003/hukru: key `id`: duplicate of \[\[experiment\]\] #1"):
        ex.load(p)
    p.write_text(one.replace("figures", "figure"))
    with pytest.raises(RegistryError, match=r"experiment seed003/hukru: unknown key `figure`"):
        ex.load(p)
    p.write_text(one)
    with pytest.raises(RegistryError, match=r"experiment seed003/hukru: key `axes` is \['transport.cc'\], but the file"):
        ex.check_axes(ex.load(p).experiments[0], (ROOT / "scenarios/seed003/hukru.toml").read_text(), p)


def test_claim_naming_an_unknown_experiment_is_an_error() -> None:
    reg = ex.load(REG)
    claims = [{"id": "s003-x", "seed": "003", "experiments": ["seed003/hukru", "seed003/hu-kru"]}]
    with pytest.raises(RegistryError) as err:
        ex.check_claims(reg, claims, Path("claims.toml"))
    assert str(err.value) == (f"claims.toml: claim s003-x: key `experiments`: `seed003/hu-kru` is not in the "
                              f"experiment registry {REG}")
    with pytest.raises(RegistryError, match="claim s003-y: key `experiments` is missing or empty"):
        ex.check_claims(reg, [{"id": "s003-y", "seed": "003"}], Path("claims.toml"))


def test_report_refuses_runs_of_an_unregistered_sweep(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "runs").mkdir(parents=True)
    (out / "reproduce.json").write_text(json.dumps({"seeds": ["003"], "sweeps": [
        {"name": "seed003/hu-kru", "file": "scenarios/seed003/hu-kru.toml", "dir": "runs/seed003/hu-kru"}]}))
    with pytest.raises(RegistryError, match=r"reproduce.json: sweep `seed003/hu-kru` is not in the experiment registry"):
        generate(out)


def test_claim_whose_runs_exist_but_got_no_verdict_is_an_error() -> None:
    claims = [{"id": "s003-hu-kru-aggregation", "seed": "003", "experiments": ["seed003/hukru"]}]
    check_verdicts(claims, Path("claims.toml"), {"seed003/hukru"}, {"s003-hu-kru-aggregation"})
    check_verdicts(claims, Path("claims.toml"), set(), set())  # not run: listed as not covered
    with pytest.raises(RegistryError, match=r"claim s003-hu-kru-aggregation: key `experiments`: seed003/hukru all "
                                            r"ran, but no report section gave the claim a verdict"):
        check_verdicts(claims, Path("claims.toml"), {"seed003/hukru"}, set())


def _tree(tmp: Path) -> Path:
    """The generators, the registry module and the registry in a scratch tree."""
    shutil.copytree(ROOT / "scripts", tmp / "scripts")
    (tmp / "python" / "mptlab").mkdir(parents=True)
    shutil.copy(ROOT / "python" / "mptlab" / "experiments.py", tmp / "python" / "mptlab")
    (tmp / "scenarios" / "registry").mkdir(parents=True)
    shutil.copy(REG, tmp / "scenarios" / "registry")
    return tmp


@pytest.mark.parametrize("seed", ["000", "001", "002", "003", "004"])
def test_generators_reproduce_the_library_byte_identically(tmp_path: Path, seed: str) -> None:
    t = _tree(tmp_path)
    r = subprocess.run([sys.executable, str(t / "scripts" / f"gen-seed{seed}.py")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    made = sorted(p.name for p in (t / "scenarios" / f"seed{seed}").glob("*.toml"))
    want = sorted(p.name for p in (ROOT / "scenarios" / f"seed{seed}").glob("*.toml"))
    assert made == want
    for name in made:
        assert (t / "scenarios" / f"seed{seed}" / name).read_bytes() == \
            (ROOT / "scenarios" / f"seed{seed}" / name).read_bytes(), name


def test_generator_refuses_a_file_the_registry_does_not_list(tmp_path: Path) -> None:
    t = _tree(tmp_path)
    reg = t / "scenarios" / "registry" / "experiments.toml"
    reg.write_text(reg.read_text().replace('id = "sprint"', 'id = "sprint-lte"'))
    r = subprocess.run([sys.executable, str(t / "scripts" / "gen-seed002.py")], capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr.strip() == (f"error: {reg}: scripts/gen-seed002.py writes seed002/sprint.toml, which has no "
                                "[[experiment]] entry (add it, or rename it back)")
    assert not (t / "scenarios" / "seed002").exists()  # nothing written


def test_report_module_names_are_checked_against_the_registry() -> None:
    from types import SimpleNamespace

    from mptlab.report import SEEDS, _module
    from mptlab.report.expect import check_modules

    reg = ex.load(REG)
    check_modules(reg, {s: _module(s) for s in SEEDS})  # the repository's modules agree
    import mptlab.report.seed003 as s3
    renamed = SimpleNamespace(__name__="seed003", EXPERIMENTS=[e if e != "hukru" else "hu-kru" for e in s3.EXPERIMENTS])
    with pytest.raises(RegistryError, match=r"seed003: key `EXPERIMENTS`: `hu-kru` matches no experiment of seed 003"):
        check_modules(reg, {"003": renamed})
    ignored = SimpleNamespace(__name__="seed003", EXPERIMENTS=[e for e in s3.EXPERIMENTS if e != "hukru"])
    with pytest.raises(RegistryError, match=r"experiment seed003/hukru: the report module seed003 reads no such"):
        check_modules(reg, {"003": ignored})
