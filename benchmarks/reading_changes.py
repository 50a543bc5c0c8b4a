"""Which records read differently with this checkout's records.py than with another commit's.

    python benchmarks/reading_changes.py [--data data] [--against HEAD] [--limit 20]

Reads every record file of the data folder with records.py as of `--against` (taken with
`git show` into a module of its own) and with the working tree's, and lists each field whose
value differs (type or value: 1.1 and "1.10" differ), or whose problems differ: file, field,
old value, new value. Exit 0 whether or not anything changed; the list is the result.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import subprocess
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from benchgraph.records import files, reader  # noqa: E402

# the record reader as one object, as records.py was before it was split (read_bench.py
# reads an old records.py and this side by side)
new_records = types.SimpleNamespace(
    find_record_files=files.find_record_files, load_record=reader.load_record
)


def old_module(commit: str) -> Any:
    """records.py as of `commit`, imported as benchgraph._records_then (its package's other
    modules, errors.py, are the working tree's: they say nothing of reading)."""
    text = subprocess.run(
        ["git", "show", f"{commit}:src/benchgraph/records.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    folder = Path(tempfile.mkdtemp(prefix="records-then-"))
    path = folder / "_records_then.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("benchgraph._records_then", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Dotted field -> scalar value (lists by index)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}{k}."))
        return out
    if isinstance(value, list):
        out = {}
        for i, v in enumerate(value):
            out.update(flatten(v, f"{prefix}{i}."))
        return out
    return {prefix.rstrip("."): value}


def same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def changes(data: Path, old: Any) -> list[tuple[str, str, Any, Any]]:
    """(file, field, old value, new value) of every difference, problems as field '!'."""
    out = []
    for path in files.find_record_files(data):
        then, then_problems = old.load_record(path, data)
        now, now_problems = reader.load_record(path, data)
        shown = str(path.relative_to(data))
        a = flatten(then.fields) if then else {}
        b = flatten(now.fields) if now else {}
        for key in sorted(set(a) | set(b)):
            if not same(a.get(key, "<absent>"), b.get(key, "<absent>")):
                out.append((shown, key, a.get(key, "<absent>"), b.get(key, "<absent>")))
        ta = sorted(str(p).split(": ", 1)[-1] for p in then_problems)
        tb = sorted(str(p).split(": ", 1)[-1] for p in now_problems)
        if ta != tb:
            out.append((shown, "!problems", ta, tb))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT / "data")
    parser.add_argument("--against", default="HEAD")
    parser.add_argument("--limit", type=int, default=20, help="examples shown per field")
    args = parser.parse_args()
    found = changes(args.data, old_module(args.against))
    files = {f for f, *_ in found}
    total = len(files.find_record_files(args.data))
    print(f"{total} record files read; {len(files)} read differently, {len(found)} field(s)")
    by_field: dict[str, list] = collections.defaultdict(list)
    for f, key, a, b in found:
        by_field[key.split(".")[0] if key[0] != "!" else key].append((f, key, a, b))
    for field, rows in sorted(by_field.items()):
        print(f"\n{field}: {len(rows)} change(s)")
        for f, key, a, b in rows[: args.limit]:
            print(f"  {f}: {key}: {a!r} -> {b!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
