"""MLPerf's power metric, computed from a run's power logs as MLCommons' checker does.

A power run leaves under `performance/`: `power/` (the PTDaemon client's and server's
JSON), and in `ranging/` and `run_1/` the power samples (`spl.txt`) and LoadGen's detail
log (`mlperf_log_detail.txt`, with the `power_begin`/`power_end` marks). The metric comes
from `run_1/` only, following mlcommons/inference `tools/submission/submission_checker/
checks/power_check.py` (`PowerCheck.get_power_metric_check`, read at commit b23e33ad0b81;
the same logic as `get_power_metric` of the earlier `tools/submission/submission_checker.py`
that checked v4.1 and v5.1):

- the marks and the samples' clocks are read with the format `%m-%d-%Y %H:%M:%S.%f`, both
  with a time-zone offset of 0, and the marks' first occurrence counts (MLPerfLog's rule);
- a sample counts when its time is strictly after `power_begin` and strictly before
  `power_end`, and its `Watts` (the fourth comma-separated field) is above 0;
- Offline, Server and Interactive: the metric is the mean of those watts (W);
- SingleStream and MultiStream: mean watts x (power_end - power_begin) in seconds x 1000 /
  `result_query_count`, in millijoules per query; a MultiStream result whose log's
  `effective_scenario` is SingleStream multiplies by 8, the samples per query.

One difference, on purpose: the checker sums the readings as floats, here they are summed
exactly (Decimal, from the readings' text). The two differ by rounding only (about 1e-12 W
on a 10 kW system), and MLCommons' published figures (v5.1's `Power_Result`, given to 10
decimal places) are the exact mean rounded: the float sum of v5.1's Lenovo
SR780a stable-diffusion-xl Offline run rounds the other way at the 10th decimal.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation, localcontext
from pathlib import Path
from typing import Any

from ..errors import BenchgraphError

CLOCK = "%m-%d-%Y %H:%M:%S.%f"
DETAIL = "mlperf_log_detail.txt"
SAMPLES = "spl.txt"
MARKER = ":::MLLOG"
# The files the checker's required_files_check asks of a power run, beside run_1's logs.
POWER_FILES = ("power/client.json", "power/server.json")
RUN_FILES = (f"run_1/{SAMPLES}", f"run_1/{DETAIL}")
WATT_SCENARIOS = ("offline", "server", "interactive")
ENERGY_SCENARIOS = ("singlestream", "multistream")
# MLCommons' results table gives Power_Result to 10 decimal places; a figure computed here
# is rounded the same way.
PLACES = Decimal("1e-10")
TOO_LARGE = "is too large to write as a double (above 1.8e308): no instrument reads it"


class PowerLogError(BenchgraphError):
    """A power log that cannot give the power metric: its file, line, field and value."""

    def __init__(self, path: str, line: int, field: str, message: str, value: str = ""):
        self.path, self.line, self.field, self.value = path, line, field, value
        where = f"{path}:{line}" if line else path
        shown = f" {value!r}" if value != "" else ""
        super().__init__(f"{where}: {field}:{shown} {message}")


@dataclass(frozen=True)
class PowerResult:
    """The power metric of one run, in the checker's unit (W, or mJ per query)."""

    metric: str  # system-power | energy-per-query
    value: Decimal  # exact, before rounding
    unit: str  # W | mJ
    samples: int
    begin: str
    end: str
    seconds: Decimal
    query_count: int | None = None
    multistream_from_singlestream: bool = False

    @property
    def rounded(self) -> Decimal:
        """The figure as MLCommons' results table would give it (10 decimal places)."""
        return self.value.quantize(PLACES)

    def agrees_with(self, published: Any) -> bool:
        """Whether a published figure equals this one to the published figure's own
        precision: the exact value rounded to as many decimals as the figure shows."""
        try:
            shown = Decimal(repr(published) if isinstance(published, float) else str(published))
        except InvalidOperation:
            return False
        exponent = shown.as_tuple().exponent
        if not isinstance(exponent, int):
            return False
        return self.value.quantize(Decimal(1).scaleb(min(exponent, 0))) == shown


@dataclass
class PowerLogs:
    """What a result folder holds of a power measurement."""

    folder: Path  # the result's performance/ folder
    rel: str  # the same, relative to the checkout
    missing: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not self.missing

    def path(self, name: str) -> str:
        return f"{self.rel}/{name}"


def find_power_logs(result: Path, rel: str) -> PowerLogs | None:
    """The power logs of a result folder (`<...>/<benchmark>/<scenario>`), or None when it
    has no `performance/power/` folder: the run measured no power."""
    performance = result / "performance"
    if not (performance / "power").is_dir():
        return None
    logs = PowerLogs(performance, f"{rel}/performance")
    logs.missing = [
        name for name in (*POWER_FILES, *RUN_FILES) if not (performance / name).is_file()
    ]
    return logs


def read_marks(path: Path, shown: str) -> dict[str, tuple[Any, int]]:
    """The detail log's keys, each with its first value and line (MLPerfLog's rule: the
    first message of a key counts). A line that starts with the marker but is no JSON is
    an error, as MLPerfLog's strict mode makes it."""
    marks: dict[str, tuple[Any, int]] = {}
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            line = line.rstrip("\r\n")
            if number == 1 and not line.startswith(MARKER):
                raise PowerLogError(
                    shown,
                    1,
                    "first line",
                    f"does not start with {MARKER}, so this is no LoadGen detail log",
                    line[:60],
                )
            if not line.startswith(MARKER):
                continue
            try:
                message = json.loads(line[len(MARKER) :])
                name = message["key"]
            except (ValueError, KeyError, TypeError) as exc:
                raise PowerLogError(
                    shown,
                    number,
                    "line",
                    f"is not a LoadGen log message (JSON with a key): {exc}",
                    line[:60],
                ) from exc
            marks.setdefault(name, (message.get("value"), number))
    return marks


def _clock(text: Any, shown: str, line: int, what: str) -> dt.datetime:
    try:
        return dt.datetime.strptime(str(text), CLOCK)
    except ValueError as exc:
        raise PowerLogError(
            shown,
            line,
            what,
            f"is not a time as MM-DD-YYYY HH:MM:SS.fff "
            f"({CLOCK}), the format the submission checker reads",
            str(text),
        ) from exc


def _seconds(delta: dt.timedelta) -> Decimal:
    return Decimal(delta.days * 86400 + delta.seconds) + Decimal(delta.microseconds) / Decimal(
        1_000_000
    )


def compute(logs: PowerLogs, scenario: str) -> PowerResult:
    """The power metric of a run from its complete logs; PowerLogError where the logs
    cannot give one (a missing mark, a clock in another format, no sample in the window,
    a scenario the checker does not know)."""
    scen = scenario.casefold()
    if scen not in WATT_SCENARIOS + ENERGY_SCENARIOS:
        raise PowerLogError(
            logs.rel,
            0,
            "scenario",
            "has no power metric in MLPerf's "
            "rules (Offline, Server, Interactive: W; SingleStream, "
            "MultiStream: mJ per query)",
            scenario,
        )
    detail_rel = logs.path(f"run_1/{DETAIL}")
    marks = read_marks(logs.folder / "run_1" / DETAIL, detail_rel)
    begin, end = _window(marks, detail_rel)
    samples_rel = logs.path(f"run_1/{SAMPLES}")
    total, count = _watts_in(logs.folder / "run_1" / SAMPLES, samples_rel, begin, end)
    if count == 0:
        raise PowerLogError(
            samples_rel,
            0,
            "samples",
            f"none has a time strictly between "
            f"power_begin {marks['power_begin'][0]} and power_end "
            f"{marks['power_end'][0]} and Watts above 0",
        )
    seconds = _seconds(end - begin)
    with localcontext() as ctx:
        ctx.prec = 60
        mean = total / count
        if scen in WATT_SCENARIOS:
            return PowerResult(
                "system-power",
                mean,
                "W",
                count,
                marks["power_begin"][0],
                marks["power_end"][0],
                seconds,
            )
        return _energy_per_query(marks, scen, mean, seconds, count, detail_rel, samples_rel)


def _window(marks: dict[str, Any], detail_rel: str) -> tuple[dt.datetime, dt.datetime]:
    """The measured window: the power_begin and power_end marks of the detail log."""
    window = []
    for name in ("power_begin", "power_end"):
        if name not in marks:
            raise PowerLogError(
                detail_rel,
                0,
                name,
                "is not in the log: without the "
                "power_begin and power_end marks the measured window is "
                "unknown",
            )
        value, line = marks[name]
        window.append(_clock(value, detail_rel, line, name))
    begin, end = window
    if not begin < end:
        raise PowerLogError(
            detail_rel,
            marks["power_end"][1],
            "power_end",
            f"is at or before power_begin {marks['power_begin'][0]}: the window measured nothing",
            str(marks["power_end"][0]),
        )
    return begin, end


def _watts_in(
    path: Path, samples_rel: str, begin: dt.datetime, end: dt.datetime
) -> tuple[Decimal, int]:
    """The sum and count of the samples' Watts above 0 timed strictly inside the window."""
    total, count = Decimal(0), 0
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            if not line.startswith("Time"):
                continue
            cells = line.rstrip("\r\n").split(",")
            if len(cells) < 4:
                raise PowerLogError(
                    samples_rel,
                    number,
                    "sample",
                    "has no Watts field (the fourth comma-separated field)",
                    line.strip()[:60],
                )
            stamp = _clock(cells[1], samples_rel, number, "Time")
            if not begin < stamp < end:
                continue
            try:
                watts = Decimal(cells[3].strip())
            except InvalidOperation as exc:
                raise PowerLogError(
                    samples_rel, number, "Watts", "is not a number", cells[3]
                ) from exc
            # NaN or Infinity is no reading (and NaN cannot be compared with 0); a figure
            # past a double's range would be written as infinity
            if not watts.is_finite():
                raise PowerLogError(
                    samples_rel, number, "Watts", "is not a finite number", cells[3].strip()
                )
            if not math.isfinite(float(watts)):
                raise PowerLogError(samples_rel, number, "Watts", TOO_LARGE, cells[3].strip())
            if watts > 0:
                total += watts
                count += 1
    return total, count


def _energy_per_query(
    marks: dict[str, Any],
    scen: str,
    mean: Decimal,
    seconds: Decimal,
    count: int,
    detail_rel: str,
    samples_rel: str,
) -> PowerResult:
    """The energy per query in mJ (SingleStream, MultiStream), in the caller's precision."""
    if "result_query_count" not in marks:
        raise PowerLogError(
            detail_rel,
            0,
            "result_query_count",
            "is not in the log: the energy per query divides by it",
        )
    raw, line = marks["result_query_count"]
    try:
        queries = int(raw)
    except (TypeError, ValueError) as exc:
        raise PowerLogError(
            detail_rel, line, "result_query_count", "is not a count", str(raw)
        ) from exc
    if queries <= 0:
        raise PowerLogError(detail_rel, line, "result_query_count", "is not above 0", str(raw))
    energy = mean * seconds * 1000 / queries
    effective = str((marks.get("effective_scenario") or ("", 0))[0]).casefold()
    from_single = scen == "multistream" and effective == "singlestream"
    if from_single:
        energy *= 8
    if not math.isfinite(float(energy)):
        raise PowerLogError(samples_rel, 0, "energy-per-query", TOO_LARGE, f"{energy:.6E}")
    return PowerResult(
        "energy-per-query",
        energy,
        "mJ",
        count,
        marks["power_begin"][0],
        marks["power_end"][0],
        seconds,
        queries,
        from_single,
    )


# --- what a run record gets -------------------------------------------------------------
def method_note(result: PowerResult) -> str:
    """How the figure was computed, for the measurement's note."""
    if result.metric == "system-power":
        how = (
            f"the mean of the {result.samples} samples' Watts in run_1/{SAMPLES} timed "
            f"strictly between power_begin {result.begin} and power_end {result.end} of "
            f"run_1/{DETAIL}"
        )
    else:
        how = (
            f"the mean of the {result.samples} samples' Watts in run_1/{SAMPLES} timed "
            f"strictly between power_begin {result.begin} and power_end {result.end} of "
            f"run_1/{DETAIL}, times the window's {result.seconds} s, x 1000 / "
            f"result_query_count {result.query_count}"
            + (
                " x 8 samples per query (a MultiStream result run as SingleStream)"
                if result.multistream_from_singlestream
                else ""
            )
        )
    return (
        f"{how}, as MLCommons' submission checker computes the power metric "
        "(tools/submission/submission_checker/checks/power_check.py)"
    )


def log_measurement(result: PowerResult) -> dict[str, Any]:
    """The measurement of a run whose only source of the power metric is its logs (rounds
    without summary_results.json): watts as computed, energy per query in joules."""
    rounded = result.rounded
    if result.unit == "W":
        return {
            "metric": result.metric,
            "value": float(rounded),
            "unit": "W",
            "note": f"computed from the power logs: {method_note(result)}; rounded to "
            "10 decimal places",
        }
    return {
        "metric": result.metric,
        "value": float(rounded * Decimal("0.001")),
        "unit": "J",
        "note": f"computed from the power logs as {rounded.normalize():f} mJ per query "
        f"(the checker's unit), recorded in joules: {method_note(result)}",
    }


def sources(logs: PowerLogs, entry: Any) -> list[dict[str, Any]]:
    """Source entries of the run for the files the figure comes from; `entry(rel, note)`
    makes one in the importer's form."""
    return [
        entry(
            logs.path(f"run_1/{SAMPLES}"),
            "the power samples (PTDaemon's Time, Watts, ... lines) the power metric averages",
        ),
        entry(
            logs.path(f"run_1/{DETAIL}"),
            "LoadGen's detail log: power_begin and power_end "
            "(the measured window) and result_query_count",
        ),
    ]
