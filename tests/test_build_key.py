"""The build key hashes what a build's data is made from and nothing else: a comment in a
module that serves, prints or links leaves every build in place; one in a module that reads,
converts, checks or infers records rebuilds (pipeline/key.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import grimp
import pytest

import benchgraph
from benchgraph.pipeline.key import build_files, code_key, key_of

PACKAGE = Path(benchgraph.__file__).resolve().parent


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A copy of the package (its resources copied, not linked), to edit."""
    copy = tmp_path_factory.mktemp("key") / "benchgraph"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "static"))
    return copy


def _with_comment(tree: Path, name: str) -> str:
    path = tree / name
    before = path.read_bytes()
    path.write_bytes(before + b"\n# a comment\n")
    try:
        return key_of(tree)
    finally:
        path.write_bytes(before)


def test_the_copy_has_the_packages_key(tree):
    assert key_of(tree) == code_key()


@pytest.mark.parametrize(
    "name",
    [
        "serving/watch.py",
        "serving/snapshots.py",
        "serving/reload.py",
        "serving/prepare.py",
        "web/sparql.py",
        "web/__init__.py",
        "cli/main.py",
        "cli/serve.py",
        "cli/report.py",
        "query/text.py",
        "query/saved.py",
        "links/reconcile.py",
        "importers/mlperf.py",
        "store/export.py",
        "store/push.py",
        "store/extra.py",
        "__init__.py",
        "__main__.py",
    ],
)
def test_a_comment_where_data_is_served_printed_or_linked_keeps_the_key(tree, name):
    assert _with_comment(tree, name) == key_of(tree)


@pytest.mark.parametrize(
    "name",
    [
        "rdf/convert.py",
        "records/reader.py",
        "records/schema.py",
        "validation/fabric.py",
        "validation/shacl.py",
        "reasoning/rules.py",
        "reasoning/infer.py",
        "pipeline/steps.py",
        "store/load.py",
        "store/cache.py",
        "vocab.py",
        "resources/shapes/benchgraph-shapes.ttl",
        "resources/validation/aggregator-hosts.txt",
    ],
)
def test_a_comment_where_data_is_made_changes_the_key(tree, name):
    assert _with_comment(tree, name) != key_of(tree)


def test_every_module_the_build_imports_is_hashed():
    """The allow-list cannot fall behind: a module the build comes to import, and the key
    does not hash, fails here."""
    graph = grimp.build_graph("benchgraph")
    imported = graph.find_upstream_modules("benchgraph.pipeline", as_package=True)
    hashed = set(build_files(PACKAGE))
    missing = []
    for module in sorted(imported | graph.find_descendants("benchgraph.pipeline")):
        parts = module.split(".")[1:]
        path = PACKAGE.joinpath(*parts).with_suffix(".py")  # resources.py, beside resources/
        if not path.is_file():
            path = PACKAGE.joinpath(*parts, "__init__.py")
        if path not in hashed:
            missing.append(module)
    assert missing == []
