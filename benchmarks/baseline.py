"""Another commit's benchgraph in an environment of its own, for the benchmarks' `--baseline REV`.

    env = baseline.prepare("56b1f49")   # .benchgraph/baseline-56b1f49xxx/{tree,venv}
    subprocess.run([str(env.python), "-m", "benchgraph", ...])

The commit's files are taken with `git archive` into `tree/`, and `venv/` is a virtual
environment whose benchgraph is that tree's `src/` (a path file, as an editable install
writes). Its other packages are this environment's, at the versions today's code runs with:
the ratio a benchmark reports is then benchgraph's code against benchgraph's code, not a
newer rdflib or pyoxigraph against an older one, and making the environment needs no network.
A commit that needs a package this environment lacks fails on import, naming the package.
"""

from __future__ import annotations

import io
import subprocess
import sys
import sysconfig
import tarfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOME = ROOT / ".benchgraph"  # git-ignored, beside the builds


@dataclass(frozen=True)
class Baseline:
    """A commit's benchgraph, ready to run: `python` imports it."""

    rev: str  # as asked
    sha: str
    tree: Path  # the commit's files (src/, data/, tests/data/, ...)
    python: Path

    @property
    def label(self) -> str:
        return self.sha[:7]


def resolve(rev: str) -> str:
    """The commit `rev` names in this repository."""
    done = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", f"{rev}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(f"--baseline {rev}: not a commit of {ROOT} ({done.stderr.strip()})")
    return done.stdout.strip()


def prepare(rev: str, home: Path = HOME) -> Baseline:
    """The environment of `rev`, made on first use and reused after (keyed by its commit)."""
    sha = resolve(rev)
    where = home / f"baseline-{sha[:10]}"
    tree, venv = where / "tree", where / "venv"
    python = venv / "bin" / "python"
    ready = where / "ready"
    if not ready.exists():
        _fresh(where)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", sha],
            capture_output=True,
            check=True,
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tree, filter="data")  # its own links (resources/) stay inside
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        site = Path(
            subprocess.run(
                [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
        )
        ours = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
        # the tree's src first: it is the benchgraph imported; this environment's packages
        # after it (a path line adds the folder only: its own path files, among them today's
        # editable benchgraph, are not read)
        (site / "benchgraph-baseline.pth").write_text(
            "\n".join([str(tree / "src"), *ours]) + "\n", encoding="utf-8"
        )
        ready.write_text(sha + "\n", encoding="utf-8")
    found = subprocess.run(
        [str(python), "-c", "import benchgraph; print(benchgraph.__file__)"],
        capture_output=True,
        text=True,
    )
    if found.returncode or not found.stdout.strip().startswith(str(tree)):
        raise SystemExit(
            f"{python}: does not import the benchgraph of {tree / 'src'}: "
            f"{found.stdout.strip()} {found.stderr.strip()[-500:]}"
        )
    return Baseline(rev, sha, tree, python)


def _fresh(where: Path) -> None:
    import shutil

    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
