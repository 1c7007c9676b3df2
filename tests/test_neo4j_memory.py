"""catalog.neo4j_memory: the local server's heap, young generation and page cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog import neo4j_memory
from catalog.errors import ServerError
from catalog.neo4j_memory import Machine, MemoryPlan, plan, size_memory, store_size_mb


@pytest.mark.parametrize(
    ("free_mb", "store_mb", "expected"),
    [
        # 11,450 MB for Neo4j: between the 10 GB point (3 kept, 4 heap) and the 12 GB one; the
        # 120 MB store fits the 1 GB floor of the page cache, well inside the 3.7 GB left
        (22_900, 120, (4352, 1024, 1024)),
        # 2 GB for Neo4j, exactly a point (1 GB kept, 0.5 heap): the page cache gets the 512 MB left
        (4096, 0, (512, 128, 512)),
        # 512 MB for Neo4j: the heap's floor, and the page cache's
        (1024, 0, (512, 128, 128)),
        # 30,000 MB for Neo4j (between 24 and 32 GB): the 3,000 MB store and half again, in 64 MB steps
        (60_000, 3000, (10880, 1024, 4544)),
        # 4 GB for Neo4j (1.5 kept, 2 heap): a 4,000 MB store gets the 512 MB left, not 6,016 MB
        (8192, 4000, (2048, 640, 512)),
        # past the last point: 31 GB of heap at most
        (4 * 1024 * 1024, 0, (31744, 1024, 1024)),
    ],
)
def test_sizes_follow_free_memory_and_store(free_mb: int, store_mb: int, expected: tuple[int, int, int]) -> None:
    assert size_memory(free_mb, store_mb) == expected


def test_a_cgroup_limit_leaves_less_than_the_machine_has() -> None:
    machine = Machine(total_mb=24_000, available_mb=22_900, cgroup_limit_mb=8192, cgroup_usage_mb=4096)
    assert machine.free_mb == 4096
    assert plan(machine, 120, env={}) == MemoryPlan(
        heap_mb=512, young_mb=128, pagecache_mb=512,
        heap_from="sized from 4.0 GB free (cgroup limit 8.0 GB), 120 MB store",
        young_from="a third of the heap, at most 1 GB",
        pagecache_from="sized from 4.0 GB free (cgroup limit 8.0 GB), 120 MB store",
    )  # fmt: skip


def test_each_variable_replaces_its_size_and_says_so() -> None:
    machine = Machine(total_mb=24_000, available_mb=22_900)
    sized = "sized from 22.4 GB free, 1.5 GB store"
    assert plan(machine, 1536, env={}).model_dump() == {
        "heap_mb": 4352, "young_mb": 1024, "pagecache_mb": 2304,
        "heap_from": sized, "young_from": "a third of the heap, at most 1 GB", "pagecache_from": sized,
    }  # fmt: skip
    heap_only = plan(machine, 1536, env={"CATALOG_NEO4J_HEAP": "1.5g"})
    assert (heap_only.heap_mb, heap_only.young_mb, heap_only.pagecache_mb) == (1536, 512, 2304)
    assert (heap_only.heap_from, heap_only.pagecache_from) == ("CATALOG_NEO4J_HEAP", sized)
    every = plan(machine, 1536, env={"CATALOG_NEO4J_HEAP": "2g", "CATALOG_NEO4J_YOUNG": "768m", "CATALOG_NEO4J_PAGECACHE": "512M"})
    assert every.jvm_options() == ("-Xms2048m", "-Xmx2048m", "-Xmn768m")
    assert every.pagecache_setting == "512m"
    assert (every.heap_from, every.young_from, every.pagecache_from) == (
        "CATALOG_NEO4J_HEAP", "CATALOG_NEO4J_YOUNG", "CATALOG_NEO4J_PAGECACHE",
    )  # fmt: skip


def test_bad_variables_are_one_clear_error() -> None:
    machine = Machine(total_mb=24_000, available_mb=22_900)
    with pytest.raises(ServerError, match=r"^CATALOG_NEO4J_HEAP='lots': expected a size of at least 1 MB such as 512m or 2g$"):
        plan(machine, 0, env={"CATALOG_NEO4J_HEAP": "lots"})
    with pytest.raises(ServerError, match=r"^CATALOG_NEO4J_PAGECACHE='512': expected a size"):
        plan(machine, 0, env={"CATALOG_NEO4J_PAGECACHE": "512"})
    with pytest.raises(ServerError, match=r"^CATALOG_NEO4J_YOUNG='1g' is not smaller than the heap \(1024 MB, CATALOG_NEO4J_HEAP\)$"):
        plan(machine, 0, env={"CATALOG_NEO4J_HEAP": "1g", "CATALOG_NEO4J_YOUNG": "1g"})


def _fake_proc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: str | None, usage: str = "0") -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24683568 kB\nMemFree:        20000000 kB\nMemAvailable:   23450208 kB\n")
    monkeypatch.setattr(neo4j_memory, "_MEMINFO", meminfo)
    files = []
    if limit is not None:
        (tmp_path / "memory.max").write_text(limit + "\n")
        (tmp_path / "memory.current").write_text(usage + "\n")
        files.append((tmp_path / "memory.max", tmp_path / "memory.current"))
    monkeypatch.setattr(neo4j_memory, "_CGROUP_FILES", tuple(files))


def test_machine_memory_from_meminfo_and_cgroup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_proc(tmp_path, monkeypatch, limit=None)
    assert neo4j_memory.read_machine() == Machine(total_mb=24105, available_mb=22900)
    _fake_proc(tmp_path, monkeypatch, limit="max")
    assert neo4j_memory.read_machine() == Machine(total_mb=24105, available_mb=22900)
    _fake_proc(tmp_path, monkeypatch, limit=str(6 * 1024**3), usage=str(1024**3))
    machine = neo4j_memory.read_machine()
    assert machine == Machine(total_mb=24105, available_mb=22900, cgroup_limit_mb=6144, cgroup_usage_mb=1024)
    assert machine.free_mb == 5120


def test_store_size_counts_every_database_file(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "databases" / "neo4j").mkdir(parents=True)
    (data / "databases" / "system").mkdir(parents=True)
    (data / "databases" / "neo4j" / "neostore.nodestore.db").write_bytes(b"\0" * (3 * 1024 * 1024))
    (data / "databases" / "system" / "neostore").write_bytes(b"\0" * 1000)
    (data / "transactions").mkdir()
    (data / "transactions" / "neostore.transaction.db.0").write_bytes(b"\0" * (5 * 1024 * 1024))  # not the store
    assert store_size_mb(data) == 4  # 3 MB and 1,000 bytes, rounded up
    assert store_size_mb(tmp_path / "nothing") == 0
