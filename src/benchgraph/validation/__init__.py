"""SHACL validation of records, reported at the file, line and field a curator edits.

Two passes, both from the shapes in shapes/ (shacl.py is the evaluator):
- record.check_record: the shapes that need the record alone, on its own triples. It runs
  where the record is converted (worker processes); the build caches it with the record.
- incremental.check_dataset: the shapes marked bg:acrossRecords (a link names a record of
  the right class, a unit is its metric's, a stated fabric is one the accelerators carry),
  once per build, over small per-record facts (facts.py; the fabric rules: fabric.py;
  the across-record shapes: across.py), kept in the build cache so that an edit re-checks
  only the records it can reach. links.py: duplicate ids and links to no record.
tests/validation/shacl_reference.py runs pySHACL over a whole graph; tests hold both passes to it.

May import: store (incremental.py and links.py keep their tables in the build cache), rdf,
records, and the base floor. Not reasoning, not pipeline.
"""
