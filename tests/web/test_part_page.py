"""A part's page and a model's page answer "how does it perform": the best run of each
comparable group, best by the metric's direction, with its figure rounded; the runs by source
and round, each leading to the explorer on them; and, on a part's page, how strong the source
of each spec row is."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pyoxigraph as ox

from benchgraph.namespaces import BG, ID, PREFIXES
from benchgraph.vocab import SOURCE_KINDS
from benchgraph.web.performance import HIGHER, LOWER, Run, _best, performance
from benchgraph.web.summary import Source, source_strength
from benchgraph.web.terms import Term

PART = "accelerators/p"
DCT = PREFIXES["dct"]
RDF_TYPE = PREFIXES["rdf"] + "type"
XSD_DECIMAL = "http://www.w3.org/2001/XMLSchema#decimal"

RUN = "benchmarks/ev-sglang-dsv41-production-decode-tok-s-per-user"
RTX = "accelerators/nvidia-rtx-pro-6000-blackwell"
H100 = "accelerators/nvidia-h100-sxm"
MODEL = "models/deepseek-v4.1-flash"
HTML = {"Accept": "text/html"}


def page(client, path: str) -> str:
    response = client.get(f"/id/{path}", headers=HTML)
    assert response.status_code == 200
    return response.get_data(as_text=True)


def part(html: str, name: str, tag: str = "div") -> str:
    start = html.index(">", html.index(f'id="{name}"')) + 1
    return html[start : html.index(f"</{tag}>", start)]


def text_of(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def links(html: str) -> list[str]:
    return [unescape(h) for h in re.findall(r'href="([^"]+)"', html)]


# --- best results ----------------------------------------------------------------------------
def test_a_part_page_shows_its_best_result_per_benchmark_with_a_link_to_the_run(client):
    best = part(page(client, RTX), "performance")
    text = text_of(best)
    assert "Best results" in text
    row = text_of(best[best.index("<tbody>") if "<tbody>" in best else best.index("</thead>") :])
    # the model, the metric with its direction, the figure with its unit, on how many
    assert "DeepSeek" in row, row
    assert "higher is better" in row
    assert "93.9 tok/s" in row
    assert "on 8 accelerators" in row
    assert f"/id/{RUN}" in links(best)


def test_a_part_page_counts_its_runs_by_source(client):
    best = part(page(client, RTX), "performance")
    by_source = text_of(best[best.index("Runs by source and round") :])
    # the test records' one run names no publisher or round: counted, and said so
    assert "no source named: 1 run" in by_source


def store_of_runs() -> ox.Store:
    """Three runs on one part: two of one source and round, one of another."""
    store = ox.Store()
    g = ox.NamedNode(f"{ID}graph")
    acc, metric, model = (ox.NamedNode(f"{ID}{p}") for p in (PART, "metrics/t", "models/m"))

    def add(s, p, o):
        store.add(ox.Quad(s, ox.NamedNode(p), o, g))

    add(metric, str(BG.direction), ox.NamedNode(HIGHER))
    for n, (value, publisher, round_) in enumerate(
        [("100.0", "MLCommons", "v5.0"), ("150.0", "MLCommons", "v5.0"), ("120.0", "X", "v1")]
    ):
        run, src = ox.NamedNode(f"{ID}benchmarks/r{n}"), ox.NamedNode(f"{ID}benchmarks/r{n}#s")
        add(run, RDF_TYPE, ox.NamedNode(str(BG.BenchmarkRun)))
        add(run, str(BG.accelerator), acc)
        add(run, str(BG.metric), metric)
        add(run, str(BG.model), model)
        add(run, str(BG.value), ox.Literal(value, datatype=ox.NamedNode(XSD_DECIMAL)))
        add(run, str(BG.unitCode), ox.Literal("tok/s"))
        add(run, f"{DCT}source", src)
        add(src, f"{DCT}publisher", ox.Literal(publisher))
        add(src, str(BG.round), ox.Literal(round_))
    return store


def test_runs_by_source_and_round_each_lead_to_the_explorer_on_them():
    got = performance(store_of_runs(), "accelerators", f"{ID}{PART}", str, "/explore")
    assert [(c.source, c.runs) for c in got.sources] == [("MLCommons v5.0", 2), ("X v1", 1)]
    query = parse_qs(urlsplit(got.sources[0].href).query)
    assert query == {"accelerator": ["p"], "source": ["MLCommons v5.0"]}
    # one group (one model, metric, unit): its best is the highest, of the three runs
    (best,) = got.best
    assert (best.shown, best.runs, best.run.iri) == ("150 tok/s", 3, f"{ID}benchmarks/r1")


def test_the_explorer_takes_the_part_as_the_page_names_it(client):
    # the page links with the part's id as the explorer's accelerator filter: it keeps its run
    response = client.get("/explore?accelerator=nvidia-rtx-pro-6000-blackwell&format=json")
    assert [r["id"] for r in response.get_json()["rows"]] == [RUN.partition("/")[2]]


def test_a_part_with_no_runs_shows_no_best_results(client):
    assert 'id="performance"' not in page(client, H100)


def run(label: str, value: float, direction: str, acc: str = "a", **kw) -> Run:
    return Run(
        f"http://x/{label}",
        label,
        value,
        str(value),
        "ms",
        "http://x/metric",
        "latency",
        direction,
        models={"http://x/m": "model"},
        accelerators={f"http://x/{acc}": acc},
        **kw,
    )


def test_best_is_the_highest_or_the_lowest_as_the_metric_says():
    href = lambda iri: iri  # noqa: E731
    runs = [run("slow", 200.0, LOWER), run("fast", 100.0, LOWER)]
    best, unranked = _best(runs, "models", "http://x/m", href)
    assert [b.run.text for b in best] == ["fast"] and unranked == 0
    runs = [run("slow", 200.0, HIGHER), run("fast", 100.0, HIGHER)]
    best, _ = _best(runs, "models", "http://x/m", href)
    assert [b.run.text for b in best] == ["slow"]
    assert best[0].shown == "200 ms" and best[0].runs == 2


def test_runs_of_different_scenarios_or_accelerators_are_not_ranked_together():
    href = lambda iri: iri  # noqa: E731
    runs = [
        run("offline", 100.0, HIGHER, scenario="Offline"),
        run("server", 50.0, HIGHER, scenario="Server"),
        run("other-part", 300.0, HIGHER, acc="b", scenario="Server"),
        run("no-direction", 999.0, None),
    ]
    best, unranked = _best(runs, "models", "http://x/m", href)
    assert sorted(b.run.text for b in best) == ["offline", "other-part", "server"]
    assert unranked == 1


def test_a_figure_is_rounded_and_its_full_value_kept_in_the_tooltip():
    href = lambda iri: iri  # noqa: E731
    (b,), _ = _best([run("r", 36.564174064309924, HIGHER)], "models", "http://x/m", href)
    assert b.shown == "36.56 ms"
    assert "36.564174064309924" in b.full
    assert isinstance(ox.NamedNode(b.run.iri), ox.NamedNode)


# --- the source strength of each spec row ----------------------------------------------------
def spec_rows(html: str) -> dict[str, str]:
    table = html[html.index('class="summary spec"') :]
    table = table[: table.index("</table>")]
    rows = re.findall(r"<tr><th>(.*?)</th><td>(.*?)</td></tr>", table, re.S)
    return {text_of(th): td for th, td in rows}


def test_each_spec_row_shows_how_strong_its_source_is(client):
    rows = spec_rows(page(client, RTX))
    # memory is stated by the record's one source, which does not say what it is; the vendor's
    # name and the interconnect by no source
    assert 'class="source-strength weak"' in rows["memory (GB)"]
    assert "kind not given" in text_of(rows["memory (GB)"])
    for name in ("vendor", "interconnect"):
        assert 'class="source-strength none"' in rows[name]
        assert "no source" in text_of(rows[name])


def source(n: int, kind: str | None) -> Source:
    term = Term(kind or "", iri=str(SOURCE_KINDS[kind])) if kind else None
    return Source(n, "", None, None, None, False, term, None, [], [], [])


def test_the_strongest_kind_of_source_names_the_row_and_a_weak_one_looks_weaker():
    assert source_strength([source(1, "blog"), source(2, "vendor")], False)[:2] == (
        "vendor",
        "strong",
    )
    assert source_strength([source(1, "oem")], True)[:2] == ("OEM", "strong")
    for weak in ("reseller", "blog", "press"):
        assert source_strength([source(1, weak)], False)[:2] == (weak, "weak")
    assert source_strength([source(1, "paper"), source(2, "reseller")], False)[0] == "paper"
    assert source_strength([], True)[:2] == ("derived", "derived")
    assert source_strength([], False)[:2] == ("no source", "none")


# --- a model's page ----------------------------------------------------------------------------
def test_a_model_page_shows_the_best_part_for_it_with_the_run(client):
    best = part(page(client, MODEL), "performance")
    header = text_of(best[best.index("<thead>") : best.index("</thead>")])
    assert "accelerator" in header
    row = best[best.index("</thead>") :]
    # which part, its best figure with unit, and the run it comes from
    assert f"/id/{RTX}" in links(row)
    assert "NVIDIA RTX PRO 6000" in text_of(row)
    assert "93.9 tok/s" in text_of(row)
    assert f"/id/{RUN}" in links(row)


def test_a_model_page_ranks_each_part_apart():
    store = store_of_runs()
    g = ox.NamedNode(f"{ID}graph")
    other = ox.NamedNode(f"{ID}accelerators/q")
    run = ox.NamedNode(f"{ID}benchmarks/r0")  # the lowest run on p also ran on q
    store.add(ox.Quad(run, ox.NamedNode(str(BG.accelerator)), other, g))
    got = performance(store, "models", f"{ID}models/m", str, "/explore")
    by_part = {b.accelerator.iri: (b.shown, b.runs) for b in got.best}
    assert by_part == {f"{ID}{PART}": ("150 tok/s", 3), other.value: ("100 tok/s", 1)}
    query = parse_qs(urlsplit(got.sources[0].href).query)
    assert query == {"model": ["m"], "source": ["MLCommons v5.0"]}


def test_the_explorer_takes_the_model_as_the_page_names_it(client):
    response = client.get("/explore?model=deepseek-v4.1-flash&format=json")
    assert [r["id"] for r in response.get_json()["rows"]] == [RUN.partition("/")[2]]


def test_a_whole_number_result_is_rounded_as_the_explorer_rounds_it():
    # an integer literal (72876 samples/s) shows to 4 significant digits, as other figures
    (b,), _ = _best([run("r", 72876.0, HIGHER)], "models", "http://x/m", str)
    assert b.shown == "72,880 ms"
