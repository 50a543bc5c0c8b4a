"""The options several commands share, each a function that adds it to a command's parser
(the settings table's flags among them), and `command`, which makes a subcommand whose help
ends with its example."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .. import settings
from ..store.extra import WITH_INFERRED_GRAPH, Extra


def data_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data",
        type=Path,
        default=Path("data"),
        metavar="DIR",
        help="the folder of records (default: ./data)",
    )


def store_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--store",
        metavar="QUERY_URL",
        help="answer from this SPARQL store server (what `benchgraph push` "
        "sent there) instead of building --data; credentials (of an "
        "account that can only read) from BENCHGRAPH_SERVE_STORE_USER/"
        "_PASSWORD or BENCHGRAPH_SERVE_STORE_TOKEN",
    )


def command(sub, name: str, help: str, example: str) -> argparse.ArgumentParser:
    return sub.add_parser(
        name,
        help=help,
        description=help,
        epilog=f"Example:\n  {example}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def with_options(parser: argparse.ArgumentParser) -> None:
    """--with and --reason-with, the same on every command that reads the dataset."""
    parser.add_argument(
        "--with",
        dest="extra",
        action="append",
        default=[],
        type=parse_with,
        metavar="FILE[=GRAPH_IRI]",
        help="load an RDF file as a named graph of its own (named by "
        "GRAPH_IRI, else by the file's URI), not validated and not "
        "reasoned over; repeatable",
    )
    parser.add_argument(
        "--reason-with",
        action="store_true",
        help="apply the --with graphs' rdfs:subClassOf/subPropertyOf (and "
        "owl:equivalentClass/Property) to the dataset, into "
        f"<{WITH_INFERRED_GRAPH}>",
    )


def parse_with(value: str) -> Extra:
    """`FILE` or `FILE=GRAPH_IRI` (a file whose name holds '=' is taken whole if it exists)."""
    if Path(value).is_file() or "=" not in value:
        path, iri = value, None
    else:
        path, _, iri = value.partition("=")
    if not Path(path).is_file():
        raise argparse.ArgumentTypeError(f"{path}: no such file")
    return Path(path), iri


def setting_options(parser: argparse.ArgumentParser, reader: str | None = None) -> None:
    """A flag for every row of the settings table that has one (benchgraph/settings.py),
    and --help-settings, which prints the table. A flag not given is None, leaving its
    BENCHGRAPH_* variable (read by create_app) to apply; `given_settings` reads them back."""
    for s in settings.SETTINGS.values():
        if s.flag is None or (reader is not None and s.reader != reader):
            continue
        if s.flag_default is not None:
            default, where = s.flag_default, ""
        else:
            default, where = None, f", or ${s.env}" + (" in bytes" if s.scale != 1 else "")
        kind: Any = float if s.scale != 1 else {"int": int, "float": float}.get(s.type, str)
        kwargs: dict[str, Any] = {"action": "append"} if s.type == "list" else {"type": kind}
        meaning = s.meaning.replace("%", "%%")
        parser.add_argument(
            s.flag,
            dest=_dest(s),
            default=default,
            metavar=s.unit,
            help=f"{meaning} (default: {settings.shown_default(s)}{where})",
            **kwargs,
        )
    parser.add_argument(
        "--help-settings",
        action=_HelpSettings,
        help="print every setting: its environment variable, flag, default and meaning",
    )


def given_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The settings whose flags were given, in the table's units (MB flags as bytes)."""
    given: dict[str, Any] = {}
    for s in settings.SETTINGS.values():
        value = getattr(args, _dest(s), None) if s.flag else None
        if value is None:
            continue
        if s.scale != 1:
            value = value * s.scale
            value = int(value) if s.type == "int" else value
        given[s.name] = list(value) if s.type == "list" else value
    return given


def _dest(s: settings.Setting) -> str:
    return f"setting_{s.name.lower()}"


class _HelpSettings(argparse.Action):
    """--help-settings: print the settings table, then exit as --help does."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None):
        super().__init__(
            option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, nargs=0, help=help
        )

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: Any,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(settings.text())
        parser.exit()
