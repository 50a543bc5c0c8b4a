"""Wall-clock laps of a build's phases, for benchmarks and `--verbose` output."""

from __future__ import annotations

import time


class Timer:
    """Records how long each named phase took, in seconds."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = self.laps.get(name, 0.0) + now - self._last
        self._last = now
