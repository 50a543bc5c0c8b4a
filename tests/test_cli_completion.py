"""Shell completion: `benchgraph completion bash|zsh` prints a script that completes the
commands, the options and the saved queries' names; bash's is run as bash runs it on a Tab."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from benchgraph.query.saved import saved_queries


def _script(shell: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "benchgraph", "completion", shell],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _shell(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed (.ci/run installs it)")
        pytest.skip(f"{name} is not installed")
    return found


@pytest.fixture(scope="module")
def bash_script(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("completion") / "benchgraph.bash"
    path.write_text(_script("bash"))
    return str(path)


def _tab(bash: str, script: str, line: str) -> list[str]:
    """What bash offers for a Tab at the end of `line`, as `complete -F` calls the function."""
    words = line.split(" ")
    program = (
        f'source "{script}"; COMP_LINE="{line}"; COMP_POINT=${{#COMP_LINE}}; '
        f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}; "
        f'_shtab_benchgraph benchgraph "{words[-1]}" "{words[-2]}"; '
        'printf "%s\\n" "${COMPREPLY[@]}"'
    )
    done = subprocess.run([bash, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [w.strip() for w in done.stdout.splitlines() if w.strip()]


def test_bash_completes_commands_options_and_saved_queries(bash_script):
    bash = _shell("bash")
    assert _tab(bash, bash_script, "benchgraph qu") == ["query"]
    assert {"build", "query", "export", "validate", "serve", "completion"} <= set(
        _tab(bash, bash_script, "benchgraph ")
    )
    assert {"--list", "--short", "--example", "--param", "--data"} <= set(
        _tab(bash, bash_script, "benchgraph query --")
    )
    assert _tab(bash, bash_script, "benchgraph query --example per") == [
        name for name in saved_queries() if name.startswith("per")
    ]
    assert _tab(bash, bash_script, "benchgraph completion ") == ["bash", "zsh"]


def test_zsh_reads_its_script_and_knows_every_saved_query(tmp_path):
    zsh = _shell("zsh")
    script = tmp_path / "_benchgraph"
    script.write_text(_script("zsh"))
    assert script.read_text().startswith("#compdef benchgraph")
    done = subprocess.run(
        [
            zsh,
            "-fc",
            f"autoload -U compinit; compinit -u -D; source {script}; "
            "whence -w _shtab_benchgraph; print -l -- $_shtab_benchgraph_query_options",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "_shtab_benchgraph: function" in done.stdout, done.stdout + done.stderr
    example = next(line for line in done.stdout.splitlines() if line.startswith("--example"))
    assert all(name in example.split(":")[-1] for name in saved_queries()), example
