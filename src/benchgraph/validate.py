"""Checks of records: one record alone (SHACL) and across records (links)."""

from __future__ import annotations

from .errors import Problem
from .records import Record


def check_record(record: Record, triples: list) -> list[Problem]:
    """Problems of one record on its own."""
    return []
