"""The generators' side of the experiment registry
(scenarios/registry/experiments.toml, docs/report.md "The experiment
registry"): a generator renders its files, asks :func:`write_checked` to
compare their names with the registry's entries for its seed, and writes
nothing when they differ. Loads python/mptlab/experiments.py by path, so the
scripts need neither the compiled package nor an install."""
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _experiments():
    name = "mptlab_experiments_standalone"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "python" / "mptlab" / "experiments.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod  # dataclasses look their module up here
        spec.loader.exec_module(mod)
    return sys.modules[name]


def write_checked(seed, files, clean=False):
    """files: [(stem, text)]. Check the stems against the registry's
    experiments of `seed` (exit 1 with one message naming the registry and
    the entry if they differ), optionally remove the old *.toml of the
    directory, then write and print each file. Also checks the sweep axes of
    every file against its entry."""
    ex = _experiments()
    out = ROOT / "scenarios" / f"seed{seed}"
    try:
        reg = ex.load(ROOT / "scenarios" / ex.REGISTRY)
        ex.check_generated(reg, seed, [stem for stem, _ in files])
        for stem, text in files:
            ex.check_axes(reg.get(f"seed{seed}/{stem}"), text, reg.path)
    except ex.RegistryError as err:
        sys.exit(f"error: {err}")
    out.mkdir(parents=True, exist_ok=True)
    if clean:
        for old in out.glob("*.toml"):
            old.unlink()
    for stem, text in files:
        f = out / f"{stem}.toml"
        f.write_text(text)
        print(f)
