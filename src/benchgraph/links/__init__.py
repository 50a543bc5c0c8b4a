"""Links to outside knowledge: proposals from a SPARQL endpoint, curators' accepts, SSSOM."""
