"""Errors and problems: every message names the file, line, field and value."""

from __future__ import annotations

import re
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


# C0 and C1 controls, DEL, and the bidirectional overrides and isolates (which reorder what
# a terminal shows: "Trojan Source"); line breaks too, so that outside text stays one line.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """Outside text (an endpoint's error body, a header) made safe to print: every control
    character written as a Python escape (ESC as \\x1b), so none reaches the terminal."""
    return _CONTROL.sub(lambda m: ascii(m.group())[1:-1], text)


class BenchgraphError(Exception):
    """Base of every error benchgraph raises on purpose.

    One the web app answers carries its HTTP `status`, a `title` and a `code` (the label
    /metrics counts it under; None: counted by status or title), and its `detail` for a
    person (its message unless set); `answer` maps it, in one place, to what the web app
    writes in the one error shape (web/errors.py). `status` None: it has no answer of its
    own (where it reaches the web app, a 500)."""

    status: int | None = None
    title = "error"
    code: str | None = None
    position: dict[str, int] | None = None  # where in a query's text (1-based line, column)
    retry_after: int | None = None  # seconds a client should wait before asking again

    def answer(self) -> dict:
        """The error as the web app answers it: status, title and detail, and where set its
        code, the body's other fields (where in the query) and headers (Retry-After). Plain
        data: a query worker sends it to the server as it is (`Answered`)."""
        out: dict = {"status": self.status or 500, "title": self.title, "detail": self.detail}
        if self.code:
            out["code"] = self.code
        out.update(self.fields())
        if self.retry_after:
            out["headers"] = {"Retry-After": str(self.retry_after)}
        return out

    def fields(self) -> dict:
        """The fields the error's body carries beyond status, title and detail."""
        return {"position": self.position} if self.position else {}

    @property
    def detail(self) -> str:
        return self.__dict__.get("_detail", str(self))

    @detail.setter
    def detail(self, value: str) -> None:
        self.__dict__["_detail"] = value


class CannotRun(BenchgraphError):
    """benchgraph cannot run at all: no such folder, bad arguments, a broken ontology."""


class QueryRefused(BenchgraphError):
    """A query benchgraph will not run, or that does not parse: a code (the label /metrics
    counts it under), the HTTP status and title the endpoint answers, a detail for a person,
    and where in the text (1-based line and column), when known."""

    def __init__(
        self,
        code: str | None,
        status: int,
        title: str,
        detail: str,
        position: dict[str, int] | None = None,
    ):
        self.code, self.status, self.title, self.detail = code, status, title, detail
        self.position = position
        super().__init__(detail)


class Answered(BenchgraphError):
    """An error another process answered (a query worker: its `answer()`, as sent), to be
    answered here as it was there."""

    def __init__(self, answer: dict):
        self._answer = answer
        self.status, self.title, self.code = answer["status"], answer["title"], answer.get("code")
        self.position = answer.get("position")
        super().__init__(answer["detail"])

    def answer(self) -> dict:
        return self._answer


class RecordsInvalid(BenchgraphError):
    """Some records have problems; all of them are listed."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems)
        super().__init__(f"{len(self.problems)} problem(s) in the records")
