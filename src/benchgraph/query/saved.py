"""Saved queries (queries/*.rq): their title, description and first view."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import BenchgraphError, Problem
from .params import Parameter, parse_params

# How a result is first shown on the query page: `# view: bar x=?accelerator y=?value
# color=?status unit=tok/s log`, or for a line chart with one line per value of a column
# coloured by another, `line x=?count y=?share color=?status series=?line`. The page's
# shareable URLs spell a view the same way (static/bg-view.js reads and writes it there).
VIEW_TYPES = ("table", "bar", "line", "scatter")
VIEW_COLUMNS = ("x", "y", "color", "series")


class SavedQueryError(BenchgraphError):
    """Saved queries whose header lines are wrong; all of them are listed."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


@dataclass(frozen=True)
class SavedQuery:
    """A competency question: queries/<name>.rq with `# title:`, `# description:`, optionally
    `# view:` (how the query page first shows its result) and `# param:` lines (what it
    can be asked of)."""

    name: str
    title: str
    description: str
    text: str
    view: dict = field(default_factory=dict)
    params: tuple[Parameter, ...] = ()  # its `# param:` lines (params.py)


def saved_queries(folder: Path | None = None) -> dict[str, SavedQuery]:
    """Every saved query, by name (the file stem)."""
    if folder is None:
        from ..resources import resource

        folder = resource("queries")
    out = {}
    problems: list[Problem] = []
    for path in sorted(Path(folder).glob("*.rq")):
        text = path.read_text(encoding="utf-8")
        meta, lines = {}, {}
        for number, line in enumerate(text.splitlines(), 1):
            if not line.startswith("#"):
                break
            key, _, value = line.lstrip("# ").partition(":")
            meta[key.strip().lower()] = value.strip()
            lines[key.strip().lower()] = number
        view: dict = {}
        if "view" in meta:
            view, wrong = parse_view(meta["view"], text)
            problems += [
                Problem(str(path), lines["view"], "view", message, value)
                for value, message in wrong
            ]
        params, wrong = parse_params(text, str(path))
        problems += wrong
        out[path.stem] = SavedQuery(
            path.stem, meta.get("title", path.stem), meta.get("description", ""), text, view, params
        )
    if problems:
        raise SavedQueryError(problems)
    return out


def parse_view(spec: str, text: str = "") -> tuple[dict, list[tuple[str, str]]]:
    """A `# view:` line as {"type", "x", "y", "color", "series", "unit", "log"} (variables without
    their `?`), and what is wrong with it as (value, message) pairs. A variable the query
    `text` never names is wrong."""
    words = spec.split()
    view: dict = {}
    wrong: list[tuple[str, str]] = []
    if not words or words[0] not in VIEW_TYPES:
        wrong.append((words[0] if words else "", f"is not a view; one of {', '.join(VIEW_TYPES)}"))
    else:
        view["type"] = words[0]
    for word in words[1:]:
        key, eq, value = word.partition("=")
        if word == "log":
            view["log"] = True
        elif eq and key in (*VIEW_COLUMNS, "unit") and re.fullmatch(r"[?$]\w+", value):
            # unit=?u: a column holding each row's unit
            name = value[1:]
            if text and not re.search(rf"[?$]{name}\b", _without_header(text)):
                wrong.append((word, f"the query has no variable ?{name}"))
            view[key] = name
        elif eq and key == "unit" and value and value[0] not in "?$":
            # the unit itself, for a query whose pattern fixes it (bg:unitCode "tok/s")
            view["unitText"] = value
        else:
            wrong.append(
                (
                    word,
                    "is not understood; give x=?var, y=?var, color=?var, "
                    "series=?var, unit=?var or unit=TEXT, log",
                )
            )
    return view, wrong


def _without_header(text: str) -> str:
    lines = text.splitlines()
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    return "\n".join(lines)
