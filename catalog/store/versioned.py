"""How every build writes: the one rule that keeps earlier builds readable while a build runs,
and after it fails.

- **Nodes** hold only their identity, what their key determines (``key``, ``project``,
  ``unique_id``, ``name``, ...): merging them changes nothing a reader of another build sees.
- **Everything else** is on a relationship with ``since`` (the build that created it) and
  ``until`` (the build that ended it, absent while it is open). A reader of build N sees a
  relationship when ``since <= N`` and (``until`` is absent or ``until > N``), so what a build
  writes is invisible to readers of earlier builds; readers follow only the active build and
  the ones before it, so nothing of a running build is visible before it is activated.
- **A change** closes the open relationship (``until`` = this build) and creates a new one
  (``since`` = this build): never an update in place. A failed build is undone by deleting the
  relationships it created and reopening the ones it closed
  (``write/delete_build_relationships``, ``write/reopen_build_relationships``).

:func:`changes` is the comparison every writer makes: the relationships a build wants
(``desired``, by a key that names what a relationship is about) against the open ones
(``current``: its element id and what it holds), compared by value.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)


@dataclass
class Changes(Generic[K]):
    close: list[str] = field(default_factory=list)  # element ids of open relationships to end
    create: list[K] = field(default_factory=list)  # keys of the desired relationships to create


def changes(desired: Mapping[K, Any], current: Mapping[K, tuple[str, Any]]) -> Changes[K]:
    """What a build writes: the open relationships (``current``: key -> (element id, value))
    that are no longer desired or hold another value are closed, and the desired ones
    (``desired``: key -> value) that are not open with that value are created. An unchanged
    relationship is left as it is, open since the build that made it."""
    out: Changes[K] = Changes()
    for k, (rid, value) in current.items():
        if k not in desired or desired[k] != value:
            out.close.append(rid)
    for k, value in desired.items():
        open_ = current.get(k)
        if open_ is None or open_[1] != value:
            out.create.append(k)
    return out
