"""Look raw strings up in the mapping tables; report every string, guess none."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import CannotRun
from .common import ImportReport, clean, key, keyed, load_mapping

NOT_PUBLISHED = "not published"


@dataclass(frozen=True)
class Part:
    """One accelerator of a system: its record id and, for mixed systems, its total."""

    id: str
    total: int | None = None


class Normaliser:
    """The mapping tables of one import, and the report every lookup is noted in."""

    def __init__(self, report: ImportReport, mapping_dir: Path | None = None):
        self.report = report
        ic = load_mapping("interconnects", mapping_dir)
        self.interconnect_fields: list[str] = list(ic.get("fields") or [])
        self.ic_placeholders = {key(p) for p in ic.get("placeholders") or []}
        self.ic_strings = keyed(ic.get("strings") or {}, "interconnects.yaml")
        self.ic_roles: dict[str, str] = dict(ic.get("roles") or {})
        acc = load_mapping("accelerators", mapping_dir)
        self.acc_placeholders = {key(p) for p in acc.get("placeholders") or []}
        self.acc_names = keyed(acc.get("names") or {}, "accelerators.yaml")
        self.engine_rules = _compile(
            load_mapping("engines", mapping_dir), "engines.yaml", re.IGNORECASE
        )
        self.model_rules = _compile(load_mapping("models", mapping_dir), "models.yaml", 0)
        for entry in self.ic_strings.values():
            for ic_id in entry.get("ids") or []:
                if ic_id not in self.ic_roles:
                    raise CannotRun(f"interconnects.yaml: {ic_id} has no entry under roles")

    # --- interconnects -------------------------------------------------------------------
    def is_placeholder(self, raw: Any) -> bool:
        """Whether an interconnect string only says "not published" (N/A, TBD, ' ', ...)."""
        return key(raw if raw is not None else "") in self.ic_placeholders

    def interconnects(self, field: str, raw: Any, where: str) -> list[str] | None:
        """The interconnect ids a raw string names ([] for none named); None if unknown."""
        category = f"interconnect ({field})"
        text = "" if raw is None else str(raw)
        if self.is_placeholder(text):
            self.report.use(category, text, NOT_PUBLISHED)
            return []
        entry = self.ic_strings.get(key(text))
        if entry is None:
            self.report.unknown_string(category, text, where)
            return None
        ids = list(entry.get("ids") or [])
        became = ", ".join(f"{i} ({self.ic_roles[i]})" for i in ids) or (
            f"no interconnect ({entry.get('why', 'none named')})"
        )
        self.report.use(category, text, became)
        return ids

    # --- accelerators ----------------------------------------------------------------------
    def accelerator_placeholder(self, raw: Any) -> bool:
        return key(raw if raw is not None else "") in self.acc_placeholders

    def accelerators(self, raw: Any, where: str) -> list[Part] | None:
        """The accelerator record(s) a name maps to; None if the name is unknown."""
        text = "" if raw is None else str(raw)
        entry = self.acc_names.get(key(text))
        if entry is None:
            self.report.unknown_string("accelerator", text, where)
            return None
        if isinstance(entry, str):
            parts = [Part(entry)]
        else:
            parts = [Part(p["id"], p.get("total")) for p in entry.get("parts") or []]
        self.report.use(
            "accelerator",
            text,
            " + ".join(p.id + (f" x{p.total}" if p.total else "") for p in parts),
        )
        return parts

    # --- engines and models ----------------------------------------------------------------
    def engine(self, raw: Any, where: str) -> tuple[bool, str | None, str | None]:
        """(known, engine id or None, version or None) for a framework string."""
        text = clean(raw if raw is not None else "")
        for rule, pattern in self.engine_rules:
            m = pattern.match(text)
            if m:
                engine = rule.get("engine")
                version = m.group(rule["version"]) if rule.get("version") else None
                self.report.use(
                    "engine",
                    raw,
                    (engine or f"no engine ({rule.get('why', '')})")
                    + (f" {version}" if version else ""),
                )
                return True, engine, version
        self.report.unknown_string("engine", raw, where)
        return False, None, None

    def model(self, raw: Any, where: str) -> tuple[str, float | int | None] | None:
        """(model id, accuracy target or None) for a benchmark or model name."""
        text = clean(raw if raw is not None else "")
        for rule, pattern in self.model_rules:
            m = pattern.fullmatch(text)
            if m:
                target = _number(m.group(rule["target"])) if rule.get("target") else None
                self.report.use(
                    "model",
                    raw,
                    rule["model"] + (f" @ {target} % target" if target is not None else ""),
                )
                return rule["model"], target
        self.report.unknown_string("model", raw, where)
        return None

    def wanted(self) -> dict[str, set[str]]:
        """Every record id the tables point to, by kind."""
        acc: set[str] = set()
        for entry in self.acc_names.values():
            acc |= {entry} if isinstance(entry, str) else {p["id"] for p in entry["parts"]}
        return {
            "accelerators": acc,
            "interconnects": set(self.ic_roles),
            "engines": {r["engine"] for r, _ in self.engine_rules if r.get("engine")},
            "models": {r["model"] for r, _ in self.model_rules},
        }


def _compile(table: dict[str, Any], where: str, flags: int) -> list[tuple[dict, re.Pattern]]:
    out = []
    for i, rule in enumerate(table.get("rules") or []):
        try:
            out.append((rule, re.compile(rule["match"], flags)))
        except (KeyError, re.error) as exc:
            raise CannotRun(f"{where}: rule {i + 1} is not a valid rule: {exc}") from exc
    return out


def _number(text: str) -> float | int:
    value = float(text)
    return int(value) if value.is_integer() else value
