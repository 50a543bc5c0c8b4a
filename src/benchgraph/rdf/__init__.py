"""Records as RDF: pure functions from a Record to triples, and triples to N-Quads text.

    convert.py  Record -> triples (the ontology's terms, units from vocab)
    nquads.py   triples -> N-Quads text, one term at a time

May import: records, and the base floor (errors, namespaces, vocab).
"""
