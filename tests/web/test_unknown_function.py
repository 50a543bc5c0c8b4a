"""An unknown function as a full IRI, through the endpoint on the embedded store: a 400 in
the one error shape naming it (it was a 500 with a traceback), as the stores give 403."""

from __future__ import annotations

import pytest

CALLS = {
    "<http://www.openlinksw.com/schemas/bif#http_get>": (
        'SELECT * WHERE { BIND(<http://www.openlinksw.com/schemas/bif#http_get>("http://a.example/")'
        " AS ?y) }"
    ),
    "fn:doc": (
        "PREFIX fn: <http://www.w3.org/2005/xpath-functions#> "
        'SELECT * WHERE { BIND(fn:doc("file:///etc/passwd") AS ?y) }'
    ),
}


@pytest.mark.parametrize("named", sorted(CALLS))
def test_an_unknown_function_is_a_400_naming_it(client, named):
    r = client.get("/sparql", query_string={"query": CALLS[named]})
    assert r.status_code == 400, r.get_data(as_text=True)[:300]
    body = r.get_json()
    assert named in body["error"] and "does not define" in body["error"]
    assert "Traceback" not in r.get_data(as_text=True)
