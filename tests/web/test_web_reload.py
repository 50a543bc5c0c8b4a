"""Reloads without a restart: `benchgraph serve --watch` (and SIGHUP) rebuild edited data and
swap the new snapshot in whole, against live servers on a temporary copy of the test records;
and the pieces that make the swap safe (the snapshot locks, the pinning of a request to its
snapshot, the watcher's filter), in this process."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

import psutil
import pytest
from flask import Flask

from benchgraph.pipeline.steps import build
from benchgraph.serving import snapshots
from benchgraph.serving.watch import DataFilter
from benchgraph.web.site import Site, Snapshot
from web.web_support import ID, RECORDS, LiveServer, start_server

H100 = "accelerators/nvidia-h100-sxm.yaml"
RTX = "accelerators/nvidia-rtx-pro-6000-blackwell.yaml"
SEED = "benchmarks/ev-sglang-dsv41-production-decode-tok-s-per-user.yaml"
# Two facts in two files, changed together by one edit: a snapshot holds both old or both new.
MEMORY = f"""PREFIX bg: <https://w3id.org/benchgraph/ontology#>
SELECT ?h100 ?rtx WHERE {{
  <{ID}accelerators/nvidia-h100-sxm> bg:memoryGB ?h100 .
  <{ID}accelerators/nvidia-rtx-pro-6000-blackwell> bg:memoryGB ?rtx }}"""
RUNS = """PREFIX bg: <https://w3id.org/benchgraph/ontology#>
SELECT (COUNT(?run) AS ?n) WHERE { ?run a bg:BenchmarkRun }"""
WAIT = 90.0  # seconds a test waits for a rebuild to be served (a loaded CI machine)


# --- helpers ---------------------------------------------------------------------------------
@pytest.fixture
def records(tmp_path) -> Path:
    """A copy of the test records a test may edit."""
    target = tmp_path / "records"
    shutil.copytree(RECORDS, target)
    return target


def serve(
    tmp_path: Path, web_cache: Path, records: Path, *args: str, env: dict | None = None
) -> LiveServer:
    return start_server(
        tmp_path, web_cache, "--data", str(records), "--timeout", "20", *args, env=env
    )


def set_memory(records: Path, path: str, value: str) -> None:
    file = records / path
    lines = [
        f"memory_gb: {value}" if line.startswith("memory_gb:") else line
        for line in file.read_text().splitlines()
    ]
    file.write_text("\n".join(lines) + "\n")


def memory(server: LiveServer) -> tuple[float, float]:
    status, _headers, body = server.query(MEMORY)
    assert status == 200, body
    row = json.loads(body)["results"]["bindings"][0]
    return float(row["h100"]["value"]), float(row["rtx"]["value"])


def count(server: LiveServer, query: str) -> int:
    status, _headers, body = server.query(query)
    assert status == 200, body
    return int(json.loads(body)["results"]["bindings"][0]["n"]["value"])


def wait_for(check, what: str, server: LiveServer, timeout: float = WAIT):
    """Poll `check()` until it returns something true; that value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(
        f"{what}: not within {timeout:g} s; /healthz: {server.health()}\n"
        + server.log.read_text(errors="replace")[-3000:]
    )


def rebuilds(server: LiveServer) -> int:
    return server.health()["rebuilds"]


def add_runs(records: Path, n: int, prefix: str) -> list[Path]:
    """n copies of the seed run under new ids, written back to back (as a checkout would)."""
    text = (records / SEED).read_text()
    seed_id = SEED.split("/")[1].removesuffix(".yaml")
    made = []
    for i in range(n):
        path = records / "benchmarks" / f"{prefix}-{i}.yaml"
        path.write_text(text.replace(f"id: {seed_id}", f"id: {prefix}-{i}"))
        made.append(path)
    return made


# --- live servers ----------------------------------------------------------------------------
@pytest.mark.slow
def test_an_edit_is_served_once_settled_and_a_burst_is_one_rebuild(tmp_path, web_cache, records):
    server = serve(tmp_path, web_cache, records, "--watch")
    try:
        assert memory(server) == (80, 96)
        health = server.health()
        assert health["rebuilds"] == 0 and health["last_rebuild"] is None
        assert str(records) + "/**" in health["watching"][0]
        first = health["snapshot"]["key"]

        etag = server.request("GET", "/sparql?" + urlencode({"query": MEMORY}))[1]["etag"]
        set_memory(records, H100, "81")
        wait_for(lambda: memory(server) == (81, 96), "the edit served", server)
        # ETags (and dump names) follow the new snapshot's key
        assert server.request("GET", "/sparql?" + urlencode({"query": MEMORY}))[1]["etag"] != etag
        health = server.health()
        assert health["rebuilds"] == 1
        assert health["last_rebuild"]["result"] == "ok" and health["last_rebuild"]["swapped"]
        assert health["snapshot"]["key"] == health["dataset"] != first
        assert health["snapshot"]["age_s"] < WAIT

        runs = count(server, RUNS)
        add_runs(records, 50, "burst")  # 50 files in a few ms, like a git checkout
        wait_for(lambda: count(server, RUNS) == runs + 50, "the 50 new runs served", server)
        wait_for(lambda: rebuilds(server) >= 2, "the rebuild counted", server)
        health = server.health()
        assert health["rebuilds"] == 2, health["last_rebuild"]
        assert "(+47)" in health["last_rebuild"]["reason"]  # one rebuild named all 50 files
        # A marker edit after the burst: the watcher hands on changes in order, so a late
        # rebuild for the burst would come before the marker's or be part of it.
        set_memory(records, H100, "83")
        wait_for(lambda: memory(server) == (83, 96), "the marker edit served", server)
        wait_for(lambda: rebuilds(server) >= 3, "the marker's rebuild counted", server)
        health = server.health()
        assert health["rebuilds"] == 3, health["last_rebuild"]
        assert health["last_rebuild"]["reason"] == f"changed: {records / H100}"
    finally:
        server.stop()


@pytest.mark.slow
def test_editors_temporary_files_make_no_rebuild(tmp_path, web_cache, records):
    server = serve(tmp_path, web_cache, records, "--watch", "--settle", "0.2")
    try:
        folder = records / "accelerators"
        for name in (
            ".nvidia-h100-sxm.yaml.swp",
            "nvidia-h100-sxm.yaml~",
            "4913",
            ".#nvidia-h100-sxm.yaml",
            "#nvidia-h100-sxm.yaml#",
        ):
            (folder / name).write_text("half a record")
            (folder / name).unlink()
        (records / "LICENSE.txt").write_text("not a record")
        # A marker edit after them: the watcher hands on changes in order, so had it taken
        # any of those files, they would have made a rebuild before the marker's or be in it.
        set_memory(records, H100, "83")
        wait_for(lambda: memory(server) == (83, 96), "the marker edit served", server)
        wait_for(lambda: rebuilds(server) >= 1, "the marker's rebuild counted", server)
        health = server.health()
        assert health["rebuilds"] == 1, health["last_rebuild"]
        assert health["last_rebuild"]["reason"] == f"changed: {records / H100}"
    finally:
        server.stop()


@pytest.mark.slow
def test_a_with_file_is_watched_and_a_broken_one_fails_the_rebuild(tmp_path, web_cache, records):
    extra = tmp_path / "extra.ttl"
    extra.write_text("<https://example.org/a> <https://example.org/p> 1 .\n")
    ask = "ASK { GRAPH <https://example.org/g> { <https://example.org/a> ?p 2 } }"
    server = serve(
        tmp_path, web_cache, records, "--watch", "--with", f"{extra}=https://example.org/g"
    )
    try:
        extra.write_text("<https://example.org/a> <https://example.org/p> 2 .\n")
        wait_for(lambda: json.loads(server.query(ask)[2])["boolean"], "the new graph", server)
        extra.write_text("<https://example.org/a> this is not turtle\n")
        wait_for(lambda: rebuilds(server) == 2, "the second rebuild", server)
        last = server.health()["last_rebuild"]
        assert last["result"] == "failed" and str(extra) in last["error"], last
        assert last["at"] and "changed: " in last["reason"]
        assert json.loads(server.query(ask)[2])["boolean"] is True  # still served
        assert "rebuild failed" in server.log.read_text()
    finally:
        server.stop()


@pytest.mark.slow
def test_sighup_rebuilds_in_the_serving_process_without_a_restart(tmp_path, web_cache, records):
    server = serve(tmp_path, web_cache, records)  # no --watch: only SIGHUP rebuilds
    try:
        before = server_processes(server)
        set_memory(records, H100, "82")
        server.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: memory(server) == (82, 96), "the edit served after SIGHUP", server)
        wait_for(lambda: rebuilds(server) >= 1, "the rebuild counted", server)
        health = server.health()
        assert health["rebuilds"] == 1 and health["last_rebuild"]["reason"] == "SIGHUP"
        # A second SIGHUP as a marker: a rebuild the edit made on its own (a watcher where none
        # was asked for) would come before its rebuild or be part of it ("SIGHUP; changed: ...")
        server.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: rebuilds(server) >= 2, "the second SIGHUP's rebuild", server)
        health = server.health()
        assert health["rebuilds"] == 2 and health["last_rebuild"]["reason"] == "SIGHUP"
        assert server_processes(server) == before  # gunicorn and its workers: not restarted
    finally:
        server.stop()


@pytest.mark.slow
def test_one_builder_rebuilds_from_what_it_is_told_and_another_starts_if_it_dies(
    tmp_path, web_cache, records
):
    server = serve(tmp_path, web_cache, records, "--watch", "--settle", "0.2")

    def edited(value: str, n: int) -> dict:
        set_memory(records, H100, value)
        wait_for(lambda: memory(server) == (float(value), 96), f"the edit to {value}", server)
        wait_for(lambda: rebuilds(server) >= n, f"rebuild {n} counted", server)
        return server.health()["last_rebuild"]

    try:
        first = edited("81", 1)
        assert first["scan"] == "told", first  # it remembered the folder as the server began
        second = edited("82", 2)
        assert second["builder"] == first["builder"] and second["scan"] == "told", second
        psutil.Process(second["builder"]).kill()  # as the kernel's OOM killer would
        third = edited("83", 3)
        assert third["builder"] != second["builder"] and third["scan"] == "full", third
        fourth = edited("84", 4)
        assert fourth["builder"] == third["builder"] and fourth["scan"] == "told", fourth
        server.proc.send_signal(signal.SIGHUP)  # a change the watcher may have missed
        wait_for(lambda: rebuilds(server) >= 5, "the SIGHUP's rebuild", server)
        assert server.health()["last_rebuild"]["scan"] == "full"
    finally:
        server.stop()


@pytest.mark.slow
def test_a_builder_whose_code_changed_hands_over_to_a_new_one(tmp_path, web_cache, records):
    import benchgraph

    shapes = Path(benchgraph.__file__).parent / "resources" / "shapes" / "benchgraph-shapes.ttl"
    server = serve(tmp_path, web_cache, records, "--watch", "--settle", "0.2")
    was = shapes.stat()
    try:
        set_memory(records, H100, "81")
        wait_for(lambda: rebuilds(server) >= 1, "the first rebuild", server)
        first = server.health()["last_rebuild"]
        # the same bytes, a new time: as an edit and its undoing would leave it
        os.utime(shapes, ns=(was.st_atime_ns, was.st_mtime_ns + 1_000_000_000))
        set_memory(records, H100, "82")
        wait_for(lambda: memory(server) == (82, 96), "the edit served", server)
        wait_for(lambda: rebuilds(server) >= 2, "the second rebuild", server)
        second = server.health()["last_rebuild"]
        assert second["result"] == "ok" and second["builder"] != first["builder"], second
        assert not psutil.pid_exists(first["builder"]) or (
            psutil.Process(first["builder"]).status() == psutil.STATUS_ZOMBIE
        )
    finally:
        os.utime(shapes, ns=(was.st_atime_ns, was.st_mtime_ns))
        server.stop()


@pytest.mark.slow
def test_a_builder_past_its_memory_limit_ends_and_the_next_rebuild_has_a_new_one(
    tmp_path, web_cache, records
):
    server = serve(
        tmp_path, web_cache, records, "--watch", "--settle", "0.2",
        env={"BENCHGRAPH_BUILDER_MAX_MB": "1"},  # every builder is past it
    )  # fmt: skip
    try:
        builders = []
        for n, value in enumerate(("81", "82"), 1):
            set_memory(records, H100, value)
            wait_for(lambda v=value: memory(server) == (float(v), 96), f"{value} served", server)
            wait_for(lambda n=n: rebuilds(server) >= n, f"rebuild {n} counted", server)
            last = server.health()["last_rebuild"]
            assert last["result"] == "ok" and "ends" not in last, last
            builders.append(last["builder"])
        assert builders[0] != builders[1]
    finally:
        server.stop()


def server_processes(server: LiveServer) -> list[int]:
    """The gunicorn master and its server processes (not their query workers)."""
    found = []
    for p in psutil.Process(server.proc.pid).children(recursive=True):
        try:
            command = " ".join(p.cmdline())
        except psutil.Error:  # ended meanwhile: an old snapshot's query worker
            continue
        if "benchgraph.web.server" in command or "gunicorn" in command:
            found.append(p.pid)
    return sorted(found)


@pytest.mark.slow
def test_a_swap_refuses_nothing_and_each_answer_is_wholly_old_or_new(tmp_path, web_cache, records):
    server = serve(tmp_path, web_cache, records, "--watch", "--settle", "0.2", "--workers", "2")
    stop = threading.Event()
    seen: list[tuple[float, float]] = []
    errors: list[str] = []

    def client() -> None:
        body = urlencode({"query": MEMORY}).encode()
        deadline = time.monotonic() + 4 * WAIT  # bounded, whatever happens
        while not stop.is_set() and time.monotonic() < deadline:
            conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
            try:  # a new connection each time: a refused one would show here
                conn.request(
                    "POST",
                    "/sparql",
                    body,
                    {
                        "Content-Type": "application/x-www-form-urlencoded",
                        "Accept": "application/sparql-results+json",
                    },
                )
                response = conn.getresponse()
                data = response.read()
                if response.status != 200:
                    errors.append(f"{response.status}: {data[:300]!r}")
                    continue
                row = json.loads(data)["results"]["bindings"][0]
                seen.append((float(row["h100"]["value"]), float(row["rtx"]["value"])))
            except OSError as exc:
                errors.append(repr(exc))
            finally:
                conn.close()

    threads = [threading.Thread(target=client) for _ in range(3)]
    try:
        for t in threads:
            t.start()
        for step in range(1, 4):  # three swaps, each editing both files at once
            set_memory(records, H100, str(80 + step))
            set_memory(records, RTX, str(96 + step))
            wait_for(
                lambda step=step: seen and seen[-1] == (80 + step, 96 + step),
                f"swap {step} served",
                server,
            )
            time.sleep(0.5)
    finally:
        stop.set()
        for t in threads:
            t.join()
        server.stop()
    assert errors == []
    assert all(rtx - h100 == 16 for h100, rtx in seen), sorted(set(seen))
    assert {(80 + s, 96 + s) for s in range(4)} <= set(seen)


@pytest.mark.slow
def test_a_violation_keeps_the_served_snapshot_whole_until_mended(tmp_path, web_cache, records):
    server = serve(tmp_path, web_cache, records, "--watch")
    try:
        runs = count(server, RUNS)
        key = server.health()["snapshot"]["key"]
        set_memory(records, H100, "-5")  # a violation ...
        set_memory(records, RTX, "97")  # ... and a valid edit in the same change
        wait_for(lambda: rebuilds(server) == 1, "the rebuild", server)
        health = server.health()
        last = health["last_rebuild"]
        assert last["result"] == "refused"
        assert [v for v in last["violations"] if f"{H100}:4: memory_gb: -5" in v], last
        assert last["would_leave_out"]["invalid"][0]["file"].endswith(H100)
        # said at the top: degraded (still 200, it answers), and on every page
        assert health["status"] == "degraded" and health["ok"] is False
        assert health["degraded"]["files"][0].endswith(H100)
        status, _headers, page = server.request("GET", "/", headers={"Accept": "text/html"})
        assert status == 200 and b'id="refused-banner"' in page and H100.encode() in page
        # The old snapshot, whole: the old values, every record it served still there.
        assert health["snapshot"]["key"] == key
        assert memory(server) == (80, 96) and count(server, RUNS) == runs
        assert (
            "rebuild refused" in server.log.read_text()
            and "memory_gb: -5" in server.log.read_text()
        )

        set_memory(records, H100, "83")  # mended
        wait_for(lambda: memory(server) == (83, 97), "the mended data served", server)
        health = server.health()
        assert health["last_rebuild"]["result"] == "ok" and health["rebuilds"] == 2
        assert health["status"] == "ok" and "degraded" not in health
        assert b"refused-banner" not in server.request("GET", "/")[2]
        assert count(server, RUNS) == runs
    finally:
        server.stop()


@pytest.mark.slow
def test_a_first_start_serves_what_conforms_and_names_what_is_left_out(
    tmp_path, web_cache, records
):
    set_memory(records, RTX, "-1")  # every run of the test records links to this one
    linking = [f.name for f in add_runs(records, 5, "on-rtx")] + [Path(SEED).name]
    server = serve(tmp_path, web_cache, records, "--watch")
    try:
        left = server.health()["left_out"]
        invalid = {"/".join(i["file"].split("/")[-2:]) for i in left["invalid"]}
        assert invalid == {RTX, "benchmarks/invalid-confidence.yaml"}
        assert sorted(Path(i["file"]).name for i in left["linking"]) == sorted(linking)
        for item in left["linking"]:
            assert item["because_of"].endswith(RTX)
            assert item["why"].startswith("links to ") and RTX in item["why"]
        assert left["count"] == 8
        assert left["text"].startswith("left out: 2 records invalid (")
        assert left["text"].endswith(", 6 records linking to them")
        assert count(server, RUNS) == 0
        status, _headers, body = server.query(f"ASK {{ <{ID}accelerators/nvidia-h100-sxm> ?p ?o }}")
        assert json.loads(body)["boolean"] is True  # the rest is served

        set_memory(records, RTX, "96")  # mending it brings them all back
        wait_for(lambda: count(server, RUNS) == 6, "the six runs served", server)
        assert server.health()["left_out"]["count"] == 1
    finally:
        server.stop()


# --- in this process -------------------------------------------------------------------------
def test_the_left_out_summary_traces_each_record_to_the_invalid_one(tmp_path, records, monkeypatch):
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "cache"))
    pcie = records / "interconnects" / "pcie.yaml"
    pcie.write_text(pcie.read_text().replace("role: host-link", "role: 12"))
    result = build(records, skip_invalid=True)
    summary = snapshots.left_out_summary(result.left_out)
    by_file = {
        i["file"].rsplit("/", 2)[-2] + "/" + i["file"].rsplit("/", 1)[-1]: i
        for i in summary["linking"]
    }
    # the accelerator links to pcie; the run links to the accelerator (or to pcie itself)
    assert by_file[RTX]["because_of"].endswith("interconnects/pcie.yaml")
    assert by_file[SEED]["because_of"].endswith("interconnects/pcie.yaml")
    assert any(i["file"].endswith("interconnects/pcie.yaml") for i in summary["invalid"])


def test_a_snapshot_held_by_a_server_process_is_not_swept(tmp_path):
    kept, old, held = (tmp_path / f"{snapshots.PREFIX}{n}" for n in ("kept", "old", "held"))
    for folder in (kept, old, held):
        (folder / "store").mkdir(parents=True)
        snapshots.mark(folder)
    lock = snapshots.hold(held)
    try:
        assert snapshots.sweep(tmp_path, keep=kept.name) == [old.name]
        assert kept.is_dir() and held.is_dir() and not old.exists()
    finally:
        lock.close()
    assert snapshots.sweep(tmp_path, keep=kept.name) == [held.name]
    with pytest.raises(snapshots.SnapshotGone):
        snapshots.hold(held)


class FakePool:
    """Stands in for a QueryPool: answers with its name, or waits for `release` first."""

    def __init__(self, name: str, release: threading.Event | None = None) -> None:
        self.name, self.release, self.closed = name, release, False
        self.running = threading.Event()

    def run(self, request: dict, timeout: float | None = None) -> tuple[dict, bytes]:
        self.running.set()
        if self.release is not None:
            assert self.release.wait(10)
        assert not self.closed, "a query ran on a closed pool"
        return {"status": 200}, self.name.encode()

    def close(self) -> None:
        self.closed = True


class SaysWhenWaited(threading.Condition):
    """A condition that tells when a thread has begun to wait on it."""

    def __init__(self) -> None:
        super().__init__()
        self.waited = threading.Event()

    def wait(self, timeout: float | None = None) -> bool:
        self.waited.set()
        return super().wait(timeout)


def test_a_request_in_flight_finishes_on_the_snapshot_it_began_on(tmp_path):
    release = threading.Event()
    idle = SaysWhenWaited()
    old = Snapshot(tmp_path, "a" * 32, FakePool("old", release), tmp_path, id="old", _idle=idle)
    new = Snapshot(tmp_path, "b" * 32, FakePool("new"), tmp_path, id="new")
    site = Site(old, {})
    app = Flask(__name__)
    app.before_request(site.pin)
    app.teardown_request(site.unpin)

    @app.route("/q")
    def q():
        key = site.key
        time.sleep(0.01)
        return f"{key[:1]}:{site.pool.run({})[1].decode()}:{site.key[:1]}"

    answers = []
    slow = threading.Thread(target=lambda: answers.append(app.test_client().get("/q").text))
    slow.start()
    assert old.pool.running.wait(10)
    site.swap(new, drain=30)
    assert app.test_client().get("/q").text == "b:new:b"  # new requests: the new snapshot
    assert idle.waited.wait(10)  # the old snapshot's retirement waits for its request
    assert not old.pool.closed  # still in use by the slow request
    release.set()
    slow.join(10)
    assert answers == ["a:old:a"]  # key and answer from one snapshot, start to end
    deadline = time.monotonic() + 10
    while not old.pool.closed and time.monotonic() < deadline:
        time.sleep(0.01)
    assert old.pool.closed and not new.pool.closed


def test_the_watcher_ignores_temporary_files_and_sees_folders(tmp_path):
    data = tmp_path / "data"
    (data / "accelerators").mkdir(parents=True)
    wanted = DataFilter(data)
    for name in (
        ".x.yaml.swp",
        ".x.yaml.swx",
        "x.yaml~",
        "4913",
        ".#x.yaml",
        "#x.yaml#",
        "x.yaml___jb_tmp___",
        ".goutputstream-ABC123",
        "x.yaml.tmp",
    ):
        assert not wanted(str(data / "accelerators" / name)), name
    assert not wanted(str(data / "accelerators" / "sedXk3b9Q"))  # gone, never a folder
    assert not wanted(str(data / ".git" / "index.lock"))
    assert not wanted(str(data / ".benchgraph" / "cache.sqlite"))
    assert wanted(str(data / "accelerators" / "x.yaml"))
    assert wanted(str(data / "accelerators"))
    shutil.rmtree(data / "accelerators")
    assert wanted(str(data / "accelerators"))  # a folder of records, deleted
