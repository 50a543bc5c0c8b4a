"""Record files: finding, reading and checking the YAML records (no rdflib)."""
