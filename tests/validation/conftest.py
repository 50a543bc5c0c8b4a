"""Fixtures of the validation tests (helpers are in validation_support.py)."""

from __future__ import annotations

import pytest

from benchgraph.records.schema import Record

from .validation_support import BASE, Example, convert_folder, load_examples


@pytest.fixture(scope="session")
def examples() -> list[Example]:
    return load_examples()


@pytest.fixture(scope="session")
def example_dataset(examples) -> list[tuple[Record, list]]:
    """The base records plus every example record, in one dataset (ids do not clash)."""
    return convert_folder(BASE) + [e.convert() for e in examples]
