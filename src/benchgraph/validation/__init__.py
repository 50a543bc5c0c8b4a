"""SHACL validation of records, reported at the file, line and field a curator edits."""
