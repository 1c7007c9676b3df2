"""The suggestions of a mistyped column name (catalog/lineage/names.py) against difflib's
``get_close_matches`` over every label of a project, on corpus projects and a synthetic one:
the bounds that spare most labels a comparison never drop one difflib would suggest."""

from __future__ import annotations

import difflib
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from catalog.lineage.names import Candidate, LabelBound, Pairs, closest, names_by_model, suggest, suggest_read
from catalog.mcp.stored import analyzed_input
from catalog.mcp.view import ProjectView
from catalog.store.keys import quote_column

LETTERS = "abcdefghijklmnopqrstuvwxyz_.0123456789"


def _typos(labels: list[str], count: int, seed: int) -> list[str]:
    """``count`` labels with one to six letters deleted, inserted or replaced."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        word = list(rng.choice(labels))
        for _ in range(rng.randint(1, 6)):
            i = rng.randrange(len(word))
            what = rng.random()
            if what < 0.33 and len(word) > 1:
                del word[i]
            elif what < 0.66:
                word.insert(i, rng.choice(LETTERS))
            else:
                word[i] = rng.choice(LETTERS + "ABC\"")
        out.append("".join(word))
    return out


def _difflib_answer(word: str, names: dict[str, list[str]]) -> list[str]:
    """difflib over every label, as the resolver asked it before it bounded the labels."""
    by_lower: dict[str, str] = {}
    for model in sorted(names):
        for name in sorted(names[model]):
            label = f"{model}.{quote_column(name)}"
            by_lower.setdefault(label.lower(), label)
    return [by_lower[c] for c in difflib.get_close_matches(word.strip().lower(), list(by_lower), n=5, cutoff=0.6)]


def _names(view: ProjectView) -> dict[str, list[str]]:
    return names_by_model(view._name_index())


@pytest.fixture(scope="module")
def synth_view(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> ProjectView:
    out = tmp_path_factory.mktemp("synth")
    tool = shared_dir / "tools" / "synth_dbt.py"
    subprocess.run([sys.executable, str(tool), "--models", "120", "--seed", "5", "--out", str(out), "--quiet"], check=True)
    return ProjectView(analyzed_input(out / "target"))


@pytest.mark.parametrize("corpus", ["jaffle-shop", "fivetran-hubspot"])
def test_corpus_suggestions_are_difflibs(shared_dir: Path, corpus: str):
    names = _names(ProjectView(analyzed_input(shared_dir / "corpus" / corpus / "target")))
    labels = sorted(f"{m}.{quote_column(n)}" for m, cols in names.items() for n in cols)
    words = _typos(labels, 20, seed=len(corpus))
    assert [closest(w.lower(), names) for w in words] == [_difflib_answer(w, names) for w in words]


def test_synth_suggestions_are_difflibs(synth_view: ProjectView):
    names = _names(synth_view)
    labels = sorted(f"{m}.{quote_column(n)}" for m, cols in names.items() for n in cols)
    words = _typos(labels, 15, seed=11) + ["x", "nothing.at_all", "model.synth."]
    found = [closest(w.lower(), names) for w in words]
    assert found == [_difflib_answer(w, names) for w in words]
    assert sum(1 for f in found if f) > len(words) // 2  # most typos have suggestions


def test_a_miss_without_close_names_lists_the_models_columns(synth_view: ProjectView):
    names = _names(synth_view)
    model = min(m for m in names if "." not in m)
    message = suggest(f"{model}.zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", names)
    assert message == f"; {model} has: {', '.join(sorted({quote_column(n) for n in names[model]})[:20])}"


class _Held:
    """The labels of ``names`` as a stored build gives them (:class:`catalog.lineage.names.NameReader`),
    with a column key of each (model form and name); counts the labels it is asked about."""

    def __init__(self, names: dict[str, list[str]]):
        self.names = names
        self.asked = 0

    def vocabulary(self) -> tuple[list[str], Callable[[], set[str]]]:
        return list(self.names), lambda: set().union(*self.names.values())

    def named(self, names, pairs: Pairs | None = None) -> list[Candidate]:
        wanted = set(names)
        return [(m, n, f"{m}\x00{n}") for m, cols in self.names.items() for n in cols if n in wanted and _kept(pairs, m, n)]

    def of_models(self, models, pairs: Pairs | None = None) -> list[Candidate]:
        return [(m, n, f"{m}\x00{n}") for m in models for n in self.names.get(m, ()) if _kept(pairs, m, n)]

    def labels(self, keys) -> dict[str, list[str]]:
        self.asked += len(keys)
        out: dict[str, list[str]] = {}
        for key in keys:
            model, name = key.split("\x00")
            out.setdefault(model, []).append(name)
        return out


def _kept(pairs: Pairs | None, model: str, name: str) -> bool:
    return pairs is None or (name in pairs.needs and model in pairs.values and pairs.values[model] >= pairs.needs[name])


def test_suggestions_read_from_a_few_labels_are_those_of_every_label(synth_view: ProjectView):
    names = _names(synth_view)
    labels = sorted(f"{m}.{quote_column(n)}" for m, cols in names.items() for n in cols)
    model = min(m for m in names if "." not in m)
    words = _typos(labels, 40, seed=5) + ["x", "nothing.at_all", "model.synth.", f"{model}.zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"]
    held = [_Held(names) for _ in words]
    assert [suggest_read(w, h) for w, h in zip(words, held)] == [suggest(w, names) for w in words]
    assert sorted(h.asked for h in held)[len(held) // 2] < len(labels) // 4  # most read few of the labels


@pytest.mark.parametrize("seed", range(30))
def test_the_bounds_are_never_below_difflibs_ratio(seed: int):
    rng = random.Random(seed)
    word = "".join(rng.choice(LETTERS) for _ in range(rng.randint(1, 30)))
    bound = LabelBound(word)
    for _ in range(50):
        model = "".join(rng.choice(LETTERS.replace(".", "")) for _ in range(rng.randint(1, 20)))
        column = "".join(rng.choice(LETTERS.replace(".", "")) for _ in range(rng.randint(1, 20)))
        ratio = difflib.SequenceMatcher(None, f"{model}.{column}", word).ratio()
        assert bound.most(model, column) >= ratio
        assert bound.loose(model, column) >= bound.most(model, column)


@pytest.mark.parametrize("seed", range(30))
def test_the_pairs_keep_every_label_whose_bound_reaches_the_bar(seed: int):
    rng = random.Random(seed)
    word = "".join(rng.choice(LETTERS) for _ in range(rng.randint(1, 30)))
    bound = LabelBound(word)
    models = ["".join(rng.choice(LETTERS.replace(".", "")) for _ in range(rng.randint(1, 20))) for _ in range(30)]
    columns = ["".join(rng.choice(LETTERS.replace(".", "")) for _ in range(rng.randint(1, 20))) for _ in range(30)]
    loose = sorted(bound.loose(m, c) for m in models for c in columns)
    for bar in {loose[0], loose[len(loose) // 2], loose[-1], 0.6}:
        pairs = bound.pairs(bar, {c: c for c in columns}, models)
        kept = {(m, c) for m in models for c in columns if _kept(pairs, m, c)}
        assert {(m, c) for m in models for c in columns if bound.loose(m, c) >= bar} <= kept


def _lcs(a: str, b: str) -> int:
    """The longest common subsequence's length, by the textbook table."""
    row = [0] * (len(b) + 1)
    for ch in a:
        diagonal = 0
        for j, other in enumerate(b):
            diagonal, row[j + 1] = row[j + 1], diagonal + 1 if ch == other else max(row[j + 1], row[j])
    return row[-1]


@pytest.mark.parametrize("length", [1, 7, 8, 9, 16, 40, 63, 64, 65, 240, 241, 300])
def test_every_score_at_once_is_each_ones(length: int):
    """:meth:`LabelBound.score_all` scores parts of one length together, in lanes of one large
    integer: the same as the longest common subsequence of each, also for words whose bits fill
    their lanes' bytes, past the longest word the lanes take, and for parts in and out of ASCII."""
    rng = random.Random(length)
    word = "".join(rng.choice(LETTERS + "é") for _ in range(length))
    parts = ["", "é", word[: length // 2], word + "x"]
    parts += ["".join(rng.choice(LETTERS + "éß") for _ in range(rng.randint(1, length + 5))) for _ in range(200)]
    parts += [word[i:] + rng.choice(LETTERS) for i in range(0, length, max(1, length // 10))]
    bound = LabelBound(word)
    bound.score_all(parts)
    assert {p: bound.score(p) for p in parts} == {p: 10 * _lcs(p, word) - 3 * len(p) for p in parts}
