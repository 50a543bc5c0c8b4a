"""The house style holds (STYLE.md: ruff for lint and format): `make test` fails on code that
`ruff check` or `ruff format --check` would change, so formatting never drifts again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TREES = ["src", "tests", "benchmarks", "docs"]


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=" ".join)
def test_ruff_finds_nothing_to_change(command):
    done = subprocess.run(
        [sys.executable, "-m", "ruff", *command, *TREES], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
