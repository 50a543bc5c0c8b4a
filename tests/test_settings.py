"""One table of settings (benchgraph/settings.py): every environment variable the code reads
is a row of it and a line of the README, only the table reads the environment, `serve
--help-settings` prints every row, and serve passes its flags to the app as settings."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchgraph import settings
from benchgraph.cli import serve
from benchgraph.cli.main import parser

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "benchgraph"
README = (ROOT / "README.md").read_text(encoding="utf-8")
ENV_NAME = re.compile(r"\bBENCHGRAPH_[A-Z0-9_]*[A-Z0-9]\b")
# a read of the environment: os.environ.get(...), os.environ[...], os.getenv(...)
ENV_READ = re.compile(r"os\.environ\s*(?:\.get\(|\[|\.setdefault\()|os\.getenv\(|getenv\(")
TABLE = SRC / "settings.py"


def sources() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if p != TABLE)


def test_every_environment_name_the_code_names_is_a_row():
    named = {
        (path.relative_to(ROOT), name)
        for path in sources()
        for name in ENV_NAME.findall(path.read_text(encoding="utf-8"))
    }
    assert named, "the scan found no BENCHGRAPH_ name: it is broken"
    missing = sorted((str(p), n) for p, n in named if n not in settings.BY_ENV)
    assert not missing, f"environment names not in benchgraph/settings.py: {missing}"


def test_only_the_table_reads_the_environment():
    """A read elsewhere would be a setting the table, --help-settings and the README miss;
    handing the whole environment to a child process (os.environ | {...}) is no read."""
    reads = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in sources()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ENV_READ.search(line)
    ]
    assert not reads, "read the environment through benchgraph.settings:\n" + "\n".join(reads)


@pytest.mark.parametrize("env", sorted(settings.BY_ENV))
def test_every_row_is_a_line_of_the_readme(env):
    assert re.search(rf"^\|\s*`{env}`\s*\|", README, re.MULTILINE), f"{env} is not in README.md"


def test_the_readme_table_is_the_table():
    found = re.search(
        r"<!-- settings table: python -m benchgraph.settings -->\n(.*?)"
        r"<!-- end of the settings table -->",
        README,
        re.DOTALL,
    )
    assert found, "README.md has no settings table"
    assert found[1] == settings.markdown(), (
        "README.md's settings table differs from benchgraph/settings.py: write it again "
        "with `python -m benchgraph.settings`"
    )


def test_help_settings_prints_every_row():
    done = subprocess.run(
        [sys.executable, "-m", "benchgraph", "serve", "--help-settings"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    for s in settings.SETTINGS.values():
        assert s.env in done.stdout, s.env
        assert s.meaning.split(";")[0][:40] in " ".join(done.stdout.split()), s.name
        if s.flag:
            assert f"{s.env}  {s.flag} {s.unit}" in done.stdout, s.flag


def test_every_flag_of_the_table_is_a_serve_option():
    serve_parser = next(
        a for a in parser()._actions if isinstance(a, argparse._SubParsersAction)
    ).choices["serve"]
    options = {o for a in serve_parser._actions for o in a.option_strings}
    flags = {s.flag for s in settings.SETTINGS.values() if s.flag}
    assert flags <= options, flags - options
    for flag in ("--body-timeout", "--write-timeout", "--min-rate", "--write-backlog-mb"):
        assert flag in options


def _serve_args(*argv: str) -> argparse.Namespace:
    return parser().parse_args(["serve", *argv])


def test_serve_passes_max_query_parts_as_a_setting_not_by_the_environment(monkeypatch):
    monkeypatch.delenv("BENCHGRAPH_QUERY_MAX_PARTS", raising=False)
    before = dict(os.environ)
    config = serve._app_config(_serve_args("--max-query-parts", "10", "--max-body-mb", "2"))
    assert config["QUERY_MAX_PARTS"] == 10
    assert config["MAX_CONTENT_LENGTH"] == 2 * 2**20
    assert dict(os.environ) == before


def test_a_flag_not_given_leaves_the_environment_to_apply(monkeypatch):
    monkeypatch.setenv("BENCHGRAPH_QUERY_TIMEOUT", "7")
    config = serve._app_config(_serve_args())
    assert "QUERY_TIMEOUT" not in config
    assert (
        serve._gunicorn_options(_serve_args(), config | {"BIND_HOST": "h", "BIND_PORT": 1})[
            "timeout"
        ]
        == 7 + 30
    )


def test_a_configured_setting_reaches_the_query_checks(monkeypatch):
    """What the pool tells a query worker (configure) is what its checks use."""
    from benchgraph.query.text import max_parts

    monkeypatch.delenv("BENCHGRAPH_QUERY_MAX_PARTS", raising=False)
    try:
        settings.configure({"QUERY_MAX_PARTS": 12})
        assert max_parts() == 12
    finally:
        settings.configure({})
    assert max_parts() == settings.SETTINGS["QUERY_MAX_PARTS"].default


def test_the_app_reads_only_the_tables_names(monkeypatch):
    monkeypatch.setenv("BENCHGRAPH_LINK_LIMIT", "5")
    monkeypatch.setenv("BENCHGRAPH_DUMPS_AHEAD", "false")
    monkeypatch.setenv("BENCHGRAPH_STORE_PASSWORD", "secret")
    found = settings.from_environ()
    assert found["LINK_LIMIT"] == 5 and found["DUMPS_AHEAD"] is False
    assert "STORE_PASSWORD" not in found  # a credential never lands in the app's config
