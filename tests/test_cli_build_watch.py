"""`benchgraph build --watch`, as a curator runs it beside an editor: it builds, then builds
again on each save, reading only the saved file; a save that breaks a record names the file,
line, field and value and the watch goes on; the next save that mends it builds; Ctrl-C
ends it with exit code 0, and the store holds the last build."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading

from paths import ROOT

SEED = "benchmarks/ev-sglang-dsv41-production-decode-tok-s-per-user.yaml"
WAIT = 120.0  # seconds for a line on a loaded machine (the first build is a cold one)
CONFIDENCE = """PREFIX bg: <https://w3id.org/benchgraph/ontology#>
SELECT ?c WHERE { ?run bg:confidence ?c
  FILTER(STRENDS(STR(?run), "ev-sglang-dsv41-production-decode-tok-s-per-user")) }"""


class Lines:
    """A process's stderr, line by line, read in a thread so a test can wait for a line."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, args=(proc.stderr,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def until(self, *words: str) -> list[str]:
        """The lines up to and with the first that holds every word."""
        taken = []
        while True:
            try:
                line = self._queue.get(timeout=WAIT)
            except queue.Empty:
                raise AssertionError(f"no line with {words} in {WAIT} s: {self.seen}") from None
            if line is None:
                raise AssertionError(f"it ended before a line with {words}: {self.seen}")
            self.seen.append(line)
            taken.append(line)
            if all(w in line for w in words):
                return taken


def test_a_save_is_built_from_the_saved_file_and_a_broken_one_is_named(copy_data):
    data = copy_data(ROOT / "shapes" / "examples" / "base")
    seed = data / SEED
    text = seed.read_text(encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "benchgraph", "build", "--data", str(data), "--watch"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=os.environ | {"PYTHONUNBUFFERED": "1"},
        # as a terminal starts it: SIGINT at its default (a suite started in the background
        # by a script, as CI's is, has every child ignore it)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        lines = Lines(proc)
        first = lines.until("watching")
        assert any("every file scanned" in line for line in first), first

        seed.write_text(text.replace("confidence: 0.75", "confidence: 10.75"), encoding="utf-8")
        broken = lines.until("watching")
        named = [line for line in broken if f"{SEED}:6: " in line]
        assert named and "confidence" in named[0] and "10.75" in named[0], broken
        assert any("nothing was built" in line for line in broken), broken

        seed.write_text(text.replace("confidence: 0.75", "confidence: 0.5"), encoding="utf-8")
        mended = lines.until("watching")
        assert any("(1 converted)" in x and "the changed files read" in x for x in mended), mended

        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=WAIT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    done = subprocess.run(
        [sys.executable, "-m", "benchgraph", "query", "--data", str(data), CONFIDENCE],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "0.5" in done.stdout and "0.75" not in done.stdout, done.stdout
    # the store was current: the query's own build had nothing to convert
    assert "converted" not in done.stderr, done.stderr
