"""Where the repo, its shipped data, the test data and ../shared are."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
TEST_DATA = Path(__file__).resolve().parent / "data"
SHARED = ROOT.parent / "shared"
# Set by .ci/run: a test that needs ../shared fails where it would skip (conftest.py)
REQUIRE_SHARED = "BENCHGRAPH_REQUIRE_SHARED"
