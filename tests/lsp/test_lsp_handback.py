"""What the analyzer's process hands back to `catalog lsp --memory`: plain tuples (the packed
lineages), made into records in the server. The records themselves, pickled, took longer to
send and read than the analysis took (hundreds of MB at 20,000 models): a hover waited for them
long after the analysis had ended."""

from __future__ import annotations

import io
import pickle
from pathlib import Path

import pytest

from catalog.lsp.sources import _analyzer, stop_analyzer
from catalog.mcp.stored import analyzed_input, analyzed_lineages


class _PlainOnly(pickle.Unpickler):
    """Reads only builtin values: any class or function in the pickle is refused."""

    def find_class(self, module: str, name: str) -> object:
        raise pickle.UnpicklingError(f"not plain data: {module}.{name}")


@pytest.fixture(scope="module")
def target(shared_dir: Path) -> Path:
    return shared_dir / "corpus" / "jaffle-shop" / "target"


def test_the_analyzer_hands_back_plain_data(target: Path) -> None:
    try:
        packed = _analyzer().submit(analyzed_lineages, target).result()
    finally:
        stop_analyzer()
    assert len(packed) > 10
    again = _PlainOnly(io.BytesIO(pickle.dumps(packed))).load()
    assert again == packed


def test_records_made_from_what_is_handed_back_are_the_analysis(target: Path) -> None:
    made = analyzed_input(target, packed=analyzed_lineages(target))
    analyzed = analyzed_input(target)
    assert made.lineages == analyzed.lineages
    assert made == analyzed
