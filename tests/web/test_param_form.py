"""The parameter form of a saved query on the page (`/?example=NAME&PARAM=VALUE`) takes hostile
values safely: each is refused with a 400 naming the parameter, or becomes one typed term of
the query's VALUES clause, which the endpoint then runs as it stands, with no SERVICE called.
The saved query is tests/web/data/queries/part-memory.rq: a part, statuses (several), a date
and a number."""

from __future__ import annotations

import json
import re

import pytest

from web.web_support import Listener

JSON = {"Accept": "application/json"}


@pytest.fixture(scope="module")
def listener():
    found = Listener()
    yield found
    found.close()


def _hostile(url: str) -> list[tuple[str, str]]:
    """Values that would leave their VALUES clause if spliced in as text."""
    escape = f"}} SERVICE <{url}> {{ ?s ?p ?o }} {{"
    return [
        ("above", "9223372036854775808"),  # past a signed 64-bit integer: no rows, not a number
        ("above", "-9223372036854775809"),
        ("above", "1" + "0" * 400),
        ("above", "1e309"),  # a double's infinity
        ("above", "0 " + escape),
        ("above", '0" || true || "'),
        ("above", "0\n} #"),
        ("above", "0 # comment"),
        ("above", '"0"^^xsd:integer ' + escape),  # was taken as 0
        ("part", "nvidia-h100-sxm> " + escape + " <x"),
        ("part", f"<{url}>"),
        ("part", 'acc:nvidia-h100-sxm" . ?s ?p ?o . "'),
        ("part", "acc:nvidia-h100-sxm\n} #"),
        ("status", "Draft " + escape),
        ("status", "Draft,'}'"),
        ("after", '2026-01-01"^^xsd:date ' + escape),  # was taken as 2026-01-01
        ("after", "2026-01-01\n}"),
        ("after", "someday"),
    ]


@pytest.mark.parametrize("index", range(18))
def test_a_hostile_value_is_a_400_naming_its_parameter(client, listener, index):
    name, value = _hostile(listener.url)[index]
    before = len(listener.connections)
    response = client.get("/", query_string={"example": "part-memory", name: value}, headers=JSON)
    assert response.status_code == 400, (name, value)
    assert response.is_json
    body = response.get_json()
    assert body["title"] == "bad parameter" and body["parameter"] == name, body
    assert body["error"].startswith(f"{name}: "), body
    assert len(listener.connections) == before


@pytest.mark.parametrize(
    ("name", "value", "clause"),
    [
        ("above", "9223372036854775807", "VALUES ?above { 9223372036854775807 }"),
        ("above", "-5", "VALUES ?above { -5 }"),
        ("above", "1.5e3", "VALUES ?above { 1.5e3 }"),
        ("after", "2026-02-29", None),  # no such day: refused, or one date term
        ("after", "2026-01-01", 'VALUES ?after { "2026-01-01"^^xsd:date }'),
        ("after", '"2026-01-01"^^xsd:date', 'VALUES ?after { "2026-01-01"^^xsd:date }'),
        ("above", '"90"^^xsd:integer', "VALUES ?above { 90 }"),
        ("part", "acc:nvidia-h100-sxm", "VALUES ?part { acc:nvidia-h100-sxm }"),
        ("status", "Draft, Provisional", "VALUES ?status { bg:Draft bg:Provisional }"),
    ],
)
def test_a_value_taken_is_one_typed_term_the_endpoint_runs(client, listener, name, value, clause):
    response = client.get("/", query_string={"example": "part-memory", name: value}, headers=JSON)
    if clause is None and response.status_code == 400:
        assert response.get_json()["parameter"] == name
        return
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    config = json.loads(
        re.search(
            r'<script type="application/json" id="bg-config">(.*?)</script>',
            response.get_data(as_text=True),
            re.DOTALL,
        )[1]
    )
    query = config["open"]["query"]
    (values,) = re.findall(rf"VALUES \?{name} \{{ [^}}]* \}}", query)
    if clause is not None:
        assert values == clause
    else:  # one typed term, whatever its spelling
        assert re.fullmatch(rf'VALUES \?{name} \{{ "[0-9-]+"\^\^xsd:date \}}', values), values
    assert query.count("{") == query.count("}")
    before = len(listener.connections)
    answered = client.post(
        "/sparql",
        data={"query": query},
        headers={"Accept": "application/sparql-results+json"},
    )
    assert answered.status_code == 200, answered.get_data(as_text=True)[:500]
    assert "results" in answered.get_json()
    assert len(listener.connections) == before
