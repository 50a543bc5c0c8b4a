"""A number parameter the stores cannot hold is refused, naming it, instead of answering no
rows: integers past signed 64-bit, decimals past Oxigraph's (10^20, 18 digits after the
point), doubles past IEEE 754's; numbers inside those ranges pass as written."""

from __future__ import annotations

import pytest

from benchgraph.query.params import ParameterError, with_values
from benchgraph.query.saved import saved_queries

QUERY = saved_queries()["low-confidence"]


def _with(value: str) -> str:
    return with_values(QUERY.text, QUERY.params, {"threshold": [value]})


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("9223372036854775808", "outside the range of the stores' integers"),
        ("-9223372036854775809", "outside the range of the stores' integers"),
        ("100000000000000000000000", "outside the range of the stores' integers"),
        ("100000000000000000000.5", "outside what the stores' decimals hold"),
        ("0.1234567890123456789", "outside what the stores' decimals hold"),
        ("1e309", "outside the range of a double"),
        ("1e-400", "outside the range of a double"),
    ],
)
def test_a_number_the_stores_cannot_hold_is_refused(value, why):
    with pytest.raises(ParameterError, match=rf"^threshold: '{value}' is {why}"):
        _with(value)


@pytest.mark.parametrize(
    "value",
    [
        "9223372036854775807",
        "-9223372036854775808",
        "100",
        "0.8",
        "99999999999999999999.5",
        "0.123456789012345678",
        "1.50000000000000000000",
        "1e308",
        "0",
        "0e0",
        "2.5e-300",
    ],
)
def test_a_number_inside_the_ranges_is_written_as_given(value):
    assert f"VALUES ?threshold {{ {value} }}" in _with(value)


def test_the_cli_refuses_it_naming_the_parameter(capsys):
    from benchgraph.cli.main import main

    code = main(
        ["query", "--example", "low-confidence", "--param", "threshold=9223372036854775808"]
    )
    err = capsys.readouterr().err
    assert code == 2 and "threshold: '9223372036854775808' is outside the range" in err
