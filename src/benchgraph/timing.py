"""Wall-clock time: of a build's phases, for benchmarks and `--verbose` output, and of a
whole block (an import's report)."""

from __future__ import annotations

import time
from typing import Self


class Timer:
    """How long each named phase took (`lap`), and, used as `with Timer() as t:`, how long
    the block took (`t.seconds`), in seconds."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self.seconds = 0.0
        self._start = self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = self.laps.get(name, 0.0) + now - self._last
        self._last = now

    def __enter__(self) -> Self:
        self._start = self._last = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self._start
