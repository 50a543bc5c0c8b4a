"""Numbers for people: a figure to 4 significant digits with its unit ("36.56 tok/s",
"10,400 W"). Pages and charts show these; CSV, JSON and RDF keep the full value."""

from __future__ import annotations

import math

DIGITS = 4  # significant digits shown: enough to tell results apart, few enough to read


def figure(value: object, unit: str | None = None) -> str:
    """`value` (a number, or a literal's text) to DIGITS significant digits, with `unit`
    after it; a whole number (a count, 141 GB) as it is, text that is no number unchanged."""
    text = _number(value)
    return f"{text} {unit}" if unit and text else text


def _number(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10_000 else str(value)
    text = str(value).strip()
    if isinstance(value, str) and _whole(text):
        return text  # an integer literal: a count, an id-like figure
    try:
        n = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return str(value)
    if not math.isfinite(n):
        return text
    if n == 0:
        return "0"
    exponent = math.floor(math.log10(abs(n)))
    if exponent >= 15 or exponent < -6:
        return f"{n:.{DIGITS - 1}e}"
    places = DIGITS - 1 - exponent  # negative: 10400.99 -> 10,400
    rounded = round(n, places)
    shown = f"{rounded:,.{max(0, places)}f}"
    if "." in shown:
        shown = shown.rstrip("0").rstrip(".")
    return shown


def _whole(text: str) -> bool:
    digits = text[1:] if text[:1] in "+-" else text
    return digits.isdigit()


def is_long(text: str) -> bool:
    """Whether a literal's text has more digits than a page shows (its full value then goes
    in the tooltip)."""
    return figure(text) != text
