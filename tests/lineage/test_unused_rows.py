"""``list_column_readers``'s rows as records: the same values as the rows, with what the rows
repeat (a reader read once per column it reads, its key again as its own column's key) held once."""

from __future__ import annotations

from catalog.lineage.unused import END_MODEL, ONLY_UNUSED, ReadColumn, Reader, ReadNode, nodes_from_rows, unused_columns


def _rows() -> list[list]:
    # decoded apart, as the driver decodes each row: equal strings, distinct objects
    def s(text: str) -> str:
        return "".join(list(text))

    reader = lambda: [s("column"), s("m.pkg.b.x"), s("b.x")]  # noqa: E731
    return [
        [s("m.pkg.a"), "a", s("model"), [[s("b"), s("resolved")]], [
            [s("m.pkg.a.id"), s("id"), s("integer"), [reader()]],
            [s("m.pkg.a.y"), s("y"), None, [reader(), [s("test"), s("t.pkg.not_null"), s("not_null_a_y")]]],
        ]],
        [s("m.pkg.b"), "b", s("model"), [], [[s("m.pkg.b.x"), s("x"), s("integer"), []]]],
    ]  # fmt: skip


def test_the_records_hold_the_rows_values():
    a, b = nodes_from_rows(_rows())
    assert a == ReadNode("m.pkg.a", "a", "model", (("b", "resolved"),), (
        ReadColumn("m.pkg.a.id", "id", "integer", (Reader("column", "m.pkg.b.x", "b.x"),)),
        ReadColumn("m.pkg.a.y", "y", None, (Reader("column", "m.pkg.b.x", "b.x"), Reader("test", "t.pkg.not_null", "not_null_a_y"))),
    ))  # fmt: skip
    assert b == ReadNode("m.pkg.b", "b", "model", (), (ReadColumn("m.pkg.b.x", "x", "integer", ()),))
    # b is an end model: its x is unread, and a.id, read by b.x alone, with it; a.y is tested
    assert {f"{m.model}.{c.column}": (c.reason, c.read_by) for m in unused_columns([a, b], end_models=True) for c in m.columns} == {
        "a.id": (ONLY_UNUSED, ("b.x",)), "b.x": (END_MODEL, ())}  # fmt: skip


def test_what_the_rows_repeat_is_held_once():
    a, b = nodes_from_rows(_rows())
    first, second = a.columns[0].readers[0], a.columns[1].readers[0]
    assert first is second  # one reader, read for each column it reads
    assert first.key is b.columns[0].key  # and its key, read again as its own column's key
    assert a.columns[0].data_type is b.columns[0].data_type and a.resource_type is b.resource_type
