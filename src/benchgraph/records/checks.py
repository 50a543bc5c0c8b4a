"""Checks of a record's fields that the YAML reading makes, beyond their shape: a run's
accelerators in one form, a source's `states` naming fields of its record's kind, its older
`secondary:` read as a kind, and a fact resting only on spec aggregators."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..errors import INFO, VIOLATION, WARNING, CannotRun, Problem
from ..resources import resource
from .schema import KINDS, NOT_STATED, SOURCE_KINDS, line_of, shortened


def check_run_accelerators(
    fields: dict[str, Any], lines: dict[str, int], shown: str
) -> list[Problem]:
    """A run's `accelerators` in one form: plain ids (with accelerator_count, as the seed),
    or an {id, count} mapping for each kind, the run's total of it across nodes, whose sum
    accelerator_count, where given, equals. A run on several kinds without a count of each
    is a warning: a figure per accelerator cannot be told apart by kind."""
    items = fields.get("accelerators")
    if not isinstance(items, list) or not items:
        return []
    problems: list[Problem] = []

    def bad(
        dotted: str,
        message: str,
        value: Any = "",
        code: str = "accelerators",
        severity: str = VIOLATION,
    ) -> None:
        problems.append(
            Problem(
                shown,
                line_of(lines, dotted),
                dotted,
                message,
                value="" if value is None else shortened(str(value)),
                code=code,
                severity=severity,
            )
        )

    mappings = [i for i, item in enumerate(items) if isinstance(item, dict)]
    plain = [i for i, item in enumerate(items) if not isinstance(item, dict)]
    if mappings and plain:
        for i in plain:
            bad(
                f"accelerators.{i}",
                "is a plain id in a list of {id, count} mappings: give "
                "every entry as a mapping (id: and count:, the run's total of that kind)",
                items[i],
            )
        return problems
    seen: dict[str, int] = {}
    for i, (ident, _) in enumerate(
        (str(x.get("id")) if isinstance(x, dict) else str(x), 0) for x in items
    ):
        if ident in seen and ident != "None":
            bad(
                f"accelerators.{i}" + (".id" if mappings else ""),
                f"is listed twice (also as entry {seen[ident] + 1}): list each kind once"
                + (" with its total count" if mappings else ""),
                ident,
            )
        seen.setdefault(ident, i)
    if plain:
        if len(seen) > 1:
            bad(
                "accelerators",
                f"lists {len(seen)} kinds of accelerator without a count of "
                "each: give each as {id, count} (the run's total of that kind), so a figure "
                "per accelerator is never read as any one kind's",
                ", ".join(seen),
                severity=WARNING,
            )
        return problems
    total = 0
    for i in mappings:
        item = items[i]
        if item.get("id") is None:
            bad(f"accelerators.{i}", "has no id: name the accelerator record (id: ...)")
        count = item.get("count")
        if count is None:
            bad(
                f"accelerators.{i}",
                "has no count: give the run's total of this kind across "
                "its nodes (count: ...), or list plain ids with accelerator_count",
            )
        elif isinstance(count, bool) or not isinstance(count, int) or count < 1:
            bad(
                f"accelerators.{i}.count",
                "must be a whole number above 0: the run's total of this kind across its nodes",
                count,
            )
        else:
            total += count
    stated = fields.get("accelerator_count")
    counted = all(
        isinstance(items[i].get("count"), int) and items[i]["count"] > 0 for i in mappings
    )
    if counted and isinstance(stated, int) and not isinstance(stated, bool) and stated != total:
        parts = " + ".join(f"{items[i]['count']} {items[i].get('id')}" for i in mappings)
        bad(
            "accelerator_count",
            f"is not the sum of the accelerators' counts, {total} "
            f"({parts}): make them agree, or leave accelerator_count out",
            stated,
            code="accelerator-count-mismatch",
        )
    return problems


def check_stated_fields(
    kind: str, fields: dict[str, Any], lines: dict[str, int], shown: str
) -> list[Problem]:
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
                    out.append(
                        Problem(
                            shown,
                            line_of(lines, dotted),
                            dotted,
                            f"names no field of {kind} records (fields: {', '.join(known)})",
                            value=str(name),
                            code="unknown-stated-field",
                        )
                    )
    return out


def check_source_kinds(fields: dict[str, Any], lines: dict[str, int], shown: str) -> list[Problem]:
    """The older `secondary:` of a source, read as its kind: `secondary: true` (not the
    vendor's own page) as `kind: blog`, the weakest page, with an info message asking for the
    source's own kind; `secondary:` beside a `kind:` is left for the kind. (A kind that is no
    kind of source is SHACL's to report, as every controlled value.)"""
    out = []
    for i, src in enumerate(fields.get("source") or []):
        if not isinstance(src, dict) or "secondary" not in src:
            continue
        secondary = src.pop("secondary")
        dotted = f"source.{i}.secondary"
        if src.get("kind") is not None:
            message = (
                "is the older form of kind:, which this source gives: the kind is "
                "read and secondary left out; remove it"
            )
        elif secondary is True:
            src["kind"] = "blog"
            message = (
                "is the older form of kind: and reads as kind: blog, the weakest page; "
                f"give the source's own kind ({', '.join(SOURCE_KINDS)})"
            )
        else:
            message = (
                "is the older form of kind: and says only that this is no secondary "
                f"page: give the source's kind ({', '.join(SOURCE_KINDS)})"
            )
        out.append(
            Problem(
                shown,
                line_of(lines, dotted),
                dotted,
                message,
                value=str(secondary).lower(),
                code="secondary",
                severity=INFO,
            )
        )
    return out


def aggregator_hosts() -> frozenset[str]:
    """The hosts of spec aggregators and content sites, which are no source of a fact
    (resources/validation/aggregator-hosts.txt: one host a line, # comments)."""
    return _aggregator_hosts(str(resource("validation", "aggregator-hosts.txt")))


_HOSTS: dict[str, frozenset[str]] = {}


def _aggregator_hosts(path: str) -> frozenset[str]:
    if path not in _HOSTS:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:  # the install itself is broken
            raise CannotRun(f"{path}: the list of aggregator hosts cannot be read: {exc}") from exc
        _HOSTS[path] = frozenset(
            line.split("#", 1)[0].strip().lower()
            for line in text.splitlines()
            if line.split("#", 1)[0].strip()
        )
    return _HOSTS[path]


HOST = re.compile(r"^[a-z][a-z0-9+.-]*://([^/?#:@]+@)?([^/?#:]+)", re.IGNORECASE)


def source_host(url: Any) -> str | None:
    """The host of a source's address, lower-cased (None for no address)."""
    m = HOST.match(url) if isinstance(url, str) else None
    return m.group(2).lower().rstrip(".") if m else None


def on_aggregator(url: Any, hosts: frozenset[str]) -> str | None:
    """The listed host a source's address is on (the host or a domain above it), else None."""
    host = source_host(url)
    while host:
        if host in hosts:
            return host
        host = host.partition(".")[2] if "." in host else ""
    return None


def check_aggregated_facts(
    fields: dict[str, Any], lines: dict[str, int], shown: str
) -> list[Problem]:
    """A warning for each fact the record gives whose only sources, of those that state or
    derive it, are on spec aggregators or content sites: such a page is no source."""
    hosts = aggregator_hosts()
    naming: dict[str, list[dict]] = {}
    for src in fields.get("source") or []:
        if isinstance(src, dict):
            for listed in ("states", "derives"):
                for name in src.get(listed) or []:
                    if isinstance(name, str) and fields.get(name) is not None:
                        naming.setdefault(name, []).append(src)
    out = []
    for name, sources in naming.items():
        found = [on_aggregator(src.get("url"), hosts) for src in sources]
        if all(found):
            out.append(
                Problem(
                    shown,
                    line_of(lines, name),
                    name,
                    f"rests only on {', '.join(sorted(set(found)))}, a spec aggregator or content "
                    "site, which is no source: cite the vendor's, an OEM's, an operator's page, a "
                    "reseller's table, the press or a paper, or remove the fact",
                    value=shortened(str(fields[name])),
                    code="aggregator-only",
                    severity=WARNING,
                )
            )
    return out
