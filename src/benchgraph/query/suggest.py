""" "Did you mean": the known name closest to one a person mistyped (a saved query, a
parameter, a prefix), by difflib's ratio, which needs no index for lists this short."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known name most like `word`, if one is like it at all (difflib's ratio 0.6)."""
    found = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return found[0] if found else None


def did_you_mean(word: str, known: Iterable[str], suffix: str = "") -> str:
    """' (did you mean NAME?)' for the closest known name (with `suffix`, as in `bg:`), or
    '' when none is close."""
    found = closest(word, known)
    return f" (did you mean {found}{suffix}?)" if found is not None else ""
