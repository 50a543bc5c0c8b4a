"""Watching what a served dataset is made of, for `benchgraph serve --watch`: the data folder,
the --with files, the saved queries, the ontology and the shapes.

watchfiles (Rust `notify`: inotify on Linux, FSEvents, ReadDirectoryChangesW) rather than
polling the files: on the shipped data (6,462 record files) one poll of every file's size
and time takes 17 ms of CPU, 244 ms at 100k files, so a poll every half second would keep
half a core busy there, and still miss a change within one timestamp tick; the watcher sat
at 2.2 ms of CPU in 3 s idle, told of one write 71 ms after it, and of a burst of 50 writes
as one batch 73 ms after it began (benchmarks/reports/reload.md). On file systems
that send no events (some network and container mounts), --watch-poll makes watchfiles poll.
The settling (one rebuild per burst) is reload.Reloader's: this only reports changes.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

# Folders whose changes never touch the dataset: version control, benchgraph's build cache,
# editors' and tools' own.
IGNORED_DIRS = {
    ".git",
    ".hg",
    ".svn",
    ".benchgraph",
    "__pycache__",
    ".idea",
    ".vscode",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
}
# Editors' temporary, swap and backup files: vim (.x.swp, x~, 4913), emacs (.#x, #x#),
# JetBrains (x___jb_tmp___), gedit (.goutputstream-*), kate (.x.kate-swp), nano (x.save),
# and partial downloads or copies.
TEMPORARY = re.compile(
    r"^(?:\..*|#.*#|4913|.*~|.*___jb_\w+___|.*\.(?:sw[a-p]|tmp|part|save|"
    r"bak|orig|rej|crdownload))$"
)
RECORD_SUFFIXES = (".yaml", ".yml")


def shown(paths: set[str] | list[str]) -> str:
    """Changed paths as a log line names them: the first three in order, and how many more."""
    ordered = sorted(paths)
    return ", ".join(ordered[:3]) + (f" (+{len(ordered) - 3})" if len(ordered) > 3 else "")


class DataFilter:
    """Which changes in a data folder may change what a build reads: a record file, or a
    folder of them (made, renamed, deleted); not an editor's temporary file, even one with
    no telling name (sed -i's `sedXXXXXX`), which is gone by the time its change is seen."""

    def __init__(self, folder: Path) -> None:
        self.folders = {str(folder.resolve())}
        for parent, names, _files in os.walk(folder.resolve()):
            names[:] = [n for n in names if n not in IGNORED_DIRS]
            self.folders.update(os.path.join(parent, n) for n in names)

    def __call__(self, path: str) -> bool:
        p = Path(path)
        if any(part in IGNORED_DIRS for part in p.parts) or TEMPORARY.match(p.name):
            return False
        if p.name.endswith(RECORD_SUFFIXES):
            return True
        if os.path.isdir(path):
            self.folders.add(path)
            return True
        return path in self.folders  # a folder deleted or renamed away


class Watcher:
    """Calls `on_change(paths)` from background threads as watched files change."""

    def __init__(self, on_change: Callable[[set[str]], None], *, poll: bool = False) -> None:
        self.on_change = on_change
        self.poll = poll
        self.watching: list[str] = []
        self._stop = threading.Event()

    def tree(self, folder: Path) -> None:
        """Watch a data folder and everything below it."""
        self._start([folder], True, DataFilter(folder))

    def files(self, paths: list[Path]) -> None:
        """Watch single files (each through its folder, since editors replace a file by
        renaming a new one over it, which ends a watch on the file itself)."""
        by_folder: dict[Path, set[str]] = {}
        for path in paths:
            by_folder.setdefault(path.resolve().parent, set()).add(path.resolve().name)
        for folder, names in by_folder.items():
            self._start([folder], False, lambda path, names=names: Path(path).name in names)

    def folder(self, folder: Path, suffix: str) -> None:
        """Watch the files of one folder (not below) that end in `suffix`."""
        self._start(
            [folder],
            False,
            lambda path: Path(path).name.endswith(suffix) and not TEMPORARY.match(Path(path).name),
        )

    def _start(self, paths: list[Path], recursive: bool, wanted: Callable[[str], bool]) -> None:
        paths = [p.resolve() for p in paths if p.is_dir()]  # resources/ holds symlinks
        if not paths:
            return
        self.watching += [str(p) + ("/**" if recursive else "") for p in paths]
        threading.Thread(
            target=self._run, args=(paths, recursive, wanted), name="watch", daemon=True
        ).start()

    def _run(self, paths: list[Path], recursive: bool, wanted: Callable[[str], bool]) -> None:
        import watchfiles

        try:
            for changes in watchfiles.watch(
                *paths,
                watch_filter=lambda _change, path: wanted(path),
                recursive=recursive,
                stop_event=self._stop,
                force_polling=self.poll,
                debounce=1600,
                step=50,
                raise_interrupt=False,
                # a watched folder that is gone (renamed, checked out away) is not fatal
                ignore_permission_denied=True,
            ):
                self.on_change({path for _change, path in changes})
        except Exception:  # a watcher that fails leaves the server serving, and says so
            log.exception("watching %s stopped", ", ".join(map(str, paths)))

    def stop(self) -> None:
        self._stop.set()
