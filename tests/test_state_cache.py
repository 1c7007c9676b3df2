"""The lineage of a base kept between checks (catalog.state_cache): read instead of analyzed
when the base is the same, analyzed again when it differs or its entry is unreadable, never
written when turned off, and only the entries used last kept. A check that analyzes only the
change's region neither reads nor keeps one (``partial=False`` compares the whole project)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import sqlglot

from catalog.check_change import check_change
from catalog.extract import load_project
from catalog.state_cache import KEEP
from edits import edit_sql

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "coffee_shop" / "target"
STG_PAYMENTS = "model.coffee_shop.stg_payments"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("CATALOG_CACHE_DIR", str(folder))
    return folder


def _target(tmp_path: Path, name: str, amount: str = "/ 1000 as amount") -> Path:
    target = tmp_path / name / "target"
    shutil.copytree(EXAMPLE, target)
    edit_sql(target, STG_PAYMENTS, "/ 100 as amount", amount)
    return target


def _parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = sqlglot.parse
    monkeypatch.setattr(sqlglot, "parse", lambda sql, *a, **k: seen.append(sql) or real(sql, *a, **k))
    return seen


def test_a_second_check_reads_the_base_and_gives_the_same_report(cache, tmp_path, monkeypatch):
    target = _target(tmp_path, "change")
    first = check_change(target, state=EXAMPLE, jobs=1, partial=False).report
    assert len(list(cache.glob("*.lineage"))) == 1
    parsed = _parses(monkeypatch)
    again = check_change(target, state=EXAMPLE, jobs=1, partial=False).report
    assert again == first and first.findings
    # the base's models are not parsed again: only the edited one, on each side
    models = {n.sql: n.unique_id for p in (load_project(EXAMPLE), load_project(target)) for n in p.models() if n.sql}
    assert sorted(models[sql] for sql in parsed if sql in models) == [STG_PAYMENTS, STG_PAYMENTS]


def test_an_unreadable_entry_is_analyzed_again(cache, tmp_path, monkeypatch):
    target = _target(tmp_path, "change")
    first = check_change(target, state=EXAMPLE, jobs=1, partial=False).report
    [entry] = cache.glob("*.lineage")
    entry.write_bytes(b"not an entry")
    parsed = _parses(monkeypatch)
    assert check_change(target, state=EXAMPLE, jobs=1, partial=False).report == first
    models = {n.sql for n in load_project(EXAMPLE).models() if n.sql and n.language == "sql"}
    assert models <= set(parsed)  # the base analyzed again
    assert entry.read_bytes() != b"not an entry"  # and kept again


def test_off_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("CATALOG_CACHE_DIR", "off")
    target = _target(tmp_path, "change")
    assert check_change(target, state=EXAMPLE, jobs=1, partial=False).report.findings
    assert not any(tmp_path.rglob("*.lineage"))


def test_only_the_entries_used_last_are_kept(cache, tmp_path):
    bases = [_target(tmp_path, f"base{i}", f"/ {10 ** (i + 3)} as amount") for i in range(KEEP + 1)]
    change = _target(tmp_path, "change")
    for base in bases:
        check_change(change, state=base, jobs=1, partial=False)
    assert len(list(cache.glob("*.lineage"))) == KEEP


def test_a_check_of_the_region_keeps_nothing(cache, tmp_path):
    target = _target(tmp_path, "change")
    regional = check_change(target, state=EXAMPLE, jobs=1).report
    assert not any(cache.glob("*.lineage"))
    assert regional == check_change(target, state=EXAMPLE, jobs=1, partial=False).report
