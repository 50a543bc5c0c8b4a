"""Record files: finding them, reading their YAML into `Record`s, checking their fields.

    schema.py      the record format: kinds, fields, what each holds, links; Record
    files.py       finding record files (one scandir pass) and reading one's bytes, bounded
    reader.py      the YAML, read by each field's kind (YAML 1.1 and 1.2 readings compared)
    checks.py      a run's accelerators in one form; a source's `states` naming real fields
    provenance.py  a record file's display path and last commit (git)

May import: errors (the base floor). No rdflib, no RDF: records know the format only.
"""
