"""A long-lived builder's session (pipeline/session.py): told which files changed, a build
reads only those, and leaves the store and cache as a full scan's build would; what it cannot
trust (a new file, another build's commit, a moved HEAD) it scans in full."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from benchgraph.pipeline.session import Session
from benchgraph.pipeline.steps import build
from benchgraph.store.export import dumps
from paths import TEST_DATA

PCIE_RUN = "benchmarks/pcie-run.yaml"
NVLINK_RUN = "benchmarks/nvlink-run.yaml"
SXM = "accelerators/sxm-part.yaml"


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "cache"))
    target = tmp_path / "data"
    shutil.copytree(TEST_DATA / "fabric", target)
    return target


def edit(data: Path, name: str, old: str, new: str) -> str:
    """Replace old by new in a record file; its absolute path, as the watcher tells it."""
    path = data / name
    text = path.read_text()
    assert old in text, (name, old)
    path.write_text(text.replace(old, new, 1))
    return str(path.resolve())


def session_after_a_build(data: Path) -> Session:
    session = Session()
    build(data, skip_invalid=True, session=session)
    session.remember()
    return session


def cold(data: Path, tmp_path: Path, monkeypatch) -> tuple[str, bytes]:
    """The key and N-Quads of a build of data from an empty cache."""
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "cold-cache"))
    result = build(data, skip_invalid=True)
    return result.key, dumps(result.open(), "nq")


def test_a_told_edit_builds_as_a_full_scan_would(data, tmp_path, monkeypatch):
    session = session_after_a_build(data)
    told = [
        edit(data, PCIE_RUN, "confidence: ", "confidence: 0.31 #"),
        edit(data, SXM, "nvlink-4, ", ""),  # its runs: derived and checked again
    ]
    session.told(told)
    result = build(data, skip_invalid=True, session=session)
    assert session.scanned == "told"
    assert result.rebuilt == 2
    served = dumps(result.open(), "nq")
    # a full scan then finds nothing left to build
    again = build(data, skip_invalid=True)
    assert not again.changed and again.key == result.key
    # and a build from nothing makes the same
    assert cold(data, tmp_path, monkeypatch) == (result.key, served)


def test_told_builds_key_their_records_as_a_cold_build_with_records_left_out(
    data, tmp_path, monkeypatch
):
    """The key's sorted digests are the last build's with the told changes (Session.digests):
    a part left out, a run edited meanwhile and the part mended give a cold build's keys."""
    session = session_after_a_build(data)
    steps = [
        (SXM, "vendor: Example", "vendor: Example\nmemory_gb: lots"),  # left out, with its runs
        (PCIE_RUN, "confidence: ", "confidence: 0.31 #"),
        (SXM, "vendor: Example\nmemory_gb: lots", "vendor: Example"),  # back in
    ]
    left_out = []
    for name, old, new in steps:
        session.told([edit(data, name, old, new)])
        result = build(data, skip_invalid=True, session=session)
        assert session.scanned == "told"
        left_out.append(sorted(result.left_out))
        assert cold(data, tmp_path / name.replace("/", "-"), monkeypatch)[0] == result.key
        monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "cache"))
        session.remember()
    assert any(SXM in p for p in left_out[0]) and left_out[0] == left_out[1]
    assert left_out[2] == []


def test_a_told_file_deleted_leaves_the_build(data, tmp_path, monkeypatch):
    session = session_after_a_build(data)
    (data / NVLINK_RUN).unlink()
    session.told([str((data / NVLINK_RUN).resolve())])
    result = build(data, skip_invalid=True, session=session)
    assert session.scanned == "told"
    assert result.records == len(list(data.rglob("*.yaml")))
    assert b"nvlink-run" not in dumps(result.open(), "nq")
    assert cold(data, tmp_path, monkeypatch) == (result.key, dumps(result.open(), "nq"))


def test_a_change_not_told_is_built_by_the_next_build(data):
    session = session_after_a_build(data)
    edit(data, NVLINK_RUN, "confidence: ", "confidence: 0.32 #")  # the watcher missed it
    session.told([edit(data, PCIE_RUN, "confidence: ", "confidence: 0.31 #")])
    assert build(data, skip_invalid=True, session=session).rebuilt == 1
    session.remember()  # its full scan sees the other file
    session.told([edit(data, PCIE_RUN, "confidence: 0.31 #", "confidence: 0.33 #")])
    result = build(data, skip_invalid=True, session=session)
    assert session.scanned == "told" and result.rebuilt == 2
    assert not build(data, skip_invalid=True).changed


def test_paths_outside_the_data_folder_are_not_the_builds(data, tmp_path):
    session = session_after_a_build(data)
    session.told([str(tmp_path / "extra.ttl"), str(tmp_path / "queries" / "q.rq")])
    assert not build(data, skip_invalid=True, session=session).changed
    assert session.scanned == "told"


@pytest.mark.parametrize(
    "change",
    ["a new file", "a folder", "another build", "nothing remembered", "a full scan asked for"],
)
def test_what_a_session_cannot_trust_is_scanned_in_full(data, change):
    session = session_after_a_build(data)
    told = [edit(data, PCIE_RUN, "confidence: ", "confidence: 0.31 #")]
    if change == "a new file":
        new = data / "benchmarks" / "copy.yaml"
        new.write_text((data / PCIE_RUN).read_text().replace("id: pcie-run", "id: copy"))
        told.append(str(new.resolve()))
    elif change == "a folder":
        (data / "benchmarks" / "more").mkdir()
        told.append(str((data / "benchmarks" / "more").resolve()))
    elif change == "another build":
        build(data, skip_invalid=True)  # `benchgraph build` beside the server: the cache moved
    elif change == "nothing remembered":
        session = Session()
    else:
        session.forget()
    session.told(told)
    result = build(data, skip_invalid=True, session=session)
    assert session.scanned == "full"
    assert not build(data, skip_invalid=True).changed
    if change == "a new file":
        assert b"/copy>" in dumps(result.open(), "nq")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def test_in_git_a_told_file_has_its_commit_as_a_full_scan_finds_it(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "cache"))
    repo = tmp_path / "repo"
    data = repo / "data"
    shutil.copytree(TEST_DATA / "fabric", data)
    git(tmp_path, "init", "-q", str(repo))
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "first")
    session = session_after_a_build(data)

    told = edit(data, PCIE_RUN, "confidence: ", "confidence: 0.31 #")
    session.told([told])
    build(data, skip_invalid=True, session=session)
    assert session.scanned == "told"
    assert not build(data, skip_invalid=True).changed  # the edited file: no commit, as full
    session.remember()

    git(repo, "checkout", "--", f"data/{PCIE_RUN}")  # as committed again: its commit back
    session.told([told])
    build(data, skip_invalid=True, session=session)
    assert session.scanned == "told"
    assert not build(data, skip_invalid=True).changed
    session.remember()

    edit(data, "models/model.yaml", "name: ", "name: Edited ")
    git(repo, "commit", "-qam", "second")  # HEAD moves: every file's commit may have
    session.told([edit(data, NVLINK_RUN, "confidence: ", "confidence: 0.32 #")])
    result = build(data, skip_invalid=True, session=session)
    assert session.scanned == "full"
    assert git(repo, "rev-parse", "HEAD").encode() in dumps(result.open(), "nq")
    assert not build(data, skip_invalid=True).changed
