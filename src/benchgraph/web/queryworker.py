"""A query worker: a process that opens the store read-only and answers queries, one at a time
(and writes the dumps, which take long enough to belong outside the web process).

pyoxigraph cannot cancel a running query from Python, so a query that outlives its timeout
is stopped by killing the process that runs it (querypool.py starts and replaces these).
Run as `python -m benchgraph.web.queryworker SETTINGS_JSON`; requests arrive on stdin and
answers leave on the original stdout, each as a JSON header message followed by a body
message (multiprocessing.connection framing).

A worker is kept small, since the pool holds several: it imports neither rdflib nor werkzeug
unless a query needs rdflib's check (query.inspect.needs_parse); the server process picks the
answer's format (negotiation.formats_for) and sends the prefixes. It serves every request on
one thread with a big stack (query/stack.py), started once.
"""

from __future__ import annotations

import ctypes
import gzip
import json
import os
import resource
import shutil
import signal
import sys
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

import pyoxigraph as ox

from .. import settings as table
from ..errors import BenchgraphError
from ..query import stack
from ..query.cells import safe_csv
from ..query.gate import check_query
from ..query.inspect import (
    check_remote,
    check_services,
    check_store_query,
    graph_form,
    inspect_query,
    needs_parse,
    refuse_service_early,
)
from ..query.syntax import syntax_error
from ..store import is_remote
from ..store import open as open_store
from ..store.http import StoreError, StoreTooLarge
from .memory import MB, memory_detail
from .negotiation import BY_FORM, BY_NAME, GRAPH, Format, NotAcceptable, choose
from .poolerrors import PoolError, QueryOutOfMemory

UNION = {"use_default_graph_as_union": True}


@dataclass(frozen=True)
class Settings:
    """What every query of this worker shares."""

    store: str
    max_bytes: int
    allow_service: tuple[str, ...] = ()
    memory_mb: int = 0
    timeout: float | None = None  # a remote store's own limit (its timeout parameter)
    prefixes: dict[str, str] | None = None  # predeclared in queries; None: namespaces'
    dump_prefixes: dict[str, str] | None = None  # of graph answers; None: export's

    def __post_init__(self) -> None:
        if self.prefixes is None:  # imports rdflib: the pool sends both instead
            from ..namespaces import PREFIXES
            from ..store.export import DUMP_PREFIXES

            object.__setattr__(self, "prefixes", dict(PREFIXES))
            object.__setattr__(self, "dump_prefixes", dict(DUMP_PREFIXES))
        object.__setattr__(self, "prefix_items", tuple(sorted(self.prefixes.items())))


class TooLarge(BenchgraphError):
    """The serialized result (or a store's answer) passed the size cap."""

    status, title, code = 422, "result too large", "too-large"

    def __init__(self, limit: int, what: str = "the result"):
        super().__init__(
            f"{what} passes this server's cap of {limit:,} bytes and was not sent; add a "
            "LIMIT or narrow the query"
        )


class BadGraphIRI(BenchgraphError):
    """A protocol dataset (default-graph-uri, named-graph-uri) that is not an IRI."""

    status, title = 400, "bad graph IRI"


class ServiceFailed(BenchgraphError):
    """A SERVICE call of a federated query failed."""

    status, title, code = 502, "federated query failed", "service-failed"


class _CappedBuffer:
    """A write target that refuses to grow past `limit` bytes."""

    def __init__(self, limit: int):
        self.limit, self.data = limit, bytearray()

    def write(self, data: bytes) -> int:
        if len(self.data) + len(data) > self.limit:
            raise TooLarge(self.limit)
        self.data += data
        return len(data)

    def flush(self) -> None:
        pass

    def getvalue(self) -> bytearray:
        return self.data  # sent as it is: no copy


def answer(store: ox.Store, request: dict, settings: Settings) -> tuple[dict, bytes]:
    """Run one request (a query, or writing a dump); return the response header and body."""
    if request.get("op") == "dump":
        write_dump(store, request["format"], Path(request["path"]))
        return {"status": 200}, b""
    text, base = request["query"], request.get("base")
    try:
        dataset = _dataset(request)
        # Both parsers and Oxigraph's evaluator recurse: on a deep stack (inline on the
        # worker's own, see main).
        form, fmt, body = stack.call(lambda: _run(store, text, base, dataset, request, settings))
    except BenchgraphError as exc:  # each carries the status, title and code it answers
        if exc.status is None:
            raise  # no answer of its own: serve() answers a 500
        return _refusal(exc), b""
    return {"status": 200, "content_type": fmt.content_type, "form": form, "format": fmt.name}, body


def _run(
    store: object,
    text: str,
    base: str | None,
    dataset: dict | None,
    request: dict,
    settings: Settings,
) -> tuple[str, Format, bytearray]:
    """Check, run and serialize (_checked_run), what fails there an error of the family."""
    try:
        return _checked_run(store, text, base, dataset, request, settings)
    except SyntaxError as exc:  # the place `benchgraph query` reports too (query/syntax.py)
        raise syntax_error(text, exc) from None
    except ConnectionError as exc:
        raise ServiceFailed(f"a SERVICE call failed: {exc}") from None
    except StoreTooLarge:
        raise TooLarge(settings.max_bytes, "the store's answer") from None
    except NotAcceptable as exc:
        exc.detail = f"this query's answer: {exc}"
        raise


def _checked_run(
    store: object,
    text: str,
    base: str | None,
    dataset: dict | None,
    request: dict,
    settings: Settings,
) -> tuple[str, Format, bytearray]:
    """Check the query, run it, serialize its answer: (form, format, body)."""
    remote = is_remote(settings.store)
    if remote:
        check_remote(text, None, ())  # the pragma, before rdflib reads it as an error
    if remote or needs_parse(text, settings.prefixes):
        refuse_service_early(text, settings.allow_service)
        info = inspect_query(text, base, settings.prefix_items)
        check_services(info, settings.allow_service)
        # the algebra budget on every store; a store's own functions for a store server
        check_query(info.shape, functions=remote)
        if remote and (info.graphs or dataset):
            check_remote(
                text,
                info,
                _graphs(store),
                [*request.get("default_graphs", []), *request.get("named_graphs", [])],
            )
        form = info.form
        fmt = _format(request, form)
        if dataset is None:  # no protocol dataset: the query's FROM, else the union
            dataset = {} if info.has_dataset else UNION
    else:  # no SERVICE, no FROM, too few parts to pass the budget (needs_parse): Oxigraph
        # alone reads it
        form = None
        if dataset is None:
            dataset = UNION
    result = store.query(text, base_iri=base, prefixes=settings.prefixes, **dataset)
    if form is None:  # its answer says what it is (Oxigraph's evaluation is lazy)
        form = _form(result, text)
        fmt = _format(request, form)
    try:
        body = _serialize(result, fmt, settings)
    except SyntaxError as exc:  # pyoxigraph reads a store's results as they are written
        if not remote:
            raise
        raise StoreError(
            502, f"the store's answer is not results benchgraph reads: {exc}"
        ) from None
    return form, fmt, body


def write_dump(store: ox.Store, ext: str, path: Path) -> None:
    """The whole dataset in one of export.py's formats, beside a gzip copy `<path>.gz`; both
    written under temporary names, then renamed into place."""
    from ..store import export  # imports rdflib: a dump is rare, a query is not

    partial = path.with_name(f"{path.name}.{os.getpid()}.part")
    partial_gz = path.with_name(f"{path.name}.gz.{os.getpid()}.part")
    path.parent.mkdir(parents=True, exist_ok=True)
    export.dump(store, ext, partial)
    with (
        partial.open("rb") as src,
        partial_gz.open("wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as dst,
    ):
        shutil.copyfileobj(src, dst)
    partial_gz.replace(path.with_name(path.name + ".gz"))
    partial.replace(path)


_GRAPHS: list[set[str]] = []


def _graphs(store: object) -> set[str]:
    """The dataset's graph names (read once per worker)."""
    if not _GRAPHS:
        _GRAPHS.append({g.value for g in store.named_graphs()})
    return _GRAPHS[0]


def _dataset(request: dict) -> dict | None:
    """The protocol's dataset, which overrides the query's FROM clauses; None if not given."""
    default, named = request.get("default_graphs"), request.get("named_graphs")
    if not default and not named:
        return None
    try:
        return {
            "default_graph": [ox.NamedNode(g) for g in default or []],
            "named_graphs": [ox.NamedNode(g) for g in named or []],
        }
    except ValueError as exc:
        raise BadGraphIRI(f"default-graph-uri / named-graph-uri: {exc}") from None


def _form(result: object, text: str) -> str:
    if isinstance(result, ox.QuerySolutions):
        return "SELECT"
    if isinstance(result, ox.QueryBoolean):
        return "ASK"
    return graph_form(text)


def _format(request: dict, form: str) -> Format:
    """The answer's format: as the server process chose it for this form, else chosen here
    from the request's Accept and format."""
    chosen = request.get("formats")
    if chosen is None:
        return choose(BY_FORM[form], request.get("accept"), request.get("format"))
    name = chosen[form]
    if name.startswith("!"):
        raise NotAcceptable(BY_FORM[form], name[1:])
    return BY_NAME[name]


def _serialize(result: object, fmt: Format, settings: Settings) -> bytearray:
    out = _CappedBuffer(settings.max_bytes)
    if fmt in GRAPH:
        ox.serialize(
            result, out, getattr(ox.RdfFormat, fmt.oxigraph), prefixes=settings.dump_prefixes
        )
    else:
        result.serialize(out, getattr(ox.QueryResultsFormat, fmt.oxigraph))
    if fmt.name == "csv":  # no cell a spreadsheet would run as a formula (query/cells.py)
        return bytearray(safe_csv(bytes(out.getvalue())))
    return out.getvalue()


def _refusal(exc: BenchgraphError) -> dict:
    """The header of an error of the family: its status, and its answer (BenchgraphError.
    answer) for the server to write in the one shape (errors.Answered)."""
    answer = exc.answer()
    return {"status": answer["status"], "refusal": answer}


def _die_with_parent() -> None:
    """Ask Linux to kill this process when the process that started it ends."""
    if sys.platform.startswith("linux"):
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)


def limit_memory(limit_mb: int) -> None:
    """Cap the process's data (heap and private mappings) at `limit_mb`: an allocation past
    it fails, so a query cannot take the machine's memory even between the pool's looks.
    Set once the store is open: RocksDB maps much at opening, and an address-space limit
    (RLIMIT_AS) would count its file mappings too."""
    # The thread stack a query or a long parse runs on (query/stack.py, one at a time) is
    # reserved address space, counted as data but touched only as deep as the query goes:
    # the limit leaves room for it, and the pool's watch on resident memory holds the rest
    # to limit_mb.
    limit = limit_mb * MB + stack.STACK_BYTES
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


def main(argv: list[str]) -> int:
    """Serve requests until stdin closes."""
    _die_with_parent()
    # Let the pool give a long query's worker its normal priority back afterwards, where the
    # service manager allows it (LimitNICE); a worker it cannot raise again is replaced.
    _soft, hard = resource.getrlimit(resource.RLIMIT_NICE)
    resource.setrlimit(resource.RLIMIT_NICE, (hard, hard))
    given = json.loads(argv[0])
    table.configure(given.get("settings", {}))  # the server's query limits
    settings = Settings(
        given["store"],
        given["max_bytes"],
        tuple(given["allow_service"]),
        given.get("memory_mb", 0),
        given.get("timeout"),
        given.get("prefixes"),
        given.get("dump_prefixes"),
    )
    reply = Connection(os.dup(1), readable=False)
    os.dup2(2, 1)  # anything printed by accident goes to stderr, not into the protocol
    requests = Connection(0, writable=False)
    # a remote answer is read up to four times the result cap (the store's JSON is wordier
    # than most formats the client may ask for), then refused, never held whole
    store = open_store(
        settings.store, settings.timeout, 4 * settings.max_bytes, gate=check_store_query
    )  # every query a store server gets is checked
    if settings.memory_mb:
        limit_memory(settings.memory_mb)
    reply.send_bytes(json.dumps({"ready": os.getpid()}).encode())
    # Every request on one thread with a deep stack, for the parsers and Oxigraph's
    # evaluator: started once, not per query (limit_memory counts its reservation).
    return stack.call(lambda: serve(store, settings, requests, reply))


def serve(store: object, settings: Settings, requests: Connection, reply: Connection) -> int:
    """Answer requests until the pool closes the pipe."""
    while True:
        try:
            request = json.loads(requests.recv_bytes())
        except EOFError:
            return 0
        try:
            header, body = answer(store, request, settings)
        except MemoryError:  # Python's allocator failed under the limit; Rust's aborts
            header, body = _refusal(QueryOutOfMemory(memory_detail(settings.memory_mb))), b""
            header["retire"] = True  # the pool replaces this worker
        except Exception as exc:  # keep the worker alive; the pool reports a server error
            traceback.print_exc()
            header, body = _refusal(PoolError(f"{type(exc).__name__}: {exc}")), b""
        reply.send_bytes(json.dumps(header).encode())
        reply.send_bytes(body)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
