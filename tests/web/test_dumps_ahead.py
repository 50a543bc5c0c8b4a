"""Dumps written ahead as a snapshot opens (web/dumps.write_ahead): a snapshot swapped out
while they are written (its query workers stopped under them) is no fault and logs no
traceback; a worker that dies on a snapshot still served is one, and is logged as one."""

from __future__ import annotations

import logging

import pytest

from benchgraph.web import dumps
from benchgraph.web.poolerrors import WorkerDied
from benchgraph.web.site import Snapshot


class _Pool:
    """A query pool whose worker dies on the first job, as a swap's stop makes it do."""

    def __init__(self, on_run=lambda: None) -> None:
        self.asked = 0
        self.on_run = on_run

    def run(self, request: dict, timeout: float | None = None):
        self.asked += 1
        self.on_run()
        raise WorkerDied("the query worker ended")

    def close(self) -> None:
        pass


def _errors(run) -> list[logging.LogRecord]:
    """The ERROR records of dumps' own logger while `run` runs (read from the logger itself:
    what else in the process set logging up is not known)."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = records.append
    was = dumps.log.disabled
    dumps.log.disabled = False
    dumps.log.addHandler(handler)
    try:
        run()
    finally:
        dumps.log.removeHandler(handler)
        dumps.log.disabled = was
    return records


@pytest.mark.parametrize("when", ["before", "while"])
def test_a_snapshot_swapped_out_while_its_dumps_are_written_logs_no_error(tmp_path, when):
    snapshot = Snapshot(tmp_path, "key", _Pool(), tmp_path / "dumps", id="s1")
    if when == "before":
        snapshot.close()
    else:
        snapshot.pool.on_run = snapshot.close  # swapped out as the first dump is written
    records = _errors(lambda: dumps.write_ahead(snapshot))
    assert [r for r in records if r.levelno >= logging.ERROR] == []
    assert snapshot.pool.asked == (0 if when == "before" else 1)  # nothing more asked of it


def test_a_worker_dying_on_a_snapshot_still_served_is_logged_with_its_cause(tmp_path):
    snapshot = Snapshot(tmp_path, "key", _Pool(), tmp_path / "dumps", id="s1")
    records = _errors(lambda: dumps.write_ahead(snapshot))
    (error,) = [r for r in records if r.levelno >= logging.ERROR]
    assert "dump not written ahead" in error.getMessage()
    assert error.exc_info and error.exc_info[0] is WorkerDied
