"""Run a piece of work on a thread with a stack of its own size.

Oxigraph parses and evaluates a query by recursion on the calling thread's stack: a flat
chain of 10,000 triple patterns, UNIONs, FILTERs or `+` overflows the 8 MiB main stack and
kills the process (exit 139), and rdflib's parser recurses about 64 Python frames per level
of nesting. Both run here on a thread whose stack holds what text.py's limits let through
(measured: 50,000 of each chain, 2,000 levels of nesting, in 256 MiB). The stack is address
space; only the pages a query touches are memory.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

STACK_BYTES = 256 * 1024 * 1024
_lock = threading.Lock()  # threading.stack_size is one setting per process
_here = threading.local()  # .stack: the stack size of a thread this module started


def call(
    work: Callable[[], T], stack_bytes: int = STACK_BYTES, recursion_limit: int | None = None
) -> T:
    """work() on a new thread with `stack_bytes` of stack, its exception raised here; on
    this thread when it is one of these with a stack as big (a query worker serves every
    request on one, so a request starts no thread and reserves no second stack)."""
    if recursion_limit and sys.getrecursionlimit() < recursion_limit:
        sys.setrecursionlimit(recursion_limit)  # per process; only ever raised
    if getattr(_here, "stack", 0) >= stack_bytes:
        return work()
    outcome: dict[str, object] = {}

    def run() -> None:
        _here.stack = stack_bytes
        try:
            outcome["value"] = work()
        except BaseException as exc:  # handed to the caller's thread, raised there
            outcome["error"] = exc

    with _lock:
        previous = threading.stack_size(stack_bytes)
        try:
            thread = threading.Thread(target=run, name="big-stack")
            thread.start()
        finally:
            threading.stack_size(previous)
    thread.join()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]
