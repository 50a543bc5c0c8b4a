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
