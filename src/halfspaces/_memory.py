"""How much memory this process may still allocate, and the refusal of an allocation that
would not fit (:class:`~halfspaces.exceptions.MemoryBudgetError`).

The budget is the least of three limits, each where the system has it: the kernel's estimate
of memory available without swapping (``MemAvailable`` in ``/proc/meminfo``), the cgroup's
limit less its usage (v2 ``memory.max``/``memory.current``, v1 ``memory.limit_in_bytes``/
``memory.usage_in_bytes``), and the address-space limit ``RLIMIT_AS`` less the address space
in use (``VmSize``). None is known elsewhere, and then nothing is refused.
"""

from __future__ import annotations

import resource
from pathlib import Path

from .exceptions import MemoryBudgetError

__all__ = ["available_memory", "check_allocation"]

_CGROUP_FILES = (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                 ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                  "/sys/fs/cgroup/memory/memory.usage_in_bytes"))


def _read_kb(path: str, key: str) -> int | None:
    """The ``key: N kB`` line of a ``/proc`` file, in bytes."""
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cgroup_room() -> int | None:
    for limit_path, usage_path in _CGROUP_FILES:
        try:
            limit = Path(limit_path).read_text().strip()
            usage = int(Path(usage_path).read_text().strip())
        except (OSError, ValueError):
            continue
        if limit.isdigit() and int(limit) < 1 << 60:  # v1 writes a huge number for none
            return max(int(limit) - usage, 0)
    return None


def _address_space_room() -> int | None:
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    used = _read_kb("/proc/self/status", "VmSize")
    return None if used is None else max(soft - used, 0)


def available_memory() -> int | None:
    """Bytes this process may still allocate (module docstring), None when unknown."""
    limits = [room for room in (_read_kb("/proc/meminfo", "MemAvailable"), _cgroup_room(),
                                _address_space_room()) if room is not None]
    return min(limits) if limits else None


def check_allocation(owner: str, needed: float, what: str, fix: str) -> None:
    """Raise :class:`~halfspaces.exceptions.MemoryBudgetError` when ``needed`` bytes (an
    estimate of the allocation ``what``) exceed :func:`available_memory`; ``fix`` says
    how to do without it."""
    room = available_memory()
    if room is not None and needed > room:
        raise MemoryBudgetError(owner, what, int(needed), room, fix)
