"""SPARQL queries: the saved ones, running one, and the checks a query passes before it runs.

    saved.py    queries/*.rq with their title, description and first view
    render.py   running a query on a store; its answer as a table, CSV, TSV or JSON
    suggest.py  "did you mean": the known name closest to a mistyped one
    params.py   saved queries' parameters (`# param:` lines) and the text they run as
    escapes.py  what the two parsers read apart in characters: breaks, `\\u` escapes
    census.py   what a token is to rdflib's parse tree, read without the tree
    lexicon.py  the text read once, as tokens, before any parser: every check's facts
    text.py     the limits it is read against, and the refusals of what it finds
    early.py    refusals decided on those tokens, before rdflib parses the text
    syntax.py   where a query does not parse (rdflib's place, or the engine's)
    gate.py     the functions a query calls and its algebra's size, from the parse tree
    inspect.py  a query's form, dataset and SERVICE calls, and the refusals they earn
    stack.py    a thread with a stack deep enough for the parsers and the engine

Every refusal is an errors.QueryRefused. May import: the base floor (errors, namespaces,
resources). Nothing of records, the build or the web: the CLI and the server both use it,
and its floor is the records' (pyproject.toml's floors contract holds it there).
"""
