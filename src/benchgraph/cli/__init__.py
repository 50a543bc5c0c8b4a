"""The command line (`benchgraph`, `python -m benchgraph`): thin, it parses, calls the
library and maps its errors to exit codes.

    main.py     the parser and the exit codes (pySHACL's: 0, 1 invalid, 2 cannot run)
    options.py  the options commands share, and each command's help with its example
    common.py   the build of --data with its problems on stderr; the store a command reads
    build.py, query.py, export.py, validate.py, push.py, link.py, imports.py, serve.py,
    completion.py: one module per command
    report.py, shacl_report.py: `validate`'s text, JSON and SHACL Turtle reports

May import: every package. Nothing imports it but __main__.
"""
