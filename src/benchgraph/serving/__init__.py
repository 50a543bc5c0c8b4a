"""A build made ready to serve, and kept up to date while it is served.

    prepare.py      a private copy of a build with --with files and its description
    description.py  the dataset described in VoID and DCAT
    counts.py       its counts from the build's cache, each graph counted once and kept
    snapshots.py    served copies, handed to server processes by a pointer file
    reload.py       rebuilds on a change or SIGHUP, in a builder process that lives on
    watch.py        what a served dataset is made of, watched for changes
    process.py      the serving process's loop around the server process

May import: pipeline and everything below it. Not web (web/server.py is the server
process; process.py starts it by module name), not cli.
"""
