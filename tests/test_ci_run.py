"""CI fails, rather than passes with skips, where ../shared is missing: .ci/run stops before
installing anything, and the suite ends at once when .ci/run's variable is set."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from paths import REQUIRE_SHARED, ROOT, SHARED


def test_ci_run_fails_where_shared_is_missing(tmp_path):
    clone = tmp_path / "clone"  # no shared/ beside it
    (clone / ".ci").mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "run", clone / ".ci" / "run")
    run = subprocess.run(
        ["bash", str(clone / ".ci" / "run")], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 1
    assert f"{tmp_path}/shared is missing" in run.stderr


def test_the_suite_ends_at_once_where_shared_is_required_and_missing(tmp_path):
    """The conftest's check, in a copy of the tests beside no shared/."""
    clone = tmp_path / "clone"
    (clone / "tests").mkdir(parents=True)
    for name in ("conftest.py", "paths.py", "slow_tests.py"):
        shutil.copy(ROOT / "tests" / name, clone / "tests" / name)
    (clone / "tests" / "test_nothing.py").write_text("def test_nothing():\n    pass\n")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(clone),
         "-o", "pythonpath=tests", "tests"],
        cwd=clone, env={**os.environ, REQUIRE_SHARED: "1"},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"{tmp_path / 'shared'} is not here" in run.stdout + run.stderr
    assert "1 passed" not in run.stdout
    assert SHARED != tmp_path / "shared"  # the check read the copy's place, not the repo's
