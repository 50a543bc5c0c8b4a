"""A build made ready to serve: snapshots, their description, rebuilds while serving."""
