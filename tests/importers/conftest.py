"""Fixtures of the importer tests: the shipped data, the small fixtures, ../shared."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# CI lays shared/ beside the repo clone; the project itself never reads it.
SHARED = REPO / ".." / "shared"
MLPERF = SHARED / "data" / "mlperf"


def _need(path: Path) -> Path:
    if not path.is_dir():
        pytest.skip(f"{path.resolve()} is not here: this test reads the real outside data")
    return path


@pytest.fixture
def shipped() -> Path:
    """The repo's data/ folder, as shipped."""
    return REPO / "data"


@pytest.fixture
def fixtures() -> Path:
    """The small hand-picked fixtures of tests/importers/data/ (see its README)."""
    return Path(__file__).resolve().parent / "data"


@pytest.fixture
def v51() -> Path:
    """The MLPerf Inference v5.1 checkout under ../shared (skips where absent)."""
    return _need(MLPERF / "inference_results_v5.1")


@pytest.fixture
def v41() -> Path:
    """The MLPerf Inference v4.1 checkout under ../shared (skips where absent)."""
    return _need(MLPERF / "inference_results_v4.1")


@pytest.fixture
def argonne_copy() -> Path:
    """The LLM-Inference-Bench copy under ../shared (skips where absent)."""
    return _need(SHARED / "data" / "other" / "argonne-llm-inference-bench")


@pytest.fixture(scope="session")
def imported(tmp_path_factory):
    """Import a real source once per session: imported("v5.1") -> (out dir, report); also
    "argonne" and "trtllm"."""
    from benchgraph.importers import import_argonne, import_mlperf, import_trtllm

    done: dict[str, tuple[Path, object]] = {}

    def run(which: str):
        if which not in done:
            out = tmp_path_factory.mktemp(f"import-{which}")
            if which == "argonne":
                source = _need(SHARED / "data" / "other" / "argonne-llm-inference-bench")
                done[which] = (out, import_argonne(source, out))
            elif which == "trtllm":
                source = _need(SHARED / "data" / "other" / "tensorrt-llm-perf-overview")
                done[which] = (out, import_trtllm(source, out))
            else:
                source = _need(MLPERF / f"inference_results_{which}")
                done[which] = (out, import_mlperf(source, out))
        return done[which]

    return run
