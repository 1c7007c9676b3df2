"""catalog.memory: what a build keeps out of Python's garbage collections."""

from __future__ import annotations

import gc

from catalog.memory import frozen_heap, paused_gc


def test_frozen_heap_nests_and_gives_everything_back_at_the_outermost_end():
    assert gc.get_freeze_count() == 0
    kept = [object() for _ in range(1000)]
    with frozen_heap():
        frozen = gc.get_freeze_count()
        assert frozen >= len(kept)
        with frozen_heap():  # an inner block (the analysis inside a build) leaves the outer freeze alone
            made = [[] for _ in range(100)]
        assert gc.get_freeze_count() >= frozen
    assert gc.get_freeze_count() == 0 and made and kept


def test_what_a_paused_block_made_is_not_scanned_by_the_next_collection():
    """Objects made with the collector paused would all be scanned by the first collection
    after it (the youngest generation's count far past its threshold): they go to the oldest
    generation instead, or stay frozen inside a frozen_heap block."""
    threshold = gc.get_threshold()[0]
    with paused_gc():
        made = [[i] for i in range(200_000)]
        assert gc.get_count()[0] > threshold  # the debt a plain gc.enable() would leave
    assert gc.isenabled()
    assert gc.get_count()[0] < threshold and gc.get_freeze_count() == 0
    with frozen_heap():
        before = gc.get_freeze_count()
        with paused_gc():
            more = [[i] for i in range(100_000)]
        assert gc.get_freeze_count() >= before + len(more)  # frozen with the rest until the block ends
    assert gc.get_freeze_count() == 0 and made and more
