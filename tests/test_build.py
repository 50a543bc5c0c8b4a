"""The foundation: records become a queryable dataset, deterministically, with clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from rdflib import Dataset, Graph
from rdflib.compare import graph_diff, to_isomorphic

from benchgraph.cli.main import main
from benchgraph.pipeline.steps import build
from benchgraph.query.render import run
from paths import DATA, TEST_DATA

SEED = "https://w3id.org/benchgraph/id/benchmarks/ev-sglang-dsv41-production-decode-tok-s-per-user"


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    import os

    os.environ["BENCHGRAPH_CACHE"] = str(tmp_path_factory.mktemp("shipped-cache"))
    return build(DATA, skip_invalid=False).open()


def select(store, query: str) -> list[tuple]:
    return [
        tuple(term.value if term is not None else None for term in row) for row in run(store, query)
    ]


def one(store, query: str):
    rows = select(store, query)
    assert len(rows) == 1, rows
    return rows[0]


# --- every fact group of the seed record is structured data ---------------------------
def test_seed_headline_status_and_confidence(shipped):
    row = one(
        shipped,
        f"""SELECT ?value ?unit ?status ?confidence ?count ?updated WHERE {{
        <{SEED}> bg:value ?value ; qudt:hasUnit ?unit ; bg:status ?status ;
                 bg:confidence ?confidence ; bg:acceleratorCount ?count ;
                 dct:modified ?updated }}""",
    )
    assert row == (
        "93.9",
        "https://w3id.org/benchgraph/unit/TOK-PER-SEC",
        "https://w3id.org/benchgraph/ontology#Draft",
        "0.75",
        "8",
        "2026-10-04",
    )


def test_seed_prompt_classes(shipped):
    rows = select(
        shipped,
        f"""SELECT ?class ?value WHERE {{
        <{SEED}> bg:measurement ?m . ?m bg:value ?value ;
           bg:metric <https://w3id.org/benchgraph/id/metrics/tok-s-per-user> ;
           bg:condition [ bg:conditionName "prompt_class" ; bg:conditionValue ?class ] }}
        ORDER BY ?class""",
    )
    assert rows == [("prose", "93.9"), ("structured", "134.1")]


def test_seed_ttft_range_utilisation_and_power(shipped):
    assert one(
        shipped,
        f"""SELECT ?min ?max ?unit WHERE {{ <{SEED}> bg:measurement ?m .
        ?m bg:metric <https://w3id.org/benchgraph/id/metrics/ttft> ;
           bg:minValue ?min ; bg:maxValue ?max ;
           qudt:hasUnit ?unit }}""",
    ) == ("143", "169", "http://qudt.org/vocab/unit/MilliSEC")
    assert one(
        shipped,
        f"""SELECT ?v WHERE {{ <{SEED}> bg:measurement ?m .
        ?m bg:metric <https://w3id.org/benchgraph/id/metrics/gpu-utilization> ;
           bg:value ?v }}""",
    ) == ("87",)
    assert one(
        shipped,
        f"""SELECT ?v ?of WHERE {{ <{SEED}> bg:measurement ?m .
        ?m bg:metric <https://w3id.org/benchgraph/id/metrics/power-draw> ;
           bg:value ?v ; bg:outOf ?of }}""",
    ) == ("220", "600")


def test_seed_parallelism_concurrency_and_party(shipped):
    assert one(
        shipped,
        f"""SELECT ?tp ?ep ?c ?by ?repro WHERE {{ <{SEED}>
        bg:tensorParallelSize ?tp ; bg:expertParallelSize ?ep ; bg:concurrency ?c ;
        bg:measuredBy ?by ; bg:reproducible ?repro }}""",
    ) == ("8", "8", "1", "https://w3id.org/benchgraph/ontology#ThirdParty", "true")


def test_seed_every_engine_setting(shipped):
    rows = dict(
        select(
            shipped,
            f"""SELECT ?name ?value WHERE {{ <{SEED}> bg:setting ?s .
        ?s bg:settingName ?name ; bg:settingValue ?value }}""",
        )
    )
    assert rows == {
        "kv_cache_dtype": "fp8_e4m3",
        "mem_fraction_static": "0.72",
        "max_running_requests": "16",
        "attention_backend": "dsv4",
        "moe_runner_backend": "flashinfer_mxfp4",
        "speculative_algorithm": "DSPARK",
        "dspark_block_size": "6",
        "cuda_graph_decode": "true",
    }
    fmt = one(
        shipped,
        f"""SELECT ?f WHERE {{ <{SEED}> bg:setting ?s .
        ?s bg:settingName "kv_cache_dtype" ; bg:numberFormat ?f }}""",
    )
    assert fmt == ("https://w3id.org/benchgraph/ontology#format-fp8_e4m3",)


def test_seed_speculative_decoding_settings(shipped):
    rows = select(
        shipped,
        f"""SELECT ?name ?value WHERE {{ <{SEED}> bg:setting ?s .
        ?s a bg:SpeculativeDecodingSetting ; bg:settingName ?name ; bg:settingValue ?value }}
        ORDER BY ?name""",
    )
    assert rows == [("dspark_block_size", "6"), ("speculative_algorithm", "DSPARK")]


def test_seed_omissions_history_and_source(shipped):
    omitted = {
        r[0] for r in select(shipped, f"SELECT ?o WHERE {{ <{SEED}> bg:omittedBySource ?o }}")
    }
    assert {"SGLang version/commit", "driver version", "SSH-tunnel bandwidth"} <= omitted
    date, note = one(
        shipped,
        f"""SELECT ?d ?n WHERE {{ <{SEED}> bg:revision ?r .
        ?r dct:date ?d ; rdfs:comment ?n }}""",
    )
    assert date == "2026-10-04" and "interconnect_ids was empty" in note
    (comment,) = one(shipped, f"SELECT ?c WHERE {{ <{SEED}> dct:source/rdfs:comment ?c }}")
    assert "working day of production use" in comment


def test_seed_links_resolve_to_records(shipped):
    rows = select(
        shipped,
        f"""SELECT ?model ?engine ?acc ?fabric WHERE {{ <{SEED}>
        bg:model/rdfs:label ?model ; bg:engine/rdfs:label ?engine ;
        bg:accelerator/rdfs:label ?acc ; bg:interconnect/bg:role ?fabric }}""",
    )
    assert rows == [
        (
            "DeepSeek-V4.1-Flash",
            "SGLang",
            "NVIDIA RTX PRO 6000 Blackwell Max-Q 96 GB",
            "https://w3id.org/benchgraph/ontology#HostLinkRole",
        )
    ]


def test_same_as_is_never_owl_same_as(tmp_path, copy_data):
    data = copy_data(TEST_DATA / "fabric")
    with open(data / "accelerators" / "sxm-part.yaml", "a") as f:
        f.write("same_as: ['http://www.wikidata.org/entity/Q119398498']\n")
    store = build(data).open()
    assert select(
        store, "SELECT ?p WHERE { ?s ?p <http://www.wikidata.org/entity/Q119398498> } ORDER BY ?p"
    ) == [("http://www.w3.org/2004/02/skos/core#exactMatch",), ("https://schema.org/sameAs",)]


def test_links_live_in_the_link_graph_not_the_record_graph(tmp_path, copy_data):
    """A linkset is taken whole from one graph (void:Linkset), so a record's links to outside
    entities are there, and its own graph keeps the rest of what its file states."""
    data = copy_data(TEST_DATA / "fabric")
    with open(data / "accelerators" / "sxm-part.yaml", "a") as f:
        f.write("same_as: ['http://www.wikidata.org/entity/Q119398498']\n")
    store = build(data).open()
    rows = select(
        store,
        "SELECT ?g ?p WHERE { GRAPH ?g { ?s ?p "
        "<http://www.wikidata.org/entity/Q119398498> } } ORDER BY ?g ?p",
    )
    assert rows == [
        (
            "https://w3id.org/benchgraph/graph/links",
            "http://www.w3.org/2004/02/skos/core#exactMatch",
        ),
        ("https://w3id.org/benchgraph/graph/links", "https://schema.org/sameAs"),
    ]
    assert (
        select(
            store,
            "SELECT ?s ?p ?o WHERE { GRAPH "
            "<https://w3id.org/benchgraph/graph/links> { ?s ?p ?o } "
            "FILTER(?s != <https://w3id.org/benchgraph/id/accelerators/sxm-part>) }",
        )
        == []
    )


def test_a_licence_that_is_not_an_iri_stays_its_text(copy_data):
    """The store loads benchgraph's N-Quads without checking IRIs: a licence that only
    starts like an address must not become a broken IRI (nor stop the build)."""
    data = copy_data(TEST_DATA / "fabric")
    run_file = sorted((data / "benchmarks").glob("*.yaml"))[0]
    with open(run_file, "a") as f:
        f.write(
            "source:\n- publisher: X\n  licence: 'http://no such licence/x'\n"
            "- publisher: Y\n  licence: https://www.apache.org/licenses/LICENSE-2.0\n"
        )
    store = build(data).open()
    run = f"https://w3id.org/benchgraph/id/benchmarks/{run_file.stem}"
    rows = store.query(
        f"SELECT ?l WHERE {{ <{run}> <http://purl.org/dc/terms/source> ?s ."
        " ?s <http://purl.org/dc/terms/license> ?l }",
        use_default_graph_as_union=True,
    )
    assert sorted((type(r["l"]).__name__, r["l"].value) for r in rows) == [
        ("Literal", "http://no such licence/x"),
        ("NamedNode", "https://www.apache.org/licenses/LICENSE-2.0"),
    ]


# --- provenance and determinism --------------------------------------------------------
def test_each_record_is_its_own_named_graph_with_its_file(shipped):
    rows = select(
        shipped,
        f"""SELECT ?g ?file WHERE {{ GRAPH ?g {{ <{SEED}> a bg:BenchmarkRun }}
        ?g bg:sourceFile ?file }}""",
    )
    assert rows == [
        (
            "https://w3id.org/benchgraph/graph/benchmarks/"
            "ev-sglang-dsv41-production-decode-tok-s-per-user",
            "data/benchmarks/ev-sglang-dsv41-production-decode-tok-s-per-user.yaml",
        )
    ]


def test_graph_names_the_commit_that_last_changed_the_file(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    data = repo / "data"
    import shutil

    shutil.copytree(TEST_DATA / "fabric", data)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(git + ["-C", str(repo), "add", "."], check=True)
    subprocess.run(git + ["-C", str(repo), "commit", "-qm", "first"], check=True)
    head = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    (data / "models" / "model.yaml").write_text("id: model\nname: A model, edited\n")
    store = build(data).open()
    commits = dict(
        select(
            store,
            "SELECT ?file ?c WHERE { ?g bg:sourceFile ?file . OPTIONAL { ?g bg:gitCommit ?c } }",
        )
    )
    assert commits["data/benchmarks/pcie-run.yaml"] == head
    assert commits["data/models/model.yaml"] is None  # changed since: no commit claims it


def two_builds(tmp_path, monkeypatch, data: Path, suffix: str) -> list[bytes]:
    outs = []
    for i in range(2):
        monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / f"cache{i}"))
        out = tmp_path / f"dump{i}{suffix}"
        assert main(["build", "--data", str(data), "--out", str(out)]) == 0
        outs.append(out.read_bytes())
    return outs


@pytest.mark.parametrize("suffix", [".trig", ".nq", ".ttl", ".nt", ".jsonld"])
def test_dumps_are_byte_identical_across_builds(tmp_path, monkeypatch, suffix):
    first, second = two_builds(tmp_path, monkeypatch, TEST_DATA / "fabric", suffix)
    assert first == second and len(first) > 1000


@pytest.mark.slow
def test_shipped_dump_is_byte_identical_across_builds(tmp_path, monkeypatch):
    first, second = two_builds(tmp_path, monkeypatch, DATA, ".trig")
    assert first == second and SEED.encode() in first


def test_dump_parses_and_round_trips(tmp_path):
    out = tmp_path / "d.trig"
    data = TEST_DATA / "fabric"
    assert main(["build", "--data", str(data), "--out", str(out)]) == 0
    ds = Dataset()
    ds.parse(out, format="trig")
    nq = tmp_path / "d.nq"
    assert main(["export", "--data", str(data), "--format", "nq", "--out", str(nq)]) == 0
    ds2 = Dataset()
    ds2.parse(nq, format="nquads")
    union1, union2 = Graph(), Graph()
    for t in ds.quads():
        union1.add(t[:3])
    for t in ds2.quads():
        union2.add(t[:3])
    _, only1, only2 = graph_diff(to_isomorphic(union1), to_isomorphic(union2))
    assert not list(only1) and not list(only2)


# --- the headline question -----------------------------------------------------------
def test_headline_query_answers_exactly_the_pcie_only_run(capsys):
    assert (
        main(
            [
                "query",
                "--data",
                str(TEST_DATA / "fabric"),
                "--format",
                "json",
                "--example",
                "no-gpu-fabric",
            ]
        )
        == 0
    )
    rows = json.loads(capsys.readouterr().out)["results"]["bindings"]
    assert [r["run"]["value"].rsplit("/", 1)[1] for r in rows] == ["pcie-run"]


def test_headline_on_shipped_data_includes_the_seed(capsys):
    assert (
        main(["query", "--format", "json", "--data", str(DATA), "--example", "no-gpu-fabric"]) == 0
    )
    runs = {r["run"]["value"] for r in json.loads(capsys.readouterr().out)["results"]["bindings"]}
    assert SEED in runs


def test_query_from_file_and_formats(tmp_path, capsys):
    q = tmp_path / "q.rq"
    q.write_text("SELECT ?id WHERE { ?r a bg:BenchmarkRun ; bg:recordId ?id } ORDER BY ?id")
    assert main(["query", "--data", str(TEST_DATA / "fabric"), "--format", "csv", f"@{q}"]) == 0
    assert capsys.readouterr().out.split() == [
        "id",
        "cpu-run",
        "nvlink-run",
        "pcie-run",
        "unpublished-ib-run",
        "unpublished-run",
    ]


# --- errors name file, line and field; every problem at once -------------------------
def write(data: Path, rel: str, text: str) -> None:
    (data / rel).write_text(text)


def test_errors_name_file_line_and_field_all_at_once(copy_data, capsys):
    data = copy_data(TEST_DATA / "fabric")
    write(data, "models/broken.yaml", "id: broken\nname: [unclosed\n")
    write(data, "models/typo.yaml", "id: typo\nname: A model\nparamters_b: 7\n")
    write(data, "models/wrong-name.yaml", "id: other-name\nname: A model\n")
    write(
        data,
        "benchmarks/dangling.yaml",
        (TEST_DATA / "fabric/benchmarks/pcie-run.yaml")
        .read_text()
        .replace("id: pcie-run", "id: dangling")
        .replace("model: model", "model: no-such-model"),
    )
    assert main(["build", "--data", str(data)]) == 1
    err = capsys.readouterr().err
    assert (
        "models/broken.yaml:3: is not valid YAML" in err
        or "models/broken.yaml:2: is not valid YAML" in err
    )
    assert "models/typo.yaml:3: paramters_b: is not a known field" in err
    assert "models/wrong-name.yaml:1: id: other-name must equal the file name 'wrong-name'" in err
    assert (
        "benchmarks/dangling.yaml:8: model: no-such-model must be the id of a model record"
        " (a file under models/) [bg:BenchmarkRunShape-model]"
    ) in err


def test_a_bad_record_does_not_take_down_the_good_ones(copy_data, capsys):
    data = copy_data(TEST_DATA / "fabric")
    write(data, "models/broken.yaml", "id: broken\nname: [unclosed\n")
    assert (
        main(["query", "--data", str(data), "--format", "csv", "--example", "no-gpu-fabric"]) == 0
    )
    captured = capsys.readouterr()
    assert "pcie-run" in captured.out and "models/broken.yaml" in captured.err


def test_exit_2_when_it_cannot_run(tmp_path, capsys):
    assert main(["build", "--data", str(tmp_path / "nowhere")]) == 2
    assert "no such data folder" in capsys.readouterr().err
    assert main(["query", "--data", str(DATA), "SELECT WHERE {"]) == 2


def test_console_script_runs(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "benchgraph", "query", "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0 and "Example:" in done.stdout


def test_a_touched_file_is_not_reconverted_and_a_same_size_edit_is(copy_data):
    """Files are re-read only when their size or modification time changed (as git's index
    does): touching a record rebuilds nothing, an edit of the same length is seen."""
    import os
    import time

    data = copy_data(TEST_DATA / "fabric")
    old = time.time_ns() - 3_600 * 10**9  # files an hour old: their times are trusted
    for path in data.rglob("*.yaml"):
        os.utime(path, ns=(old, old))
    build(data)
    run_file = sorted((data / "benchmarks").glob("*.yaml"))[0]
    os.utime(run_file, ns=(old + 10**9, old + 10**9))
    assert build(data).rebuilt == 0
    text = run_file.read_text(encoding="utf-8")
    edited = text.replace("status: draft", "status: DRAFT", 1)  # now invalid, left out
    assert len(edited) == len(text) and edited != text
    run_file.write_text(edited, encoding="utf-8")
    os.utime(run_file, ns=(old + 2 * 10**9, old + 2 * 10**9))
    result = build(data, skip_invalid=True)
    assert result.rebuilt == 1 and str(run_file.name) in " ".join(result.left_out)


def test_a_refused_build_stays_refused_and_what_was_left_out_comes_back(
    copy_data, tmp_path, monkeypatch
):
    """A rebuild compares only what changed with the last build: a refused build must be
    refused again while nothing changes, and once the bad record is mended the records a
    --skip-invalid build left out (it and those linking to it) must be in the store, which
    then equals a fresh build's."""
    from benchgraph.errors import RecordsInvalid

    data = copy_data(TEST_DATA / "fabric")
    part = data / "accelerators" / "pcie-card.yaml"
    text = part.read_text(encoding="utf-8")
    part.write_text(text + "colour: red\n", encoding="utf-8")  # an unknown key: invalid
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "kept"))
    left_out = build(data, skip_invalid=True).left_out
    assert {Path(p).name for p in left_out} == {"pcie-card.yaml", "pcie-run.yaml"}
    for _ in range(2):
        with pytest.raises(RecordsInvalid):
            build(data)
    part.write_text(text, encoding="utf-8")
    rebuilt = build(data)
    assert rebuilt.conforms and not rebuilt.left_out
    store = rebuilt.open()
    mine = {str(q) for q in store.quads_for_pattern(None, None, None, None)}
    assert select(
        store,
        """SELECT ?g WHERE { GRAPH ?g { ?r a bg:BenchmarkRun }
        FILTER(STRENDS(STR(?g), "pcie-run")) }""",
    )
    del store
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "fresh"))
    fresh = build(data).open()
    assert mine == {str(q) for q in fresh.quads_for_pattern(None, None, None, None)}


def test_exit_2_when_its_own_ontology_is_broken(tmp_path, monkeypatch, capsys):
    import benchgraph.pipeline.key as key
    import benchgraph.reasoning.ontology as onto

    broken = tmp_path / "resources"
    (broken / "ontology").mkdir(parents=True)
    (broken / "ontology" / "broken.ttl").write_text("@prefix : <https://x/> .\n:a :b\n")
    real = onto.resource
    monkeypatch.setattr(
        onto,
        "resource",
        lambda *parts: broken.joinpath(*parts) if parts[0] == "ontology" else real(*parts),
    )
    monkeypatch.setattr(onto, "_REASONER", [])
    monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / "cache"))
    cached = (key.code_key, onto.ontology_graph, onto.ontology_closure, onto.ontology_nquads)
    for f in cached:
        f.cache_clear()
    try:
        assert main(["build", "--data", str(TEST_DATA / "fabric")]) == 2
        assert "the ontology does not parse" in capsys.readouterr().err
    finally:
        monkeypatch.undo()
        for f in cached:
            f.cache_clear()


def test_link_checks_after_a_run_edit_keep_the_other_records_dangling_links(tmp_path):
    """A rebuild checks only the edited records' links while every file keeps its id; the
    dangling links of the other records must still be reported (the shapes hide most of
    them behind their own message, so this looks at the link check itself)."""
    from benchgraph.store.cache import Cache, Entry
    from benchgraph.validation.links import link_problems

    def entry(path: str, kind: str, rid: str, model: str | None = None) -> Entry:
        refs = [("model", model, "models")] if model else []
        return Entry(path, "d", kind, rid, "", "", [], refs, {"model": 3})

    cache = Cache(tmp_path / "cache.sqlite")
    entries = {
        "a.yaml": entry("a.yaml", "benchmarks", "a", "m1"),
        "b.yaml": entry("b.yaml", "benchmarks", "b", "nope"),
        "m1.yaml": entry("m1.yaml", "models", "m1"),
    }
    before = cache.index()  # the last build's entries, as a build reads them

    def dangling(*edited: Entry) -> list[tuple[str, str]]:
        nonlocal before
        entries.update({e.path: e for e in edited})
        fresh = list(edited) or list(entries.values())
        cache.put(fresh)
        found = link_problems(entries, cache, fresh, before)
        before = cache.index()
        return sorted((p.file, p.value) for p in found if p.code == "dangling-reference")

    assert dangling() == [("b.yaml", "nope")]
    assert dangling(entry("a.yaml", "benchmarks", "a", "gone")) == [
        ("a.yaml", "gone"),
        ("b.yaml", "nope"),
    ]
    assert dangling(entry("a.yaml", "benchmarks", "a", "m1")) == [("b.yaml", "nope")]
    # an id changed: every record's links are checked again
    assert dangling(entry("m1.yaml", "models", "renamed")) == [("a.yaml", "m1"), ("b.yaml", "nope")]
    cache.close()


def test_a_skip_invalid_rebuild_leaves_out_and_takes_back_unchanged_records(
    copy_data, tmp_path, monkeypatch
):
    """serve --watch rebuilds with --skip-invalid, comparing only what changed: a run that did
    not change but links to a part gone invalid leaves the store, and comes back once the part
    is mended; each time the store equals a fresh build's."""
    data = copy_data(TEST_DATA / "fabric")
    part = data / "accelerators" / "pcie-card.yaml"
    text = part.read_text(encoding="utf-8")

    def quads(cache: str) -> set[str]:
        monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / cache))
        result = build(data, skip_invalid=True)
        store = result.open()
        try:
            return {str(q) for q in store.quads_for_pattern(None, None, None, None)}, result
        finally:
            del store

    kept, first = quads("kept")
    assert not first.left_out
    part.write_text(text + "colour: red\n", encoding="utf-8")  # an unknown key: invalid
    edited, result = quads("kept")
    assert {Path(p).name for p in result.left_out} == {"pcie-card.yaml", "pcie-run.yaml"}
    assert edited == quads("fresh-1")[0] != kept
    part.write_text(text, encoding="utf-8")
    mended, result = quads("kept")
    assert not result.left_out and mended == quads("fresh-2")[0] == kept


def test_a_large_bulk_load_is_compacted_before_the_build_ends(copy_data, monkeypatch, tmp_path):
    """A build that bulk loads more than COMPACT_FROM merges the store's files before it ends
    (else the next build's flush waited for that merge); the store holds the same quads."""
    import benchgraph.pipeline.steps as steps

    data = copy_data(TEST_DATA / "fabric")

    def built(limit: int, cache: str) -> tuple[int, list[str]]:
        """The store's files and its quads, built with this limit."""
        monkeypatch.setattr(steps, "COMPACT_FROM", limit)
        monkeypatch.setenv("BENCHGRAPH_CACHE", str(tmp_path / cache))
        result = build(data)
        files = len(list(result.store_path.glob("*.sst")))
        store = result.open()
        quads = sorted(str(q) for q in store)
        del store
        return files, quads

    plain_files, plain_quads = built(1 << 62, "plain")
    compacted_files, compacted_quads = built(0, "compacted")
    assert compacted_files < plain_files
    assert compacted_quads == plain_quads
