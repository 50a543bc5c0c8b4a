"""Dumps of the whole served dataset, one file per format, written once and then reused.

Formats are export.py's (quad formats keep the graphs, triple formats hold their union),
plus RDF/XML of the union. A query worker writes each file with a gzip copy beside it (see
queryworker.write_dump), sent to clients that take gzip.
"""

from __future__ import annotations

import threading
from pathlib import Path

from flask import Blueprint, Response, abort, current_app, request, send_file

from .. import export
from .site import Site

bp = Blueprint("dumps", __name__)

MEDIA_TYPES = {"trig": "application/trig", "nq": "application/n-quads", "ttl": "text/turtle",
               "nt": "application/n-triples", "jsonld": "application/ld+json",
               "rdf": "application/rdf+xml"}
LABELS = {"trig": "TriG (named graphs)", "nq": "N-Quads (named graphs)",
          "jsonld": "JSON-LD (named graphs)", "ttl": "Turtle (union of all graphs)",
          "nt": "N-Triples (union of all graphs)", "rdf": "RDF/XML (union of all graphs)"}
DUMP_TIMEOUT = 600.0  # seconds a dump may take to write
_lock = threading.Lock()


def dump_formats() -> list[tuple[str, str]]:
    """(extension, label) of every dump this server offers."""
    return [(ext, LABELS.get(ext, ext)) for ext in [*export.FORMATS, "rdf"]]


@bp.route("/dumps/benchgraph.<ext>")
def dump(ext: str) -> Response:
    """The dataset in the format of the extension."""
    if ext not in MEDIA_TYPES or (ext != "rdf" and ext not in export.FORMATS):
        abort(404, f"no dump in format {ext!r}; formats: "
                   + ", ".join(e for e, _ in dump_formats()))
    s: Site = current_app.extensions["benchgraph"]
    path = _written(s, ext)
    gz = path.with_name(path.name + ".gz")
    zipped = request.accept_encodings["gzip"] > 0
    response = send_file(gz if zipped else path, mimetype=MEDIA_TYPES[ext], as_attachment=True,
                         download_name=f"benchgraph-{s.key[:12]}.{ext}", conditional=True,
                         etag=s.etag("dump", ext, "gzip" if zipped else ""))
    if zipped:
        response.headers["Content-Encoding"] = "gzip"
    response.vary.add("Accept-Encoding")
    return response


def _written(s: Site, ext: str) -> Path:
    """The dump file, written on first request by a query worker (one thread asks; the others
    wait for it). Server processes may race to write it; each renames its own files into
    place, so a reader never sees half a file."""
    path = s.dump_dir / s.key / f"benchgraph.{ext}"
    with _lock:
        if not path.exists():
            header, _body = s.pool.run({"op": "dump", "format": ext, "path": str(path)},
                                       timeout=DUMP_TIMEOUT)
            if header["status"] != 200:
                abort(500, f"the {ext} dump could not be written: {header.get('detail')}")
    return path
