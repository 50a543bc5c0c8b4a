"""The floors hold: no module imports a package above its own (the layers contract in
pyproject.toml, checked by import-linter over every import, those inside functions too)."""

from __future__ import annotations

from pathlib import Path

from importlinter import cli

ROOT = Path(__file__).resolve().parent.parent


def test_no_import_climbs_a_floor(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)  # the contract names the package as installed from src/
    code = cli.lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True)
    assert code == 0, capsys.readouterr().out


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
