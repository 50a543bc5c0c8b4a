"""The server process: gunicorn, in a process of its own, with the app create_app makes in
each of its workers (`python -m benchgraph.web.server SETTINGS_JSON`, started by
serving.process)."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import Any

from ..locks import end_with


def run_gunicorn(app_config: dict[str, Any], options: dict[str, Any]) -> None:
    """Run gunicorn in this process with the app built by create_app in each worker."""
    from gunicorn.app.base import BaseApplication

    class Application(BaseApplication):
        def load_config(self) -> None:
            for name, value in options.items():
                if value is not None and name in self.cfg.settings:
                    self.cfg.set(name, value)

        def load(self) -> Any:
            from . import create_app

            return create_app(app_config)

    from . import requestline

    requestline.install()  # before gunicorn forks its workers
    Application().run()


def main(argv: list[str]) -> int:
    """`python -m benchgraph.web.server SETTINGS_JSON`: the server process `benchgraph serve`
    starts."""
    settings = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    if "parent" in settings:
        # `benchgraph serve` killed (kill -9, the out-of-memory killer) left the server
        # serving on its port, its snapshot's folder left to be swept (scratch.py): it is
        # stopped as Ctrl-C stops it
        end_with(settings["parent"], signal.SIGTERM)
    run_gunicorn(settings["app"], settings["gunicorn"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
