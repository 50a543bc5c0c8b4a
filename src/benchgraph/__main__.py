"""python -m benchgraph"""

from .cli import main

raise SystemExit(main())
