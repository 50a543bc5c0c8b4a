"""The `benchgraph import ...` commands, for the main CLI to mount.

`add_import_commands(subparsers)` adds `import mlperf`, `import argonne` and
`import trtllm-perf`; each sets
`run` to a handler taking the parsed arguments and returning the exit code: 0 fine,
1 unknown strings or records that could not be imported (nothing is written then),
2 cannot run (no such folder, an unreadable mapping table).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CannotRun

if TYPE_CHECKING:
    from ..importers.common import ImportReport

_FORMAT = argparse.RawDescriptionHelpFormatter

MLPERF_HELP = """\
Import an MLPerf Inference round from a checkout of mlcommons/inference_results_vX.Y:
its systems (<division>/<submitter>/systems/*.json) become systems/mlperf-vX.Y/ records,
its results (summary_results.json, or the performance logs where a round has none)
become benchmarks/mlperf-vX.Y/ runs. Names and strings are normalised by the tables in
src/benchgraph/importers/mappings/; a string they do not know is listed and nothing is
written (exit 1).
"""
MLPERF_EXAMPLE = """\
Example:
  benchgraph import mlperf ../shared/data/mlperf/inference_results_v5.1 --out data --report
"""

ARGONNE_HELP = """\
Import the Argonne LLM-Inference-Bench result tables (Plots/*.csv of a copy of
argonne-lcf/LLM-Inference-Bench) as benchmarks/argonne/ runs. Units come from the
source's own scripts (cited in mappings/argonne.yaml); rows that do not fit them, and
tables whose units are not documented, are left out and listed by --report.
"""
ARGONNE_EXAMPLE = """\
Example:
  benchgraph import argonne ../shared/data/other/argonne-llm-inference-bench --out data
"""

TRTLLM_HELP = """\
Import NVIDIA's TensorRT-LLM performance overview (docs/source/performance/perf-overview.md
of NVIDIA/TensorRT-LLM, docs/source/developer-guide/perf-overview.md since it moved) as
benchmarks/trtllm-perf/ runs, one per table cell, and the DGX systems its Hardware list
names as systems/trtllm-perf/. PATH is a folder of <commit>.md copies of the file, or a
checkout of the repository (each version in the file's git history is read once, across the
move). GPU, model and unit names go through mappings/trtllm.yaml: a name it does not know,
a results table's header it does not know, and a file over 1 MiB or with more than 20,000
table cells are reported with file and line, and nothing is written (exit 1). A row or cell
that cannot be read (a ragged row, a cell that is not a number) is listed with its file and
line as left out, and the rest is imported.
"""
TRTLLM_EXAMPLE = """\
Example:
  benchgraph import trtllm-perf ../shared/data/other/tensorrt-llm-perf-overview --out data
"""


def add_import_commands(subparsers: Any) -> argparse.ArgumentParser:
    """Add `import mlperf`, `import argonne` and `import trtllm-perf` to the main parser's
    subparsers."""
    parser = subparsers.add_parser(
        "import",
        help="import outside result sets as generated records",
        description="Import outside result sets as generated run and system records.",
        epilog="Example:\n  benchgraph import mlperf "
        "../shared/data/mlperf/inference_results_v5.1 --out data",
        formatter_class=_FORMAT,
    )
    sources = parser.add_subparsers(dest="source", metavar="SOURCE", required=True)

    mlperf = sources.add_parser(
        "mlperf",
        help="an mlcommons/inference_results_vX.Y checkout",
        description=MLPERF_HELP,
        epilog=MLPERF_EXAMPLE,
        formatter_class=_FORMAT,
    )
    _common(mlperf)
    mlperf.add_argument("--round", help="the round, e.g. v5.1 (default: from the folder name)")
    mlperf.set_defaults(run=lambda args: _run(args, "mlperf", round=args.round))

    argonne = sources.add_parser(
        "argonne",
        help="the LLM-Inference-Bench tables",
        description=ARGONNE_HELP,
        epilog=ARGONNE_EXAMPLE,
        formatter_class=_FORMAT,
    )
    _common(argonne)
    argonne.set_defaults(run=lambda args: _run(args, "argonne"))

    trtllm = sources.add_parser(
        "trtllm-perf",
        help="NVIDIA's TensorRT-LLM performance overview",
        description=TRTLLM_HELP,
        epilog=TRTLLM_EXAMPLE,
        formatter_class=_FORMAT,
    )
    _common(trtllm)
    trtllm.set_defaults(run=lambda args: _run(args, "trtllm"))
    return parser


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH", type=Path, help="the folder to import")
    parser.add_argument(
        "--out",
        metavar="DIR",
        type=Path,
        default=Path("data"),
        help="the data folder to write into (default: data)",
    )
    parser.add_argument(
        "--report",
        action="store_true",
        help="print every distinct raw string, its count and what it "
        "became, and every row left out, with the reason",
    )
    parser.add_argument("--commit", help="the source's commit, when the folder does not say")
    parser.add_argument("--dry-run", action="store_true", help="check only; write nothing")


def _importer(source: str) -> Callable[..., ImportReport]:
    """importers.<source>.import_<source>, imported when its command runs: the importers
    took 78 ms of every command's start (`benchgraph build` among them), read by none but
    these."""
    return getattr(import_module(f"..importers.{source}", __package__), f"import_{source}")


def _run(args: argparse.Namespace, source: str, **extra: Any) -> int:
    importer = _importer(source)
    try:
        report = importer(
            args.path,
            args.out,
            commit=args.commit,
            write=not args.dry_run,
            **{k: v for k, v in extra.items() if v is not None},
        )
    except CannotRun as exc:
        print(f"benchgraph import: {exc}", file=sys.stderr)
        return 2
    print(report.format() if args.report else report.summary())
    return report.exit_code


def main(argv: list[str] | None = None) -> int:
    """Run the import commands alone (the main CLI mounts them under `benchgraph`)."""
    parser = argparse.ArgumentParser(prog="benchgraph")
    add_import_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
