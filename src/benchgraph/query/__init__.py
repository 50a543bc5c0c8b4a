"""SPARQL queries: the saved ones, running one, and the checks a query passes before it runs.

    saved.py    queries/*.rq with their title, description and first view
    render.py   running a query on a store; its answer as a table, CSV, TSV or JSON
    suggest.py  "did you mean": the known name closest to a mistyped one
    text.py     a linear look at the text first: depth, length, what parsers read apart
    syntax.py   where a query does not parse (rdflib's place, or the engine's)
    inspect.py  a query's form, dataset and SERVICE calls, and the refusals they earn
    stack.py    a thread with a stack deep enough for the parsers and the engine

Every refusal is an errors.QueryRefused. May import: the base floor (errors, namespaces,
resources). Nothing of records, the build or the web: the CLI and the server both use it.
"""
