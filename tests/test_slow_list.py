"""Every test slow_tests.py names is there: a test renamed or removed would leave a name
behind that marks nothing, and its new name would run in `make test-fast` unseen."""

from __future__ import annotations

import ast

from paths import ROOT
from slow_tests import SLOW


def test_every_name_in_the_slow_list_is_a_test():
    missing = []
    for node in sorted(SLOW):
        path, name = node.split("::")
        file = ROOT / path
        tree = ast.parse(file.read_text(encoding="utf-8")) if file.is_file() else None
        if tree is None or name not in {
            f.name for f in tree.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
        }:
            missing.append(node)
    assert not missing, missing
