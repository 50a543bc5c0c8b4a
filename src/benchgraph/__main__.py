"""python -m benchgraph"""

from .cli.main import main

raise SystemExit(main())
