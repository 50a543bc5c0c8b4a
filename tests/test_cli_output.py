"""What `benchgraph query` writes for a shell: a pipe closed early ends it quietly, CSV ends
with one line end, and `make run` takes the port it is given."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from paths import ROOT

# 90,000 rows: far more than a pipe holds, so the writer meets the closed pipe
MANY_ROWS = (
    "SELECT * { VALUES ?a { "
    + " ".join(map(str, range(300)))
    + " } VALUES ?b { "
    + " ".join(map(str, range(300)))
    + " } }"
)


def _command(data, *args: str) -> list[str]:
    return [sys.executable, "-m", "benchgraph", "query", "--data", str(data), *args]


def test_a_reader_that_stops_early_ends_the_query_quietly(copy_data):
    data = copy_data(ROOT / "shapes" / "examples" / "base")
    for fmt in ("table", "csv"):
        proc = subprocess.Popen(
            _command(data, "--format", fmt, MANY_ROWS),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        first = proc.stdout.readline()  # as `| head -1` does, then it goes away
        proc.stdout.close()
        stderr = proc.stderr.read().decode()
        assert proc.wait(timeout=300) == 0, stderr
        assert first.startswith(b"a")
        assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr


def test_csv_output_ends_with_one_line_end(copy_data):
    data = copy_data(ROOT / "shapes" / "examples" / "base")
    done = subprocess.run(
        _command(data, "--format", "csv", "SELECT ?x { VALUES ?x { 1 2 } }"),
        capture_output=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"x\r\n1\r\n2\r\n"


def test_make_run_serves_on_the_port_it_is_given():
    if not shutil.which("make"):
        pytest.skip("make is not installed (the README's set-up needs it)")
    done = subprocess.run(
        ["make", "-n", "run", "PORT=5123"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ,
    )
    assert done.returncode == 0, done.stderr
    serve = [line for line in done.stdout.splitlines() if " serve " in line]
    assert serve and serve[-1].split()[-2:] == ["--port", "5123"], done.stdout


def test_problems_are_listed_when_the_records_change_and_counted_otherwise(copy_data):
    data = copy_data(ROOT / "shapes" / "examples" / "base")
    seed = data / "benchmarks" / "ev-sglang-dsv41-production-decode-tok-s-per-user.yaml"
    seed.write_text(
        seed.read_text(encoding="utf-8").replace("confidence: ", "confidence: 1"), encoding="utf-8"
    )  # 10.x: above 1.0, a violation; the run is left out
    ask = ("ASK {}",)

    def stderr() -> list[str]:
        done = subprocess.run(_command(data, *ask), capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stderr.strip().splitlines()

    first = stderr()
    assert any("confidence" in line and seed.name in line for line in first), first
    again = stderr()
    assert len(again) == 1, again
    assert again[0].startswith("benchgraph: records unchanged since the last build: ")
    assert "1 violation(s)" in again[0] and "record(s) left out" in again[0]
    seed.write_text(seed.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert any("confidence" in line for line in stderr())  # changed: listed again


def test_query_help_lists_every_saved_query_with_its_title():
    from benchgraph.query.saved import saved_queries

    done = subprocess.run(
        [sys.executable, "-m", "benchgraph", "query", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    listed = done.stdout.split("Saved queries (--example NAME):\n", 1)[1].splitlines()
    saved = saved_queries()
    assert [line.split()[0] for line in listed] == list(saved)
    for line, query in zip(listed, saved.values()):
        assert line.split(None, 1)[1].strip() == query.title


def test_a_table_cuts_long_literals_and_keeps_iris_whole(copy_data):
    data = copy_data(ROOT / "shapes" / "examples" / "base")
    long_text = "word " * 1000
    query = (
        f"SELECT ?iri ?text WHERE {{ BIND(<http://example.org/{'x' * 120}> AS ?iri) "
        f'BIND("{long_text}\\nnext" AS ?text) }}'
    )
    done = subprocess.run(_command(data, query), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    row = done.stdout.splitlines()[2]
    assert f"<http://example.org/{'x' * 120}> " in row  # whole, as a query takes it back
    assert row.endswith("\u2026") and len(row) < 300  # 5,000 characters cut
    whole = subprocess.run(
        _command(data, "--format", "csv", query), capture_output=True, text=True, timeout=300
    )
    assert long_text in whole.stdout  # csv keeps it


def test_a_query_the_engine_cannot_answer_is_a_message_not_a_traceback(copy_data):
    """A SERVICE the engine cannot call (port 9 is refused before any connection) fails the
    command with exit 2 and the engine's reason: it printed a traceback and exited 1."""
    data = copy_data(ROOT / "shapes" / "examples" / "base")
    query = "SELECT * WHERE { SERVICE <http://127.0.0.1:9/x> { ?s ?p ?o } }"
    done = subprocess.run(_command(data, query), capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert "the query could not be answered: " in done.stderr
    assert "Traceback" not in done.stderr and "unsendable" not in done.stderr


def test_make_run_prints_the_headline_count_and_its_first_rows():
    """`make run` answers the headline question as a count and the first rows, not all."""
    if not shutil.which("make"):
        pytest.skip("make is not installed (the README's set-up needs it)")
    done = subprocess.run(
        ["make", "-n", "run"], cwd=ROOT, capture_output=True, text=True, timeout=60, env=os.environ
    )
    query = [line for line in done.stdout.splitlines() if " query " in line]
    assert query and "--example no-gpu-fabric" in query[0], done.stdout
    assert "--limit 10" in query[0], query[0]


def test_limit_shows_the_first_rows_and_how_many_there_are(copy_data):
    data = copy_data(ROOT / "shapes" / "examples" / "base")
    done = subprocess.run(
        _command(data, "--limit", "2", "SELECT ?x { VALUES ?x { 1 2 3 } }"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[2:] == ["1", "2", "(3 rows; the first 2 shown)"], lines


def test_iris_print_as_a_query_takes_them_back(copy_data):
    """A record's IRI prints as its kind's prefixed name, one whose local name would need an
    escape (a measurement's #measurement-1) or an outside IRI whole in <...>; each line of
    the first answer, pasted into VALUES, runs and finds the same IRIs."""
    data = copy_data(ROOT / "shapes" / "examples" / "base")
    first = subprocess.run(
        _command(
            data,
            "SELECT ?x WHERE { { ?x bg:recordId ?id } UNION "
            "{ ?r bg:measurement ?x } UNION "
            "{ VALUES ?x { <https://example.org/a> } } }",
        ),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert first.returncode == 0, first.stderr
    printed = first.stdout.splitlines()[2:-1]
    assert "run:ev-sglang-dsv41-production-decode-tok-s-per-user" in printed
    assert "<https://example.org/a>" in printed
    assert any(
        p.startswith("<https://w3id.org/benchgraph/id/benchmarks/") and "#measurement-" in p
        for p in printed
    ), printed
    assert not any(p.startswith("bgid:") for p in printed)
    again = subprocess.run(
        _command(data, "SELECT ?x WHERE { VALUES ?x { " + " ".join(printed) + " } }"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert again.returncode == 0, again.stderr
    assert sorted(again.stdout.splitlines()[2:-1]) == sorted(printed)


def test_a_saved_query_takes_its_parameters(copy_data):
    data = copy_data(ROOT / "shapes" / "examples" / "base")
    seed = "run:ev-sglang-dsv41-production-decode-tok-s-per-user"
    done = subprocess.run(
        _command(
            data, "--format", "csv", "--example", "why-fabric-status", "--param", f"run={seed}"
        ),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()[1:]
    assert rows and all(
        r.startswith("https://w3id.org/benchgraph/id/benchmarks/ev-sglang") for r in rows
    )
    for bad, said in (
        (["--param", "run=x> } ?s ?p ?o {"], "run: 'x> } ?s ?p ?o {' is not a run"),
        (["--param", "run=run:no-such-run"], "run: 'run:no-such-run' names no record"),
        (["--param", "colour=red"], "colour: 'red' is not a parameter"),
        (["--param", "run"], "give NAME=VALUE"),
    ):
        done = subprocess.run(
            _command(data, "--example", "why-fabric-status", *bad),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 2, (bad, done.stderr)
        assert said in done.stderr, done.stderr


def test_an_undeclared_prefix_is_named(copy_data):
    data = copy_data(ROOT / "shapes" / "examples" / "base")
    done = subprocess.run(
        _command(
            data,
            "SELECT ?run WHERE {\n  ?run a bg:BenchmarkRun ;\n       mlperf:scenario ?scenario }",
        ),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2
    assert (
        "line 3, column 23: the prefix mlperf: is not declared: add a PREFIX line for it"
        in done.stderr
    ), done.stderr
