"""How much memory the machine grants, and how much a query worker holds: the query memory
limit's default and the pool's watchdog read these."""

from __future__ import annotations

import os
from pathlib import Path

MB = 1024 * 1024
# The share of the machine's memory all query workers of all server processes may use
# together; the rest is for the server processes, the page cache and the system.
SHARE = 0.5
FLOOR_MB = 256  # below this a worker cannot hold a modest sort, whatever the machine
PAGE = os.sysconf("SC_PAGE_SIZE")
PROC_CGROUP = Path("/proc/self/cgroup")
CGROUP = Path("/sys/fs/cgroup")


def machine_memory() -> int:
    """Bytes this process may use: the physical RAM or its cgroup's limit, whichever is less."""
    physical = os.sysconf("SC_PHYS_PAGES") * PAGE
    limits = [physical, *(n for n in _cgroup_limits() if n > 0)]
    return min(limits)


def default_query_memory_mb(processes: int, queries_per_process: int) -> int:
    """SHARE of machine_memory() split evenly over every query that can run at once in
    `processes` server processes (each running up to `queries_per_process` queries)."""
    running = max(1, processes) * max(1, queries_per_process)
    return max(FLOOR_MB, int(machine_memory() * SHARE / running / MB))


def memory_detail(limit_mb: int) -> str:
    """The error a query over the memory limit gets (from the pool or from its worker)."""
    return (
        f"the query used too much memory: over this server's limit of {limit_mb:,} MB "
        "per query, and was stopped; add a LIMIT or narrow the query"
    )


def private_rss(pid: int) -> int:
    """Bytes of a process's memory that are resident and its own (not file-backed or shared):
    what a query grows. 0 once the process is gone."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            fields = f.read().split()
    except OSError:
        return 0
    return (int(fields[1]) - int(fields[2])) * PAGE  # resident - shared pages


def _cgroup_limits() -> list[int]:
    """The memory limits of this process's cgroup (v2 memory.max, v1 limit_in_bytes)."""
    found = []
    try:
        lines = PROC_CGROUP.read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        _id, controllers, path = line.split(":", 2)
        if controllers == "":
            candidates = [CGROUP / path.lstrip("/") / "memory.max", CGROUP / "memory.max"]
        elif "memory" in controllers.split(","):
            base = CGROUP / "memory"
            candidates = [
                base / path.lstrip("/") / "memory.limit_in_bytes",
                base / "memory.limit_in_bytes",
            ]
        else:
            continue
        for candidate in candidates:  # in a container, the cgroup's own folder is the root
            try:
                text = candidate.read_text().strip()
            except OSError:
                continue
            if text.isdigit() and int(text) < 1 << 60:  # "max" or ~2^63 mean no limit
                found.append(int(text))
            break
    return found
