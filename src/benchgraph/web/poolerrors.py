"""What a query the pool gave no answer is answered: PoolError and its kinds, each with its
status, title and code. querypool.py raises them; a query worker answers two of them itself
(out of memory, a query that failed), importing this module and not the pool's.
"""

from __future__ import annotations

from ..errors import BenchgraphError


class PoolError(BenchgraphError):
    """The pool gave a query no answer: it timed out, every worker was busy, or its worker
    died."""

    status = 500
    title = "query failed"
    code = "query-failed"  # the label /metrics counts it under


class QueryTimeout(PoolError):
    """The query ran past its time limit and was stopped."""

    status = 503
    title = "query timed out"
    code = "timeout"


class QueryOutOfMemory(PoolError):
    """The query's worker passed the memory limit and was stopped.

    507 Insufficient Storage: the server could not hold what the query needs. Not 503, which
    says "try again later" (clients and proxies retry it, re-running the same query), nor a
    4xx: the query is valid and would run on a server granting more memory."""

    status = 507
    title = "query used too much memory"
    code = "memory"


class ClientGone(PoolError):
    """The client closed its connection before the answer; the query was stopped.

    499 is the status nginx logs for this; no client ever reads it."""

    status = 499
    title = "client gone"
    code = "client-gone"


class PoolBusy(PoolError):
    """Every worker stayed busy until the request's deadline."""

    status = 503
    title = "server busy"
    code = "busy"
    retry_after = 5


class WorkerDied(PoolError):
    """The worker process ended while answering (killed from outside)."""

    status = 500
    title = "query worker died"
    code = "worker-died"
