"""The package version, in a module of its own so that any floor may read it without
importing the package's public API (__init__), which sits above them all."""

__version__ = "0.1.0"
