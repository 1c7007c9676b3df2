"""Keep Python's cyclic garbage collector off the objects of a large project.

Reading a large manifest or building the lineage document creates millions of small
objects; the collector would walk them over and over for nothing (about a third of the
time on 1,000+ model projects). :func:`paused_gc` pauses it around such work;
:func:`frozen_heap` leaves what is alive (the extracted project) out of every collection
while the rest of a build runs.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """No collection inside the block, nor over what it made once it ends: the objects made
    while the collector was off all wait in its youngest generation, and the first one made
    after would set off a collection of them all (2.2 s after the 5,000-model report was
    read). They join the oldest generation instead, unscanned (or stay frozen, inside a
    :func:`frozen_heap` block)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()  # every tracked object, unscanned, into the permanent generation
            if _frozen == 0:
                gc.unfreeze()  # ... and back into the oldest one
            gc.enable()


_frozen = 0  # frozen_heap blocks open: only the outermost freezes and unfreezes


@contextlib.contextmanager
def frozen_heap() -> Iterator[None]:
    """The objects alive now are left out of every collection until the block ends. Opened
    once a project is extracted, so that the collections the analysis and the store set off
    scan what they make, not the project's millions of objects again (a full collection on a
    20,000-model project takes seconds). Blocks may nest."""
    global _frozen
    if _frozen == 0:
        gc.freeze()
    _frozen += 1
    try:
        yield
    finally:
        _frozen -= 1
        if _frozen == 0:
            gc.unfreeze()
