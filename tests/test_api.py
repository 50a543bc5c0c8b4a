"""The library's public API: `benchgraph.build` and the names in __all__, got without the
`benchgraph` command paying for their imports."""

from __future__ import annotations

import subprocess
import sys

import benchgraph
from paths import TEST_DATA


def test_every_public_name_is_there():
    for name in benchgraph.__all__:
        assert getattr(benchgraph, name) is not None, name
    assert set(benchgraph.__all__) <= set(dir(benchgraph))


def test_build_is_the_function_whatever_was_imported_first(tmp_path, monkeypatch):
    import benchgraph.pipeline  # noqa: F401  a submodule import must not shadow it

    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path))
    result = benchgraph.build(TEST_DATA / "fabric", skip_invalid=True)
    assert isinstance(result, benchgraph.BuildResult) and result.records > 0


def test_importing_the_package_imports_no_rdf_library():
    code = (
        "import sys, benchgraph\n"
        "print(sorted({'rdflib', 'pyoxigraph', 'flask'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
