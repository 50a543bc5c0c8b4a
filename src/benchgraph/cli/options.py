"""The options several commands share, each a function that adds it to a command's parser,
and `command`, which makes a subcommand whose help ends with its example."""

from __future__ import annotations

import argparse
from pathlib import Path

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
