"""The one error of a query the endpoint will not run, whatever check refuses it (queryinfo.py,
querycheck.py): its HTTP status, a title (the reason /metrics counts it under, errors.py) and
a message for a person."""

from __future__ import annotations


class Refused(Exception):
    """A query the endpoint will not run; carries the HTTP status and a message."""

    def __init__(self, status: int, title: str, detail: str,
                 position: dict[str, int] | None = None):
        self.status, self.title, self.detail, self.position = status, title, detail, position
        super().__init__(detail)
