"""Where each record file came from: its path and the git commit that last changed it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def display_base(data_dir: Path) -> Path:
    """What record paths are shown relative to: the git work tree, else data_dir's parent."""
    top = git_toplevel(data_dir)
    return top if top is not None else data_dir.resolve().parent


def display_path(path: Path, base: Path) -> str:
    """How a record file is named in messages and provenance: stable, relative to base."""
    try:
        return path.resolve().relative_to(base).as_posix()
    except ValueError:
        return path.as_posix()


def git_toplevel(data_dir: Path) -> Path | None:
    """The root of the git work tree holding data_dir, or None when it is not in git."""
    out = _git(data_dir, "rev-parse", "--show-toplevel")
    return Path(out.strip()).resolve() if out else None


def last_commits(data_dir: Path, only: list[str] | None = None) -> dict[str, str]:
    """Map each committed, unmodified file below data_dir (path from the repo root) to the
    commit that last changed it. One `git log` pass, so it stays fast at 100k files; `only`:
    of these files (paths from the repo root) alone."""
    top = git_toplevel(data_dir)
    if top is None:
        return {}
    rel = [os.path.relpath(data_dir.resolve(), top)] if only is None else only
    if not rel:
        return {}
    git = (top, "--literal-pathspecs")  # a file named with * or [ is that file
    log = _git(*git, "log", "--format=@%H", "--name-only", "--no-renames", "--", *rel) or ""
    commits: dict[str, str] = {}
    current = ""
    for line in log.splitlines():
        if line.startswith("@"):
            current = line[1:]
        elif line and line not in commits:
            commits[line] = current
    dirty = _git(*git, "status", "--porcelain", "--untracked-files=all", "-z", "--", *rel) or ""
    for entry in dirty.split("\0"):
        if len(entry) > 3:
            commits.pop(entry[3:], None)
    return commits


def git_head(data_dir: Path) -> str | None:
    """The commit checked out in the work tree holding data_dir (None: not in git)."""
    out = _git(data_dir, "rev-parse", "HEAD")
    return out.strip() if out else None


def _git(cwd: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    except (OSError, ValueError):
        return None
    return done.stdout if done.returncode == 0 else None
