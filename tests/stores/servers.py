"""Real SPARQL store servers for the tests: an Oxigraph server and a Virtuoso, each started
on free ports of 127.0.0.1 with files in a temporary folder, and stopped afterwards.

Debian's virtuoso-opensource package starts an instance of its own on 8890/1111: these
servers never use those ports, its files or its configuration.

On a loaded machine (other suites beside this one) a start is waited for by its signal, the
server's own process answering on its port, with deadlines far past what a start takes alone
(START_WITHIN); a port another process took between free_port() and the server's bind makes
the server end at start, and it is started again on fresh ports (STARTS).

Each server is sent SIGTERM when the process that started it ends, however it ends
(locks.ending_with): `stop` is never reached when a test run is killed with `kill -9`.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from benchgraph.locks import ending_with

VIRTUOSO_USER, VIRTUOSO_PASSWORD = "dba", "dba"  # a fresh database's own administrator
# The serving account the README tells Virtuoso's operators to make: it can only read.
READER_USER, READER_PASSWORD = "bgserve", "bgserve-secret"
READER_SQL = (
    f"DB.DBA.USER_CREATE ('{READER_USER}', '{READER_PASSWORD}'); "
    f'GRANT SPARQL_SELECT TO "{READER_USER}";'
)
DEBIAN_PORTS = {8890, 1111}
# Seconds a start may take before the test errs. Alone: Oxigraph 1 s, Virtuoso 5-10 s, the
# read-only Oxigraph over the pushed shipped data a few s; a loaded 2-core machine is slower
# many times over, and a passing start returns as soon as the server answers.
START_WITHIN = 300.0
STOP_WITHIN = 120.0  # SIGTERM to exit: a store with the shipped data's 13k graphs flushes
STARTS = 3  # tries on fresh ports
_handed_out: set[int] = set()  # ports given to this session's servers


@dataclass
class Server:
    """A running store: its query, update and Graph Store URLs, and how to stop it."""

    name: str
    query: str
    graph_store: str
    proc: subprocess.Popen
    log: Path
    env: dict[str, str] = field(default_factory=dict)  # what push needs to authenticate
    sql_port: int = 0  # Virtuoso's SQL port (its bulk loader is driven through isql)

    def stop(self) -> None:
        """SIGTERM, and the time to close its store cleanly (a killed Oxigraph leaves a store
        the read-only server then opens from its log); SIGKILL only past that."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=STOP_WITHIN)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def free_port() -> int:
    """A port free now, never one handed to another server of this session (the kernel may
    give a port again once its probe socket is closed: Virtuoso's two would then clash)."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in DEBIAN_PORTS and port not in _handed_out:
            _handed_out.add(port)
            return port


class EndedAtStart(RuntimeError):
    """The server process ended before it answered (a port taken meanwhile, most often)."""


def _listens(proc: subprocess.Popen, port: int) -> bool:
    """Whether `proc` (or a process it started) holds the listening socket on `port`: the
    answer then comes from this server, not from another that took the port."""
    import psutil

    try:
        root = psutil.Process(proc.pid)
        for p in [root, *root.children(recursive=True)]:
            for c in p.net_connections(kind="tcp"):
                if c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port:
                    return True
    except psutil.Error:
        pass
    return False


def oxigraph_binary() -> str | None:
    """The `oxigraph` server binary of the oxigraph PyPI package (beside this Python)."""
    beside = Path(sys.executable).parent / "oxigraph"
    return str(beside) if beside.is_file() else shutil.which("oxigraph")


def virtuoso_binary() -> str | None:
    return shutil.which("virtuoso-t")


def _wait(url: str, proc: subprocess.Popen, log: Path, timeout: float = START_WITHIN) -> None:
    """Until the server answers ASK {} on `url` from its own socket; an error naming what its
    log says if it ended first or did not answer within `timeout`."""
    port = int(url.split(":")[2].split("/")[0])
    started = time.monotonic()
    while time.monotonic() < started + timeout:
        if proc.poll() is not None:
            raise EndedAtStart(
                f"{url}: the server ended at start (exit code {proc.returncode}): "
                + log.read_text(errors="replace")[-2000:]
            )
        if _listens(proc, port):
            try:  # a probe may wait long on a loaded machine: the deadline is the start's
                with urllib.request.urlopen(url + "?query=ASK%7B%7D", timeout=30) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
        time.sleep(0.2)
    raise RuntimeError(
        f"{url}: no answer within {timeout:g} s: " + log.read_text(errors="replace")[-2000:]
    )


def answering(server: Server, within: float = START_WITHIN) -> None:
    """Until the running server answers ASK {} (EndedAtStart if it ended, RuntimeError if it
    did not answer within `within`): a server that died or hangs after its push fails
    there, once, not in every test that reads it."""
    _wait(server.query, server.proc, server.log, within)


def _started(start: Callable[[], Server]) -> Server:
    """`start()` again on fresh ports where the server ended at start, up to STARTS times."""
    for attempt in range(STARTS):
        try:
            return start()
        except EndedAtStart:
            if attempt == STARTS - 1:
                raise
    raise AssertionError("unreachable")


def start_oxigraph(folder: Path, read_only: bool = False) -> Server:
    """`oxigraph serve` on a store in `folder`, its default graph the union of its graphs
    (as benchgraph's own store answers); `oxigraph serve-read-only` with `read_only`, as the
    README says to serve from it (no other process may have the store open: stop the
    writer first)."""
    return _started(lambda: _start_oxigraph(folder, read_only))


def _start_oxigraph(folder: Path, read_only: bool) -> Server:
    port = free_port()
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / ("oxigraph-read-only.log" if read_only else "oxigraph.log")
    proc = subprocess.Popen(
        [
            oxigraph_binary(),
            "serve-read-only" if read_only else "serve",
            "--location",
            str(folder / "store"),
            "--bind",
            f"127.0.0.1:{port}",
            "--union-default-graph",
            # as an operator would: a query the client gave up on stops here too
            "--timeout-s",
            "10",
        ],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        preexec_fn=ending_with(signal.SIGTERM),
    )
    base = f"http://127.0.0.1:{port}"
    server = Server("oxigraph", f"{base}/query", f"{base}/store", proc, log)
    try:
        _wait(server.query, proc, log)
    except BaseException:
        server.stop()
        raise
    return server


VIRTUOSO_INI = """\
[Database]
DatabaseFile = {d}/virtuoso.db
ErrorLogFile = {d}/virtuoso.log
LockFile = {d}/virtuoso.lck
TransactionFile = {d}/virtuoso.trx
xa_persistent_file = {d}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
Striping = 0
TempStorage = TempDatabase
[TempDatabase]
DatabaseFile = {d}/virtuoso-temp.db
TransactionFile = {d}/virtuoso-temp.trx
Striping = 0
[Parameters]
ServerPort = 127.0.0.1:{sql}
DisableUnixSocket = 1
DisableTcpSocket = 0
MaxClientConnections = 10
CheckpointInterval = 60
CaseMode = 2
DirsAllowed = ., {d}
NumberOfBuffers = 10000
MaxDirtyBuffers = 6000
ThreadsPerQuery = 2
MaxQueryMem = 500M
[HTTPServer]
ServerPort = 127.0.0.1:{http}
ServerRoot = /var/lib/virtuoso-opensource-7/vsp
MaxClientConnections = 10
ServerThreads = 10
MaxKeepAlives = 10
KeepAliveTimeout = 10
Charset = UTF-8
EnabledGzipContent = 0
[SPARQL]
ResultSetMaxRows = 1000000
MaxQueryCostEstimationTime = 400
MaxQueryExecutionTime = 120
"""


def start_virtuoso(folder: Path) -> Server:
    """virtuoso-t in the foreground on a database in `folder`, on ports of its own."""
    return _started(lambda: _start_virtuoso(folder))


def _start_virtuoso(folder: Path) -> Server:
    sql, http = free_port(), free_port()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "virtuoso.lck").unlink(missing_ok=True)  # a try that ended at start left it
    ini = folder / "virtuoso.ini"
    ini.write_text(VIRTUOSO_INI.format(d=folder, sql=sql, http=http))
    log = folder / "virtuoso-stdout.log"
    proc = subprocess.Popen(
        [virtuoso_binary(), "+foreground", "+configfile", str(ini)],
        cwd=folder,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=ending_with(signal.SIGTERM),
    )
    base = f"http://127.0.0.1:{http}"
    server = Server(
        "virtuoso",
        f"{base}/sparql",
        f"{base}/sparql-graph-crud-auth",
        proc,
        log,
        {"BENCHGRAPH_STORE_USER": VIRTUOSO_USER, "BENCHGRAPH_STORE_PASSWORD": VIRTUOSO_PASSWORD},
        sql,
    )
    try:
        _wait(server.query, proc, log)
    except BaseException:
        server.stop()
        raise
    return server


def add_reader(server: Server) -> dict[str, str]:
    """The README's read-only Virtuoso account, made through isql (READER_SQL); its
    credentials as `benchgraph serve` reads them."""
    subprocess.run(
        [
            "isql-vt",
            f"127.0.0.1:{server.sql_port}",
            VIRTUOSO_USER,
            VIRTUOSO_PASSWORD,
            f"exec={READER_SQL}",
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return {
        "BENCHGRAPH_SERVE_STORE_USER": READER_USER,
        "BENCHGRAPH_SERVE_STORE_PASSWORD": READER_PASSWORD,
    }


if __name__ == "__main__":  # start one by hand: python tests/stores/servers.py oxigraph DIR
    start = {"oxigraph": start_oxigraph, "virtuoso": start_virtuoso}[sys.argv[1]]
    s = start(Path(sys.argv[2]))
    print(s.query, s.graph_store, s.proc.pid, flush=True)
    try:
        s.proc.wait()
    except KeyboardInterrupt:
        s.stop()
    os._exit(0)
