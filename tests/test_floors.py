"""The floors hold: no module imports a package above its own (the layers contract in
pyproject.toml, checked by import-linter over every import, those inside functions too)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from importlinter import cli

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "benchgraph"
CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "importlinter"
]["contracts"]
# What importers/ and links/ may import, as their __init__ says: records and the base floor
RECORDS_AND_BASE = {
    "records", "vocab", "resources", "locks", "scratch", "timing", "namespaces", "errors",
    "_version", "settings",
}  # fmt: skip


def test_no_import_climbs_a_floor(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)  # the contract names the package as installed from src/
    code = cli.lint_imports(
        config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True
    )
    assert code == 0, capsys.readouterr().out


def test_records_and_the_base_contracts_forbid_every_other_package():
    """A package added later is forbidden to importers/ and links/ too: each of the two lists
    names every package of benchgraph but records, the base and its own."""
    packages = {
        p.stem for p in PACKAGE.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()
    }
    packages -= {"__init__", "__main__"}
    for own in ("importers", "links"):
        (contract,) = [c for c in CONTRACTS if c.get("source_modules") == [f"benchgraph.{own}"]]
        forbidden = {m.removeprefix("benchgraph.") for m in contract["forbidden_modules"]}
        assert forbidden == packages - RECORDS_AND_BASE - {own}, contract["name"]


def test_an_import_beyond_records_and_the_base_breaks_a_contract(tmp_path):
    """The contracts catch what the docstrings promise against: importers/ reaching the store,
    links/ the build, query/ the records (query/ sits beside records, importing the base alone).
    Each is written into a copy of the package, and lint-imports must name its contract."""
    copy = tmp_path / "src" / "benchgraph"
    shutil.copytree(
        PACKAGE, copy, ignore=shutil.ignore_patterns("resources", "static", "templates", "*.pyc")
    )  # the modules alone: import-linter reads no data file
    breaches = {
        "importers/common.py": "from ..store import cache",
        "links/sssom.py": "from ..pipeline import steps",
        "query/saved.py": "from ..records import schema",
    }
    for module, line in breaches.items():
        with (copy / module).open("a", encoding="utf-8") as f:
            f.write(f"\n{line}  # noqa\n")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    lint = (
        "import sys; from importlinter import cli; sys.exit(cli.lint_imports("
        "config_filename='pyproject.toml', no_cache=True, no_logo=True))"
    )
    run = subprocess.run(
        [sys.executable, "-c", lint],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path / "src")},
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    out = run.stdout
    assert run.returncode != 0, out
    assert "importers import only records and the base BROKEN" in out, out
    assert "benchgraph.importers.common -> benchgraph.store.cache" in out, out
    assert "links import only records and the base BROKEN" in out, out
    assert "benchgraph.links.sssom -> benchgraph.pipeline.steps" in out, out
    assert "floors BROKEN" in out, out
    assert "benchgraph.query.saved -> benchgraph.records.schema" in out, out


def test_no_two_modules_import_each_other_in_a_circle():
    """Two modules that import each other are one job split badly (STYLE.md): a circle of
    any length among benchgraph's modules, imports inside functions included, fails."""
    import grimp

    graph = grimp.build_graph("benchgraph", cache_dir=None)
    imports = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    circles, state = [], {}

    def visit(module: str, path: list[str]) -> None:  # path: the modules open above this one
        state[module] = "open"
        for other in sorted(imports[module]):
            if state.get(other) == "open":  # an import back up the path: a circle
                circles.append(" -> ".join([*path[path.index(other) :], module, other]))
            elif other not in state:
                visit(other, [*path, module])
        state[module] = "done"

    for module in sorted(graph.modules):
        if module not in state:
            visit(module, [])
    assert not circles, "\n".join(circles)
