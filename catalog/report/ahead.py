"""Rows read in a thread of their own, a few ahead of their reader.

The report streams its large Neo4j reads row by row (one model's worth at a time) instead of
holding their answers. :class:`ReadAhead` starts such a read at once, so that Neo4j computes it
while the report does other work, and keeps at most ``size`` rows waiting: the report's
memory does not grow with the build, and its reads still run side by side.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")
_END = object()


class ReadAhead(Iterator[T], Generic[T]):
    """An iterator over ``rows``, which a thread reads from now on. An error of the read is
    raised to the reader. :meth:`close` (or the end of a ``with`` block) stops the read and
    closes ``rows``, whether or not the reader got to its end."""

    def __init__(self, rows: Iterable[T], size: int = 32):
        self._box: queue.Queue[object] = queue.Queue(maxsize=size)
        self._stop = threading.Event()
        self._done = False
        self._thread = threading.Thread(target=self._read, args=(iter(rows),), daemon=True)
        self._thread.start()

    def _put(self, item: object) -> bool:
        while not self._stop.is_set():
            try:
                self._box.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _read(self, rows: Iterator[T]) -> None:
        try:
            for row in rows:
                if not self._put(row):
                    return
            self._put(_END)
        except BaseException as e:  # the reader raises it
            self._put(e)
        finally:
            close = getattr(rows, "close", None)
            if close is not None:
                close()

    def __next__(self) -> T:
        if self._done:
            raise StopIteration
        item = self._box.get()
        if item is _END or isinstance(item, BaseException):
            self.close()
            if item is _END:
                raise StopIteration
            raise item
        return item  # type: ignore[return-value]

    def close(self) -> None:
        self._done = True
        self._stop.set()
        self._thread.join()

    def __enter__(self) -> ReadAhead[T]:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
