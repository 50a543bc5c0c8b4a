"""What a `benchgraph build` loads: not the importers, which `benchgraph import` alone runs,
nor pySHACL, which no build needs (validation/shacl.py calls it for a range that is not a
number, and no shape has one). Each was loaded at every command's start (78 and 90 ms)."""

from __future__ import annotations

import os
import subprocess
import sys

from paths import ROOT

LOADED = """
import sys
from benchgraph.cli.main import main
code = main(["build", "--data", sys.argv[1]])
print(code, sorted({m.split(".")[0] if m.startswith("pyshacl") else m for m in sys.modules
                    if m.startswith(("pyshacl", "benchgraph.importers"))}))
"""


def test_a_build_loads_neither_the_importers_nor_pyshacl(tmp_path, copy_data):
    data = copy_data(ROOT / "shapes" / "examples" / "base")
    done = subprocess.run(
        [sys.executable, "-c", LOADED, str(data)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "BENCHGRAPH_CACHE": str(tmp_path / "cache")},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "0 []"
