"""The validation report in the forms people and tools read: text, JSON, Turtle."""

from __future__ import annotations

import json
from typing import TextIO

from ..errors import Problem


def write_report(problems: list[Problem], fmt: str, out: TextIO) -> None:
    """Every problem, one per line (text), as objects (json), or as a SHACL report (turtle)."""
    problems = sorted(problems)
    if fmt == "json":
        conforms = not any(p.severity == "violation" for p in problems)
        json.dump(
            {"conforms": conforms, "problems": [p.as_dict() for p in problems]}, out, indent=2
        )
        out.write("\n")
    elif fmt == "turtle":
        from .shacl_report import report_graph

        out.write(report_graph(problems).serialize(format="turtle"))
    else:
        for p in problems:
            out.write(f"{p}\n")
        counts = {
            s: sum(p.severity == s for p in problems) for s in ("violation", "warning", "info")
        }
        out.write(
            f"{counts['violation']} violation(s), {counts['warning']} warning(s), "
            f"{counts['info']} info\n"
        )
