"""Links to outside knowledge: proposals from a SPARQL endpoint, a curator's accepts, SSSOM.

    reconcile.py  candidates for each record from an endpoint (Wikidata's by default)
    accept.py     the proposal file (and its .proposed twin), and its kept rows into records
    sssom.py      SSSOM mapping sets: read, written, and dumped from a store
    sparql.py     the SPARQL client: one deadline a request, bounded answers

May import: records and the base floor (a contract in pyproject.toml holds it to that).
Neither the build nor the web.
"""
