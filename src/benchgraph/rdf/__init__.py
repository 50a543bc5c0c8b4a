"""Records as RDF: the conversion and the N-Quads text of triples."""
