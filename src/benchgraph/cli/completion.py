"""`benchgraph completion bash|zsh`: the shell's completion script, written by shtab from
this very parser (commands, options, choices, the saved queries' names, folders for --data).

shtab rather than argcomplete: argcomplete runs benchgraph at every Tab, and making this
parser imports every command (1.9-2.9 s measured on a busy 2-core machine); shtab's script
is plain shell, so a Tab costs nothing, and only `completion` itself needs shtab."""

from __future__ import annotations

import argparse
import sys

from .common import EXIT_OK
from .options import command

SHELLS = ("bash", "zsh")


def add(sub, top: argparse.ArgumentParser) -> None:
    """Add the command to the main parser's subcommands; `top` is what it completes."""
    p = command(
        sub,
        "completion",
        "Print the shell's completion script for benchgraph (bash or zsh); see the README.",
        "benchgraph completion bash > ~/.local/share/bash-completion/completions/benchgraph\n"
        '  benchgraph completion zsh > "${fpath[1]}/_benchgraph"',
    )
    p.add_argument("shell", choices=SHELLS)
    p.set_defaults(run=run, top=top)


def run(args) -> int:
    import shtab

    from ..query.saved import saved_queries

    top = args.top
    for name, sub in _commands(top):
        for action in sub._actions:
            if "--example" in action.option_strings and name == "query":
                action.choices = list(saved_queries())  # this parser's only: no error changes
            elif "--data" in action.option_strings or action.dest == "out" and name == "import":
                action.complete = shtab.DIRECTORY
            elif action.dest in ("out", "extra", "accept") or action.metavar == "QUERY":
                action.complete = shtab.FILE
    sys.stdout.write(shtab.complete(top, shell=args.shell))
    return EXIT_OK


def _commands(p: argparse.ArgumentParser, name: str = ""):
    """(name, parser) of each command, depth first."""
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                yield sub_name, sub
                yield from _commands(sub, sub_name)
