"""Tests of validation: shapes, their examples, the bad-record corpus, the fast path."""
