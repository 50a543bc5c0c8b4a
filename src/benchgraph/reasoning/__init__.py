"""Inference: OWL-RL per record and the project's rules across records.

    infer.py     the reasoner: the ontology's closure, applied to one record's triples
    rules.py     the rules across records, run on the store (SPARQL updates)
    ontology.py  the ontology parsed, and the reasoner made once and kept in a pickle

May import: rdf, records, and the base floor (namespaces, resources). Not validation.
"""
