"""catalog.memory: what a build keeps out of Python's garbage collections."""

from __future__ import annotations

import gc

from catalog.memory import frozen_heap


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
