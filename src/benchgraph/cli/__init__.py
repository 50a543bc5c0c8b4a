"""The command line (`benchgraph`, `python -m benchgraph`)."""
