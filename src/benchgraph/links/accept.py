"""`benchgraph link --accept`: write the rows a curator kept of a proposal file into the
records' `same_as`, and remember the rows the curator deleted as rejected.

The records are edited line by line, not loaded and dumped again: a YAML round trip with
ruamel.yaml 0.19 (preserve_quotes) left 285 of the 354 accelerator, interconnect, engine,
model and system records byte-identical with folding off (width 4096: long strings come back
on one line) and 6 of 354 at the width the records are written at (96-102: strings are
folded again elsewhere); an added list item touches only the lines it adds. Each edited
file is read back with the record reader before anything is written, and the whole accept
is refused (nothing written) when one row is wrong.
"""

from __future__ import annotations

import datetime as dt
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..errors import CannotRun, printable
from ..namespaces import ID
from ..records.files import find_record_files, kind_of
from ..records.reader import load_record
from . import sssom

REJECTED = "rejected-mappings.sssom.tsv"  # in the data folder: what curators said is no link
PROPOSED = ".proposed"  # beside a proposal file: the proposals as written, to tell deletions
KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:(.*)$")
# What RFC 3987 leaves out of an IRI: spaces, controls (an endpoint's IRI may hold an ESC that
# the proposal file carries), and <>"{}|\^`.
IRI = re.compile(r'^https?://[^\s\x00-\x1f\x7f-\x9f<>"{}|\\^`]+$')


class AcceptError(CannotRun):
    """Rows of a proposal file that cannot be accepted, each named by file and line."""


@dataclass
class Accepted:
    written: list[str]  # records edited
    unchanged: int  # rows already in their records
    rejected: int  # rows newly remembered as rejected
    compared: bool = True  # whether the proposals as written were there to tell deletions


def write_proposals(proposals: sssom.MappingSet, path: Path) -> None:
    """Write a proposal file for a curator to review and, beside it, the proposals as
    written (PROPOSED): `accept` compares the reviewed file with it to tell the rows the
    curator deleted, which it remembers as rejected."""
    text = proposals.write()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.with_name(path.name + PROPOSED).write_text(text, encoding="utf-8")


def curator_name(given: str | None, data_dir: Path) -> str:
    """--curator, else git's user.name where the data is."""
    if given:
        return given
    try:
        name = subprocess.run(
            ["git", "config", "user.name"], cwd=data_dir, text=True, capture_output=True, timeout=10
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        name = ""
    if not name:
        raise CannotRun("who accepts these links? give --curator NAME (git has no user.name)")
    return name


def rejected_pairs(data_dir: Path) -> set[tuple[str, str]]:
    """(subject, object) CURIEs a curator rejected before."""
    path = data_dir / REJECTED
    if not path.is_file():
        return set()
    return {(r["subject_id"], r["object_id"]) for r in sssom.read(path).rows}


def accept(
    data_dir: Path, proposals: Path, curator: str | None = None, today: str | None = None
) -> Accepted:
    """Write the kept rows into their records; remember deleted ones as rejected."""
    kept = sssom.read(proposals)
    curie_map = {**sssom.CURIE_MAP, **(kept.header.get("curie_map") or {})}
    files = _record_files(data_dir)
    problems, seen, edits = [], {}, {}
    for row, line in zip(kept.rows, kept.lines):
        where = f"{proposals}:{line}"
        subject = sssom.expand(row.get("subject_id", ""), curie_map)
        target = sssom.expand(row.get("object_id", ""), curie_map)
        key = (subject, target)
        if key in seen:
            problems.append(
                f"{where}: {printable(row['subject_id'])} -> "
                f"{printable(row['object_id'])}: a duplicate of the row at line "
                f"{seen[key]}"
            )
            continue
        seen[key] = line
        match = sssom.PREDICATES.get(row.get("predicate_id", ""))
        found = files.get(subject)
        if found is None:
            problems.append(
                f"{where}: subject_id: {row.get('subject_id')!r} names no record in {data_dir}"
            )
        if match is None:
            problems.append(
                f"{where}: predicate_id: {row.get('predicate_id')!r} is neither "
                "skos:exactMatch, skos:closeMatch nor skos:broadMatch"
            )
        if not IRI.match(target):
            problems.append(
                f"{where}: object_id: {row.get('object_id')!r} is not an IRI nor "
                "a CURIE of the curie_map"
            )
        if found is None or match is None or not target.startswith("http"):
            continue
        edits.setdefault(found, []).append((target, match, row))
    if problems:
        raise AcceptError(
            f"{len(problems)} row(s) cannot be accepted, nothing was written:\n"
            + "\n".join(problems)
        )
    who = curator_name(curator, data_dir)
    date = today or dt.date.today().isoformat()
    new_text, unchanged = {}, 0
    for path, items in sorted(edits.items()):
        text = path.read_text(encoding="utf-8")
        have = _linked(path, data_dir)
        add = [(t, m, r) for t, m, r in items if t not in have]
        unchanged += len(items) - len(add)
        if add:
            new_text[path] = _with_links(
                text, [_entry(t, m, r, who, date) for t, m, r in add], path
            )
    _check(new_text, data_dir, {p: [t for t, _m, _r in a] for p, a in edits.items()})
    for path, text in new_text.items():
        path.write_text(text, encoding="utf-8")
    rejected = _remember_rejected(data_dir, proposals, set(seen), curie_map, who, date)
    compared = proposals.with_name(proposals.name + PROPOSED).is_file()
    return Accepted(sorted(str(p) for p in new_text), unchanged, rejected, compared)


def _record_files(data_dir: Path) -> dict[str, Path]:
    """Record IRI -> file, from the folders and file names (the id is the file's stem)."""
    return {f"{ID}{kind_of(p, data_dir)}/{p.stem}": p for p in find_record_files(data_dir)}


def _linked(path: Path, data_dir: Path) -> set[str]:
    record, _ = load_record(path, data_dir)
    if record is None:
        return set()
    return {
        str(x.get("iri")) if isinstance(x, dict) else str(x)
        for x in record.fields.get("same_as") or []
        if x is not None
    }


def _entry(target: str, match: str, row: dict, curator: str, date: str) -> list[str]:
    """A same_as mapping as YAML lines (after its `- `)."""
    fields = {
        "iri": target,
        "match": match,
        "justification": row.get("mapping_justification") or sssom.MANUAL,
    }
    if row.get("confidence"):
        fields["confidence"] = float(row["confidence"])
    fields |= {"curator": curator, "date": date}
    out = []
    for k, v in fields.items():
        text = yaml.safe_dump(
            {k: v}, default_flow_style=False, width=1000, allow_unicode=True
        ).strip()
        if k == "date":  # a date stays a date, written plainly as the records do
            text = f"date: {v}"
        out.append(text)
    return out


def _with_links(text: str, entries: list[list[str]], path: Path) -> str:
    """The record's text with these entries added to its top-level `same_as` list (made when
    absent, after the `name` field)."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    at = next((i for i, line in enumerate(lines) if line.startswith("same_as:")), None)
    if at is None:
        after = _end_of_field(lines, "name")
        block = ["same_as:\n"] + [_item(e, "") for e in entries]
        return "".join(lines[:after] + block + lines[after:])
    rest = lines[at][len("same_as:") :].strip()
    if rest.startswith("["):  # a flow list on one line: rewritten as a block list
        try:
            items = yaml.safe_load(rest.split(" #")[0])
        except yaml.YAMLError:
            items = None
        if not isinstance(items, list):
            raise AcceptError(
                f"{path}:{at + 1}: same_as: a flow list that does not end on its "
                "line; write it as a block list (`- IRI` lines) and accept again"
            )
        block = (
            ["same_as:\n"] + [f"- {_scalar(x)}\n" for x in items] + [_item(e, "") for e in entries]
        )
        return "".join(lines[:at] + block + lines[at + 1 :])
    if rest and not rest.startswith("#"):
        raise AcceptError(f"{path}:{at + 1}: same_as: {rest!r} is not a list")
    end = at + 1
    indent = None
    while end < len(lines) and (lines[end].startswith((" ", "-", "#")) or not lines[end].strip()):
        if indent is None and lines[end].lstrip().startswith("- "):
            indent = lines[end][: len(lines[end]) - len(lines[end].lstrip())]
        end += 1
    while end > at + 1 and not lines[end - 1].strip():  # keep blank lines after the list
        end -= 1
    return "".join(lines[:end] + [_item(e, indent or "") for e in entries] + lines[end:])


def _item(entry: list[str], indent: str) -> str:
    first, *more = entry
    return f"{indent}- {first}\n" + "".join(f"{indent}  {line}\n" for line in more)


def _scalar(value: object) -> str:
    return (
        yaml.safe_dump(value, default_flow_style=True, width=1000)
        .strip()
        .removesuffix("\n...")
        .strip()
    )


def _end_of_field(lines: list[str], name: str) -> int:
    """The line after a top-level field and its continuation lines (0 if absent)."""
    for i, line in enumerate(lines):
        if line.startswith(f"{name}:"):
            j = i + 1
            while j < len(lines) and lines[j].startswith((" ", "\t")):
                j += 1
            return j
    return 0


def _check(new_text: dict[Path, str], data_dir: Path, wanted: dict[Path, list[str]]) -> None:
    """Each edited record reads back with no new problem and with its links."""
    import tempfile

    problems = []
    for path, text in new_text.items():
        with tempfile.TemporaryDirectory() as tmp:
            kind = kind_of(path, data_dir)
            copy = Path(tmp, kind, path.name)
            copy.parent.mkdir(parents=True)
            copy.write_text(text, encoding="utf-8")
            record, found = load_record(copy, Path(tmp), str(path))
            before = {str(p) for p in load_record(path, data_dir)[1]}
            new = [str(p) for p in found if str(p) not in before]
            got = {
                str(x.get("iri")) if isinstance(x, dict) else str(x)
                for x in (record.fields.get("same_as") or [] if record else [])
            }
            missing = [t for t in wanted[path] if t not in got]
            if new or missing:
                problems.append(
                    f"{path}: the edit would not read back: "
                    + printable("; ".join(new + [f"{t} missing" for t in missing]))
                )
    if problems:
        raise AcceptError("nothing was written:\n" + "\n".join(problems))


def _remember_rejected(
    data_dir: Path,
    proposals: Path,
    kept: set[tuple[str, str]],
    curie_map: dict[str, str],
    curator: str,
    date: str,
) -> int:
    """Rows of the proposals as written (the file beside it) that the curator deleted go to
    data/rejected-mappings.sssom.tsv, negated (SSSOM's predicate_modifier: Not)."""
    original = proposals.with_name(proposals.name + PROPOSED)
    if not original.is_file():
        return 0
    known = rejected_pairs(data_dir)
    out = sssom.read(data_dir / REJECTED).rows if (data_dir / REJECTED).is_file() else []
    added = 0
    for row in sssom.read(original).rows:
        pair = (
            sssom.expand(row["subject_id"], curie_map),
            sssom.expand(row["object_id"], curie_map),
        )
        curies = (sssom.curie(pair[0]), sssom.curie(pair[1]))
        if pair in kept or curies in known:
            continue
        out.append(
            {
                "subject_id": curies[0],
                "subject_label": row.get("subject_label", ""),
                "predicate_modifier": "Not",
                "predicate_id": row["predicate_id"],
                "object_id": curies[1],
                "object_label": row.get("object_label", ""),
                "mapping_justification": sssom.MANUAL,
                "reviewer_label": curator,
                "mapping_date": date,
                "comment": "deleted from a proposal file: no link",
            }
        )
        known.add(curies)
        added += 1
    if added:
        ms = sssom.MappingSet(
            out,
            header={
                "mapping_set_id": f"{sssom.BASE}mappings/rejected.sssom.tsv",
                "mapping_set_description": "Links a curator rejected: `benchgraph link` does not "
                "propose them again.",
            },
        )
        (data_dir / REJECTED).write_text(ms.write(), encoding="utf-8")
    return added
