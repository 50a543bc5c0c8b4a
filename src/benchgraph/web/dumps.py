"""Dumps of the whole served dataset, one file per format, written once and then reused.

Formats are export.py's (quad formats keep the graphs, triple formats, RDF/XML among them,
hold their union). A query worker writes each file with a gzip copy beside it (see
queryworker.write_dump), sent to clients that take gzip. Each served snapshot (its build
key) has a folder of its own; writing one sweeps the others' and what dead writers left.
"""

from __future__ import annotations

import fcntl
import logging
import os
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from flask import Blueprint, Response, abort, current_app, request, send_file

from ..links import sssom
from ..store import export
from .errors import shorten

if TYPE_CHECKING:
    from .site import Site, Snapshot

log = logging.getLogger(__name__)
bp = Blueprint("dumps", __name__)

MEDIA_TYPES = {
    "trig": "application/trig",
    "nq": "application/n-quads",
    "ttl": "text/turtle",
    "nt": "application/n-triples",
    "jsonld": "application/ld+json",
    "rdf": "application/rdf+xml",
}
LABELS = {
    "trig": "TriG (named graphs)",
    "nq": "N-Quads (named graphs)",
    "jsonld": "JSON-LD (named graphs)",
    "ttl": "Turtle (union of all graphs)",
    "nt": "N-Triples (union of all graphs)",
    "rdf": "RDF/XML (union of all graphs)",
}
DUMP_TIMEOUT = 600.0  # seconds a dump may take to write
# What a writer leaves while it works: `<file>.<pid>.part` (queryworker.write_dump) and the
# sorting runs' folder (export.SCRATCH).
_UNFINISHED = re.compile(rf"^(?:.+\.(\d+)\.part|{re.escape(export.SCRATCH)}(\d+)-.*)$")


def dump_formats() -> list[tuple[str, str]]:
    """(extension, label) of every dump this server offers."""
    return [(ext, LABELS.get(ext, ext)) for ext in export.FORMATS]


@bp.route("/dumps/benchgraph.<ext>")
def dump(ext: str) -> Response:
    """The dataset in the format of the extension; `sssom.tsv`: its links as an SSSOM mapping
    set, made in this thread (one query over the link graph, a few kB) and kept per snapshot."""
    if ext == "sssom.tsv":
        s: Site = current_app.extensions["benchgraph"]
        etag = s.etag("dump", ext)
        if request.if_none_match.contains_weak(etag):
            return Response(status=304, headers={"ETag": f'"{etag}"'})
        body = s.remember(("sssom",), lambda: sssom.dump(s.store()))
        response = Response(body, mimetype=sssom.MEDIA_TYPE)
        response.headers["Content-Disposition"] = (
            f"attachment; filename=benchgraph-{s.key[:12]}.sssom.tsv"
        )
        response.set_etag(etag)
        return response
    if ext not in MEDIA_TYPES or ext not in export.FORMATS:
        abort(
            404,
            f"no dump in format {shorten(ext)!r}; formats: "
            + ", ".join(e for e, _ in dump_formats())
            + ", sssom.tsv (the links)",
        )
    s = current_app.extensions["benchgraph"]
    path = _written(s, ext)
    gz = path.with_name(path.name + ".gz")
    zipped = request.accept_encodings["gzip"] > 0
    response = send_file(
        gz if zipped else path,
        mimetype=MEDIA_TYPES[ext],
        as_attachment=True,
        download_name=f"benchgraph-{s.key[:12]}.{ext}",
        conditional=True,
        etag=s.etag("dump", ext, "gzip" if zipped else ""),
    )
    if zipped:
        response.headers["Content-Encoding"] = "gzip"
    response.vary.add("Accept-Encoding")
    return response


def _written(s: Site | Snapshot, ext: str) -> Path:
    """The dump file, written by a query worker if it is not there yet. One writer per file
    at a time, across the server's processes (a lock file beside it): the others wait for
    it, then find it written. Each writer renames its own files into place, so a reader
    never sees half a file."""
    path = s.dump_dir / s.key / f"benchgraph.{ext}"
    if path.exists():
        return path
    with _lock_file(path) as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if not path.exists():
            header, _body = s.pool.run(
                {"op": "dump", "format": ext, "path": str(path)}, timeout=DUMP_TIMEOUT
            )
            if header["status"] != 200:
                abort(500, f"the {ext} dump could not be written: {header['refusal']['detail']}")
            sweep(s.dump_dir, s.key)
    return path


def _lock_file(path: Path):
    """The lock file beside `path`, its folder made first. A server process on another
    snapshot may sweep the folder between the two (see _being_written): made again."""
    for attempt in range(3):
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            return open(path.with_name(path.name + ".lock"), "a+b")  # noqa: SIM115
        except FileNotFoundError:
            if attempt == 2:
                raise


def write_ahead(snapshot: Snapshot) -> None:
    """Every dump of a snapshot, written when it is opened (in a thread of the server's), so
    that the first download does not wait for it (12-14 s a format at the shipped size)."""
    for ext in export.FORMATS:
        if ext not in MEDIA_TYPES:
            continue
        if snapshot.closed:
            return
        try:
            _written(snapshot, ext)
        except Exception:  # a store that is down, a worker killed: written on request
            if snapshot.closed:  # swapped out (its workers stopped) or shut: nothing amiss
                log.info("snapshot %s served no more: its dumps not written ahead", snapshot.id)
            else:
                log.exception("snapshot %s: the %s dump not written ahead", snapshot.id, ext)
            return


def sweep(dump_dir: Path, key: str) -> None:
    """Remove the dumps of other snapshots than `key` (at 100k records a set of dumps is
    over 5 GB, and each restart on edited data would add one), and in `key`'s folder the
    unfinished files of writers no longer running (a query worker killed at its timeout).
    A server still serving another snapshot writes its dumps again when asked."""
    for folder in dump_dir.iterdir():
        if folder.is_dir() and folder.name != key and not _being_written(folder):
            shutil.rmtree(folder, ignore_errors=True)
    for item in (dump_dir / key).iterdir():
        found = _UNFINISHED.match(item.name)
        if not found or _running(int(found.group(1) or found.group(2))):
            continue
        if item.is_dir():
            shutil.rmtree(item, ignore_errors=True)
        else:
            item.unlink(missing_ok=True)


def _being_written(folder: Path) -> bool:
    """Whether a running writer has an unfinished file in another snapshot's folder: a
    rebuild writing the next snapshot's description (serving.description.cached), or a
    server process still on the last snapshot writing its dumps. Left to a later sweep:
    taken from under the writer, its rename failed and the rebuild with it."""
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    for name in names:
        found = _UNFINISHED.match(name)
        if found and _running(int(found.group(1) or found.group(2))):
            return True
    return False


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # running, as another user
        pass
    return True
