"""A query worker: a process that opens the store read-only and answers queries, one at a time
(and writes the dumps, which take long enough to belong outside the web process).

pyoxigraph cannot cancel a running query from Python, so a query that outlives its timeout
is stopped by killing the process that runs it (querypool.py starts and replaces these).
Run as `python -m benchgraph.web.queryworker SETTINGS_JSON`; requests arrive on stdin and
answers leave on the original stdout, each as a JSON header message followed by a body
message (multiprocessing.connection framing).
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

from .. import bigstack, export
from ..namespaces import PREFIXES
from ..querysyntax import from_engine
from .memory import MB, memory_detail
from .negotiation import BY_FORM, GRAPH, Format, NotAcceptable, choose
from .queryinfo import Refused, check_services, inspect_query

PREFIX_ITEMS = tuple(sorted(PREFIXES.items()))


@dataclass(frozen=True)
class Settings:
    """What every query of this worker shares."""

    store: str
    max_bytes: int
    allow_service: tuple[str, ...] = ()
    memory_mb: int = 0


class TooLarge(Exception):
    """The serialized result passed the size cap."""


class _CappedBuffer:
    """A write target that refuses to grow past `limit` bytes."""

    def __init__(self, limit: int):
        self.limit, self.size, self.parts = limit, 0, []

    def write(self, data: bytes) -> int:
        self.size += len(data)
        if self.size > self.limit:
            raise TooLarge
        self.parts.append(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass

    def getvalue(self) -> bytes:
        return b"".join(self.parts)


def answer(store: ox.Store, request: dict, settings: Settings) -> tuple[dict, bytes]:
    """Run one request (a query, or writing a dump); return the response header and body."""
    if request.get("op") == "dump":
        write_dump(store, request["format"], Path(request["path"]))
        return {"status": 200}, b""
    text, base = request["query"], request.get("base")
    try:
        dataset = _dataset(request)
    except ValueError as exc:
        return _error(400, "bad graph IRI", f"default-graph-uri / named-graph-uri: {exc}"), b""
    try:
        info = inspect_query(text, base, PREFIX_ITEMS)
        check_services(info, settings.allow_service)
        fmt = choose(BY_FORM[info.form], request.get("accept"), request.get("format"))
        if dataset is None:  # no protocol dataset: the query's FROM, else the union
            dataset = {} if info.has_dataset else {"use_default_graph_as_union": True}
        body = bigstack.call(lambda: _serialize(
            store.query(text, base_iri=base, prefixes=PREFIXES, **dataset), fmt,
            settings.max_bytes))  # Oxigraph recurses along long chains: give it a deep stack
    except Refused as exc:
        return _error(exc.status, exc.title, exc.detail, exc.position), b""
    except NotAcceptable as exc:
        return _error(406, "not acceptable", f"this query's answer: {exc}"), b""
    except SyntaxError as exc:  # rdflib read it, Oxigraph does not: the engine's words
        refused = from_engine(exc)
        return _error(400, "malformed query", str(refused), refused.position), b""
    except TooLarge:
        return _error(422, "result too large",
                      f"the result passes this server's cap of {settings.max_bytes:,} bytes "
                      "and was not sent; add a LIMIT or narrow the query"), b""
    except ConnectionError as exc:
        return _error(502, "federated query failed", f"a SERVICE call failed: {exc}"), b""
    return {"status": 200, "content_type": fmt.content_type, "form": info.form,
            "format": fmt.name}, body


def write_dump(store: ox.Store, ext: str, path: Path) -> None:
    """The whole dataset in one of export.py's formats, beside a gzip copy `<path>.gz`; both
    written under temporary names, then renamed into place."""
    partial = path.with_name(f"{path.name}.{os.getpid()}.part")
    partial_gz = path.with_name(f"{path.name}.gz.{os.getpid()}.part")
    path.parent.mkdir(parents=True, exist_ok=True)
    export.dump(store, ext, partial)
    with partial.open("rb") as src, partial_gz.open("wb") as raw, gzip.GzipFile(
            filename="", mode="wb", fileobj=raw, mtime=0) as dst:
        shutil.copyfileobj(src, dst)
    partial_gz.replace(path.with_name(path.name + ".gz"))
    partial.replace(path)


def _dataset(request: dict) -> dict | None:
    """The protocol's dataset, which overrides the query's FROM clauses; None if not given."""
    default, named = request.get("default_graphs"), request.get("named_graphs")
    if not default and not named:
        return None
    return {"default_graph": [ox.NamedNode(g) for g in default or []],
            "named_graphs": [ox.NamedNode(g) for g in named or []]}


def _serialize(result: object, fmt: Format, limit: int) -> bytes:
    out = _CappedBuffer(limit)
    if fmt in GRAPH:
        ox.serialize(result, out, getattr(ox.RdfFormat, fmt.oxigraph),
                     prefixes=export.DUMP_PREFIXES)
    else:
        result.serialize(out, getattr(ox.QueryResultsFormat, fmt.oxigraph))
    return out.getvalue()


def _error(status: int, title: str, detail: str, position: dict | None = None) -> dict:
    header = {"status": status, "error": title, "detail": detail}
    if position:
        header["position"] = position
    return header


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
    # The thread stack a query or a long parse runs on (bigstack.py, one at a time) is
    # reserved address space, counted as data but touched only as deep as the query goes:
    # the limit leaves room for it, and the pool's watch on resident memory holds the rest
    # to limit_mb.
    limit = limit_mb * MB + bigstack.STACK_BYTES
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


def main(argv: list[str]) -> int:
    """Serve requests until stdin closes."""
    _die_with_parent()
    # Let the pool give a long query's worker its normal priority back afterwards, where the
    # service manager allows it (LimitNICE); a worker it cannot raise again is replaced.
    _soft, hard = resource.getrlimit(resource.RLIMIT_NICE)
    resource.setrlimit(resource.RLIMIT_NICE, (hard, hard))
    given = json.loads(argv[0])
    settings = Settings(given["store"], given["max_bytes"], tuple(given["allow_service"]),
                        given.get("memory_mb", 0))
    reply = Connection(os.dup(1), readable=False)
    os.dup2(2, 1)  # anything printed by accident goes to stderr, not into the protocol
    requests = Connection(0, writable=False)
    store = ox.Store.read_only(settings.store)
    if settings.memory_mb:
        limit_memory(settings.memory_mb)
    reply.send_bytes(json.dumps({"ready": os.getpid()}).encode())
    while True:
        try:
            request = json.loads(requests.recv_bytes())
        except EOFError:
            return 0
        try:
            header, body = answer(store, request, settings)
        except MemoryError:  # Python's allocator failed under the limit; Rust's aborts
            header, body = _error(507, "query used too much memory",
                                  memory_detail(settings.memory_mb)), b""
            header["retire"] = True  # the pool replaces this worker
        except Exception as exc:  # keep the worker alive; the pool reports a server error
            traceback.print_exc()
            header, body = _error(500, "query failed", f"{type(exc).__name__}: {exc}"), b""
        reply.send_bytes(json.dumps(header).encode())
        reply.send_bytes(body)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
