"""The command line: parse arguments, call the library, map errors to exit codes.

Exit codes follow pySHACL: 0 fine, 1 the records do not conform, 2 benchgraph cannot run.
Each command is a module of this package, imported here directly: a module that does not
import shows its own traceback.
"""

from __future__ import annotations

import argparse
import os
import sys

from ..errors import BenchgraphError
from . import build, completion, export, imports, link, push, query, serve, validate
from .common import EXIT_OK, told


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="benchgraph",
        description="AI-inference benchmark results as a validated, inferred knowledge graph.",
        epilog="Example:\n  benchgraph query --example no-gpu-fabric",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command_module in (build, query, export, validate, push, link):
        command_module.add(sub)
    imports.add_import_commands(sub)
    serve.add(sub)
    completion.add(sub, top)
    return top


def main(argv: list[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on bad arguments, 0 on --help
        return int(exc.code or 0)
    try:
        return args.run(args) or EXIT_OK
    except BrokenPipeError:
        # The reader stopped reading (`| head`): that is its choice, not an error to show.
        # Point stdout at /dev/null so the interpreter's last flush cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except BenchgraphError as exc:
        return told(exc, args)


if __name__ == "__main__":
    raise SystemExit(main())
