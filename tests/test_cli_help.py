"""Every command's help ends with an example a person can copy (sqlite-utils' habit): an
`Example:` block whose lines run that very command."""

from __future__ import annotations

import argparse
import re

import pytest

from benchgraph.cli.main import parser


def commands(p: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """Every (sub)command of the CLI with its parser, depth first."""
    for action in p._actions:  # argparse keeps its subparsers here only
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*path, name), sub
                yield from commands(sub, (*path, name))


COMMANDS = dict(commands(parser()))


def test_the_cli_has_its_commands():
    assert {
        "build",
        "query",
        "export",
        "validate",
        "serve",
        "link",
        "import",
        "push",
        ("import", "mlperf"),
    } <= {c[0] if len(c) == 1 else c for c in COMMANDS}


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_every_commands_help_has_an_example_of_itself(path):
    sub = COMMANDS[path]
    if any(isinstance(a, argparse._SubParsersAction) for a in sub._actions):
        return  # a group (`import`): its commands each have their own
    text = sub.format_help()
    block = re.search(r"^Example:\n((?:  .*\n?)+)", text, re.MULTILINE)
    assert block, f"benchgraph {' '.join(path)} --help has no Example: block"
    runs = re.compile(rf"^  (?:[A-Z_]+=\S+ )*benchgraph {' '.join(path)}\b", re.MULTILINE)
    assert runs.search(block[1]), block[1]
