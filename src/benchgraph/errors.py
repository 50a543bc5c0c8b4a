"""Errors and problems: every message names the file, line, field and value."""

from __future__ import annotations

from dataclasses import asdict, dataclass

VIOLATION = "violation"
WARNING = "warning"
INFO = "info"


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with one record, located where the curator edits it."""

    file: str
    line: int
    field: str
    message: str
    value: str = ""
    code: str = ""
    severity: str = VIOLATION

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        field = f" {self.field}:" if self.field else ""
        value = f" {self.value}" if self.value != "" else ""
        code = f" [{self.code}]" if self.code else ""
        level = "" if self.severity == VIOLATION else f" ({self.severity})"
        return f"{where}:{field}{value} {self.message}{code}{level}"

    def as_dict(self) -> dict:
        return asdict(self)


class BenchgraphError(Exception):
    """Base of every error benchgraph raises on purpose."""


class CannotRun(BenchgraphError):
    """benchgraph cannot run at all: no such folder, bad arguments, a broken ontology."""


class RecordsInvalid(BenchgraphError):
    """Some records have problems; all of them are listed."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems)
        super().__init__(f"{len(self.problems)} problem(s) in the records")
