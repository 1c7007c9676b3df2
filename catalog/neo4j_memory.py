"""How much memory the local Neo4j gets: heap, young generation and page cache.

Sized at each start from the memory this machine has free (``MemAvailable`` of
``/proc/meminfo``, less when a cgroup limit leaves less) and the size of the database on disk,
reasoning as ``neo4j-admin server memory-recommendation --memory=<size>`` does for a machine
that is not Neo4j's alone:

- Neo4j is given half of the free memory; the other half is left to the catalog's own Python
  process (a large build or report holds as much as the server) and the operating system's
  file cache.
- Within that half, a share is kept back for the JVM's own memory off the heap and the OS,
  and the heap is set from the same points as Neo4j's recommendation (for example, 4 GB of
  heap and 3 GB kept back out of 10 GB), interpolated between them, never below 512 MB nor
  above 31 GB (compressed object pointers).
- The page cache holds the whole store with half of it again to grow into, at least 1 GB (a
  5,000-model project's first build writes several hundred MB), at most what the half leaves.
- The young generation is a third of the heap, at most 1 GB: fixed, rather than left to G1's
  own sizing, it cut the pauses of a 5,000-model build from 12.75 s to 1.3-2 s.

``CATALOG_NEO4J_HEAP``, ``CATALOG_NEO4J_YOUNG`` and ``CATALOG_NEO4J_PAGECACHE`` (``512m``,
``2g``) set any of them instead; each value says where it came from.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from catalog.errors import ServerError

ENV_HEAP = "CATALOG_NEO4J_HEAP"
ENV_YOUNG = "CATALOG_NEO4J_YOUNG"
ENV_PAGECACHE = "CATALOG_NEO4J_PAGECACHE"

STEP_MB = 64  # every size is a multiple of it
MIN_HEAP_MB = 512
MAX_HEAP_MB = 31 * 1024
MIN_YOUNG_MB = 64
MAX_YOUNG_MB = 1024
MIN_PAGECACHE_MB = 128
FLOOR_PAGECACHE_MB = 1024

# (memory given to Neo4j, kept back for the OS and the JVM off its heap, heap), in GB: the
# points of neo4j-admin's memory recommendation. Between two points both are interpolated;
# past the last one they stay.
_POINTS_GB: tuple[tuple[float, float, float], ...] = (
    (0.01, 0.007, 0.002), (1, 0.65, 0.3), (2, 1, 0.5), (4, 1.5, 2), (6, 2, 3), (8, 2.5, 3.5),
    (10, 3, 4), (12, 3.5, 4.5), (16, 4, 5), (24, 6, 8), (32, 8, 12), (64, 12, 24), (128, 16, 31),
    (256, 20, 31), (512, 24, 31), (1024, 30, 31),
)  # fmt: skip

_MEMINFO = Path("/proc/meminfo")
# cgroup v2, then v1 (as seen from inside a container: its own group is mounted there)
_CGROUP_FILES = (
    (Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory.current")),
    (Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"), Path("/sys/fs/cgroup/memory/memory.usage_in_bytes")),
)


class Machine(BaseModel):
    """The memory this machine (or its cgroup) has, in MB."""

    model_config = ConfigDict(frozen=True)

    total_mb: int
    available_mb: int
    cgroup_limit_mb: int | None = None
    cgroup_usage_mb: int | None = None

    @property
    def free_mb(self) -> int:
        """What can still be had: MemAvailable, or less when the cgroup's limit leaves less."""
        free = self.available_mb
        if self.cgroup_limit_mb is not None:
            free = min(free, max(0, self.cgroup_limit_mb - (self.cgroup_usage_mb or 0)))
        return free

    @property
    def limited_by_cgroup(self) -> bool:
        return self.free_mb < self.available_mb


class MemoryPlan(BaseModel):
    """The heap, young generation and page cache of one start, and where each came from."""

    model_config = ConfigDict(frozen=True)

    heap_mb: int
    young_mb: int
    pagecache_mb: int
    heap_from: str
    young_from: str
    pagecache_from: str

    def jvm_options(self) -> tuple[str, ...]:
        """Initial heap = maximum heap, as Neo4j advises (no full collections to grow it)."""
        return (f"-Xms{self.heap_mb}m", f"-Xmx{self.heap_mb}m", f"-Xmn{self.young_mb}m")

    @property
    def pagecache_setting(self) -> str:
        return f"{self.pagecache_mb}m"


def size_memory(free_mb: int, store_mb: int) -> tuple[int, int, int]:
    """(heap, young generation, page cache) in MB for ``free_mb`` of free memory and a store
    of ``store_mb`` on disk (see the module's docstring)."""
    share_mb = free_mb / 2
    kept_gb, heap_gb = _interpolate(share_mb / 1024)
    heap = _clamp(_down(heap_gb * 1024), MIN_HEAP_MB, MAX_HEAP_MB)
    room = share_mb - kept_gb * 1024 - heap
    wanted = max(FLOOR_PAGECACHE_MB, _up(store_mb * 1.5))
    pagecache = max(MIN_PAGECACHE_MB, _down(min(wanted, room)))
    return heap, young_for(heap), pagecache


def young_for(heap_mb: int) -> int:
    """A third of the heap, at most 1 GB, at least 64 MB."""
    return _clamp(_down(heap_mb / 3), MIN_YOUNG_MB, MAX_YOUNG_MB)


def plan(machine: Machine, store_mb: int, env: Mapping[str, str] | None = None) -> MemoryPlan:
    """The sizes of :func:`size_memory`, each replaced by its variable when that is set."""
    env = os.environ if env is None else env
    heap, young, pagecache = size_memory(machine.free_mb, store_mb)
    sized = f"sized from {_gb(machine.free_mb)} free" + (
        f" (cgroup limit {_gb(machine.cgroup_limit_mb or 0)})" if machine.limited_by_cgroup else ""
    ) + f", {_mb_text(store_mb)} store"
    heap_from = pagecache_from = sized
    young_from = "a third of the heap, at most 1 GB"
    if env.get(ENV_HEAP, "").strip():
        heap, heap_from = parse_size_mb(ENV_HEAP, env[ENV_HEAP]), ENV_HEAP
        young = young_for(heap)
    if env.get(ENV_YOUNG, "").strip():
        young, young_from = parse_size_mb(ENV_YOUNG, env[ENV_YOUNG]), ENV_YOUNG
        if young >= heap:
            raise ServerError(f"{ENV_YOUNG}={env[ENV_YOUNG]!r} is not smaller than the heap ({heap} MB, {heap_from})")
    if env.get(ENV_PAGECACHE, "").strip():
        pagecache, pagecache_from = parse_size_mb(ENV_PAGECACHE, env[ENV_PAGECACHE]), ENV_PAGECACHE
    return MemoryPlan(
        heap_mb=heap, young_mb=young, pagecache_mb=pagecache,
        heap_from=heap_from, young_from=young_from, pagecache_from=pagecache_from,
    )  # fmt: skip


def parse_size_mb(name: str, raw: str) -> int:
    """``512m`` -> 512, ``2g`` -> 2048, ``1.5g`` -> 1536 (``k``, ``m``, ``g``, any case)."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgKMG])\s*", raw)
    mb = float(found.group(1)) * {"k": 1 / 1024, "m": 1, "g": 1024}[found.group(2).lower()] if found else 0
    if mb < 1:
        raise ServerError(f"{name}={raw!r}: expected a size of at least 1 MB such as 512m or 2g")
    return int(mb)


def read_machine() -> Machine:
    """MemTotal and MemAvailable of /proc/meminfo, and the cgroup's limit and usage if any."""
    values: dict[str, int] = {}
    try:
        for line in _MEMINFO.read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in ("MemTotal", "MemAvailable") and rest.split():
                values[key] = int(rest.split()[0]) // 1024  # kB
    except (OSError, ValueError) as exc:
        raise ServerError(f"cannot read the machine's memory from {_MEMINFO}: {exc}") from None
    if "MemTotal" not in values:
        raise ServerError(f"{_MEMINFO} has no MemTotal line: set {ENV_HEAP} and {ENV_PAGECACHE}")
    total = values["MemTotal"]
    limit = usage = None
    for limit_file, usage_file in _CGROUP_FILES:
        found = _read_bytes(limit_file)
        if found is not None:
            if found // (1024 * 1024) < total:  # "max", or a huge number: no limit
                limit, usage = found // (1024 * 1024), (_read_bytes(usage_file) or 0) // (1024 * 1024)
            break
    return Machine(
        total_mb=total, available_mb=values.get("MemAvailable", total), cgroup_limit_mb=limit, cgroup_usage_mb=usage
    )


def store_size_mb(data_dir: Path) -> int:
    """The size of every database's files under the server's data directory, in MB."""
    total = 0
    for root, _dirs, files in os.walk(data_dir / "databases"):
        for name in files:
            try:
                total += (Path(root) / name).stat().st_size
            except OSError:  # gone while we looked
                continue
    return math.ceil(total / (1024 * 1024))


def _read_bytes(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    if text == "max":
        return 1 << 62
    return int(text) if text.isdigit() else None


def _interpolate(share_gb: float) -> tuple[float, float]:
    """(kept back, heap) in GB for ``share_gb`` given to Neo4j."""
    for (lo_total, lo_kept, lo_heap), (hi_total, hi_kept, hi_heap) in zip(_POINTS_GB, _POINTS_GB[1:]):
        if share_gb < hi_total:
            f = max(0.0, (share_gb - lo_total) / (hi_total - lo_total))
            return lo_kept + (hi_kept - lo_kept) * f, lo_heap + (hi_heap - lo_heap) * f
    return _POINTS_GB[-1][1], _POINTS_GB[-1][2]


def _down(mb: float) -> int:
    return int(mb // STEP_MB) * STEP_MB


def _up(mb: float) -> int:
    return math.ceil(mb / STEP_MB) * STEP_MB


def _clamp(value: int, lo: int, hi: int) -> int:
    return max(lo, min(hi, value))


def _gb(mb: int) -> str:
    return f"{mb / 1024:.1f} GB"


def _mb_text(mb: int) -> str:
    return f"{mb} MB" if mb < 1024 else _gb(mb)
