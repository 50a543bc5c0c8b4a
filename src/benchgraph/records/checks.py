"""Checks of a record's fields that the YAML reading makes, beyond their shape: a run's
accelerators in one form, and a source's `states` naming fields of its record's kind."""

from __future__ import annotations

from typing import Any

from ..errors import VIOLATION, WARNING, Problem
from .schema import KINDS, NOT_STATED, line_of, shortened


def check_run_accelerators(fields: dict[str, Any], lines: dict[str, int],
                           shown: str) -> list[Problem]:
    """A run's `accelerators` in one form: plain ids (with accelerator_count, as the seed),
    or an {id, count} mapping for each kind, the run's total of it across nodes, whose sum
    accelerator_count, where given, equals. A run on several kinds without a count of each
    is a warning: a figure per accelerator cannot be told apart by kind."""
    items = fields.get("accelerators")
    if not isinstance(items, list) or not items:
        return []
    problems: list[Problem] = []

    def bad(dotted: str, message: str, value: Any = "", code: str = "accelerators",
            severity: str = VIOLATION) -> None:
        problems.append(Problem(shown, line_of(lines, dotted), dotted, message,
                                value="" if value is None else shortened(str(value)),
                                code=code, severity=severity))

    mappings = [i for i, item in enumerate(items) if isinstance(item, dict)]
    plain = [i for i, item in enumerate(items) if not isinstance(item, dict)]
    if mappings and plain:
        for i in plain:
            bad(f"accelerators.{i}", "is a plain id in a list of {id, count} mappings: give "
                "every entry as a mapping (id: and count:, the run's total of that kind)",
                items[i])
        return problems
    seen: dict[str, int] = {}
    for i, (ident, _) in enumerate((str(x.get("id")) if isinstance(x, dict) else str(x), 0)
                                   for x in items):
        if ident in seen and ident != "None":
            bad(f"accelerators.{i}" + (".id" if mappings else ""),
                f"is listed twice (also as entry {seen[ident] + 1}): list each kind once"
                + (" with its total count" if mappings else ""), ident)
        seen.setdefault(ident, i)
    if plain:
        if len(seen) > 1:
            bad("accelerators", f"lists {len(seen)} kinds of accelerator without a count of "
                "each: give each as {id, count} (the run's total of that kind), so a figure "
                "per accelerator is never read as any one kind's", ", ".join(seen),
                severity=WARNING)
        return problems
    total = 0
    for i in mappings:
        item = items[i]
        if item.get("id") is None:
            bad(f"accelerators.{i}", "has no id: name the accelerator record (id: ...)")
        count = item.get("count")
        if count is None:
            bad(f"accelerators.{i}", "has no count: give the run's total of this kind across "
                "its nodes (count: ...), or list plain ids with accelerator_count")
        elif isinstance(count, bool) or not isinstance(count, int) or count < 1:
            bad(f"accelerators.{i}.count", "must be a whole number above 0: the run's total "
                "of this kind across its nodes", count)
        else:
            total += count
    stated = fields.get("accelerator_count")
    counted = all(isinstance(items[i].get("count"), int) and items[i]["count"] > 0
                  for i in mappings)
    if counted and isinstance(stated, int) and not isinstance(stated, bool) \
            and stated != total:
        parts = " + ".join(f"{items[i]['count']} {items[i].get('id')}" for i in mappings)
        bad("accelerator_count", f"is not the sum of the accelerators' counts, {total} "
            f"({parts}): make them agree, or leave accelerator_count out", stated,
            code="accelerator-count-mismatch")
    return problems


def check_stated_fields(kind: str, fields: dict[str, Any], lines: dict[str, int],
                   shown: str) -> list[Problem]:
    """A source's `states` and `derives` name fields of the record's kind (an error
    otherwise)."""
    known = sorted(set(KINDS[kind]) - NOT_STATED)
    out = []
    for i, src in enumerate(fields.get("source") or []):
        if not isinstance(src, dict):
            continue
        for listed in ("states", "derives"):
            for j, name in enumerate(src.get(listed) or []):
                if name not in known:
                    dotted = f"source.{i}.{listed}.{j}"
                    out.append(Problem(shown, line_of(lines, dotted), dotted,
                                       f"names no field of {kind} records (fields: "
                                       f"{', '.join(known)})", value=str(name),
                                       code="unknown-stated-field"))
    return out
