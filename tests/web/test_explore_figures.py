"""Figures for people (web/figures.py): 4 significant digits with the unit; a count as it is."""

from __future__ import annotations

import pytest

from benchgraph.web.figures import figure


@pytest.mark.parametrize(
    ("value", "unit", "shown"),
    [
        (36.564174064309924, "tok/s", "36.56 tok/s"),  # a run listing showed every digit
        ("10400.9988793425", "W", "10,400 W"),
        ("3062.72", "tok/s", "3,063 tok/s"),
        ("93.9", None, "93.9"),
        ("0.000123456", None, "0.0001235"),
        ("-2.345678", None, "-2.346"),
        ("141", "GB", "141 GB"),  # an integer literal is a count: as it is
        (8, None, "8"),
        ("Offline", None, "Offline"),
        (None, "W", ""),
    ],
)
def test_a_figure_has_four_significant_digits_and_its_unit(value, unit, shown):
    assert figure(value, unit) == shown


def test_a_chart_caption_names_its_figure_once():
    from benchgraph.web.explore import _caption

    assert _caption("per accelerator", "per accelerator (tok/s)") == "Per accelerator (tok/s)"
    assert _caption("value", "Throughput, tokens (tok/s)") == "Value, Throughput, tokens (tok/s)"
