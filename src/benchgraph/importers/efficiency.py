"""Energy efficiency, derived from a run's measured power and its throughput of the same scope.

Only measured power counts: MLPerf's rules allow per-watt claims from measured system power
alone, and a figure over a TDP or a nameplate power would read as measured. So nothing here
takes a rated figure; a run without a measured power gets no efficiency. The two kinds of
power stay apart, each with its own metric:

- system (wall) power, MLPerf's `system-power`: the system's throughput over it, tokens
  (samples, queries) per joule of the whole system;
- one accelerator's board power, `power-draw` (NVML's reading): a one-accelerator run's
  throughput over it, tokens per joule of the board.

A per-user rate (`tok-s-per-user`) is never divided: it is not the work of the power measured.
MLPerf's SingleStream and MultiStream power results are already joules per query
(`energy-per-query`), and get no other figure.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

# throughput metric -> (efficiency metric, unit), over system power
SYSTEM = {
    "throughput-tok-s": ("tokens-per-joule", "tok/J"),
    "throughput-samples-s": ("samples-per-joule", "samples/J"),
    "throughput-queries-s": ("queries-per-joule", "queries/J"),
}
# over one accelerator's board power: only token throughputs occur (Argonne's)
BOARD = {
    "throughput-tok-s": ("tokens-per-joule-board", "tok/J"),
    "throughput-total-tok-s": ("tokens-per-joule-board", "tok/J"),
}
RATE_UNITS = {"tok/s", "samples/s", "queries/s"}


def _ratio(value: Any, watts: Any) -> float | None:
    if not isinstance(value, (int, float)) or not isinstance(watts, (int, float)):
        return None
    if isinstance(value, bool) or isinstance(watts, bool) or watts <= 0 or value <= 0:
        return None
    return float(f"{Decimal(repr(value)) / Decimal(repr(watts)):.8g}")


def of_system(metric: str, value: Any, unit: str, power: dict[str, Any]) -> list[dict]:
    """The system's efficiency: its throughput (a run's headline) over its measured system
    power, or nothing when either is not of that kind."""
    if power.get("metric") != "system-power" or power.get("unit") != "W":
        return []
    target = SYSTEM.get(metric)
    ratio = _ratio(value, power.get("value"))
    if target is None or unit not in RATE_UNITS or ratio is None:
        return []
    return _derived(
        target,
        ratio,
        f"derived: {metric} {value!r} {unit} / system-power {power['value']!r} W "
        "(both measured in this run, the whole system at the wall), rounded to 8 "
        "significant digits; not published by the source",
    )


def of_board(metric: str, value: Any, unit: str, count: Any, power: dict[str, Any]) -> list[dict]:
    """One accelerator's efficiency: a one-accelerator run's throughput over that
    accelerator's measured board power; nothing for a run on several (one board's draw is
    not the power of their work) or for another kind of figure."""
    if power.get("metric") != "power-draw" or power.get("unit") != "W" or count != 1:
        return []
    target = BOARD.get(metric)
    ratio = _ratio(value, power.get("value"))
    if target is None or unit != "tok/s" or ratio is None:
        return []
    return _derived(
        target,
        ratio,
        f"derived: {metric} {value!r} {unit} / power-draw {power['value']!r} W (one "
        "accelerator's board power, measured in this run), rounded to 8 significant "
        "digits; not published by the source; a board's energy, not the system's",
    )


def _derived(target: tuple[str, str], ratio: float, note: str) -> list[dict]:
    """The derived measurement: the target's metric and unit, the ratio, and how it was made."""
    return [{"metric": target[0], "value": ratio, "unit": target[1], "derived": True, "note": note}]
