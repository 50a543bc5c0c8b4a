"""benchgraph web tests (a package, so its modules can share web_support)."""
