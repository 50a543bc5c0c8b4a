"""The commit an import names for its source: read from the checkout, also once `git
pack-refs` (or `git gc`, or a clone) has moved its branch into packed-refs."""

from __future__ import annotations

import subprocess

import pytest

from benchgraph.importers.common import detect_commit


def _git(folder, *args) -> str:
    return subprocess.run(
        ["git", "-C", str(folder), *args], check=True, text=True, capture_output=True
    ).stdout.strip()


@pytest.fixture
def checkout(tmp_path):
    folder = tmp_path / "inference_results_v9.9"
    folder.mkdir()
    _git(folder, "init", "-q", "-b", "main")
    (folder / "README.md").write_text("results\n")
    _git(folder, "add", "README.md")
    _git(
        folder,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.org",
        "commit",
        "-q",
        "-m",
        "results",
    )
    return folder


def test_a_loose_branch_and_a_packed_one_name_the_same_commit(checkout):
    commit = _git(checkout, "rev-parse", "HEAD")
    assert detect_commit(checkout) == commit
    _git(checkout, "pack-refs", "--all")
    assert not (checkout / ".git" / "refs" / "heads" / "main").exists()
    assert detect_commit(checkout) == commit
    assert detect_commit(checkout, "v9.9") == commit


def test_a_sources_line_for_the_round_then_a_source_file_come_first(checkout):
    (checkout.parent / "SOURCES").write_text("v9.9 " + "a" * 40 + "\n")
    assert detect_commit(checkout, "v9.9") == "a" * 40
    (checkout / "SOURCE").write_text("https://example.org/repo " + "b" * 40 + "\n")
    assert detect_commit(checkout) == "b" * 40
