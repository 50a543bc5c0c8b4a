"""The spellings the mapping tables know of a record, written into its `aliases`.

`mappings/accelerators.yaml` maps each name a source gives a part ("NVIDIA H100-SXM-80GB",
"AMD MI300X GPU") to the part's record; those names are what /search should find the part
by. After an import writes its records, each accelerator record a name maps to (alone, not
as one of several `parts`) gets every such name other than its own in its `aliases`, added
to those it lists and kept sorted. The record file is edited in place, as `link --accept`
edits `same_as`: its other lines stay as they are. Every importer does it (mlperf, argonne,
trtllm-perf). Names of engines and models are rules (patterns), interconnect strings describe
links rather than name them, and trtllm.yaml's GPU names are in part read as a part they do
not name (`derived`): none of those is an alias.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import yaml

from .common import key, load_mapping

TOP_KEY = re.compile(r"^([A-Za-z_][\w-]*):")


def known_names(mapping_dir: Path | None = None) -> dict[str, list[str]]:
    """Each accelerator record's names in the mapping table, by record id."""
    table = load_mapping("accelerators", mapping_dir).get("names") or {}
    out: dict[str, list[str]] = defaultdict(list)
    for raw, target in table.items():
        if isinstance(target, str):
            out[target].append(str(raw))
    return out


def write_aliases(out_dir: Path, mapping_dir: Path | None = None) -> list[Path]:
    """Add the mapping table's names to the `aliases` of each accelerator record under
    out_dir; the files changed."""
    names = known_names(mapping_dir)
    changed = []
    for path in sorted((Path(out_dir) / "accelerators").rglob("*.yaml")):
        wanted = names.get(path.stem)
        if not wanted:
            continue
        text = path.read_text(encoding="utf-8")
        new = with_aliases(text, wanted)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


def with_aliases(text: str, names: list[str]) -> str:
    """The record's text with `names` in its `aliases` (those it lists kept; its own name and
    names differing only in case and spacing left out), as a block list after `name:`."""
    data = yaml.safe_load(text) or {}
    own = {key(data.get("name", "")), key(data.get("id", ""))}
    have = [str(a) for a in data.get("aliases") or []]
    merged: dict[str, str] = {}
    for name in [*have, *names]:
        if key(name) not in own and key(name) not in merged:
            merged[key(name)] = name
    if not merged:
        return text
    aliases = sorted(merged.values(), key=lambda n: (n.casefold(), n))
    if aliases == have:
        return text
    lines = text.splitlines(keepends=True)
    lines = _without_key(lines, "aliases")
    block = ["aliases:\n", *(f"  - {json.dumps(a, ensure_ascii=False)}\n" for a in aliases)]
    at = next(
        (i + 1 for i, line in enumerate(lines) if line.startswith("name:")),
        next((i + 1 for i, line in enumerate(lines) if line.startswith("id:")), 0),
    )
    return "".join(lines[:at] + block + lines[at:])


def _without_key(lines: list[str], name: str) -> list[str]:
    """The lines without a top-level key `name` and the lines that continue its value."""
    out, skipping = [], False
    for line in lines:
        found = TOP_KEY.match(line)
        if found:
            skipping = found[1] == name
        elif skipping and line.strip() and not line.startswith((" ", "\t", "-")):
            skipping = False
        if not skipping:
            out.append(line)
    return out
