"""Column names as users type them (``orders.amount``, ``model.shop.orders."ID"``), resolved to
one column with suggestions for typos. One resolver for every way in: a stored build
(:class:`catalog.query.BuildView`) and a project analyzed in memory
(:class:`catalog.lineage.records.LineageGraph`)."""

from __future__ import annotations

import difflib
import heapq
import itertools
import operator
from collections.abc import Callable, Collection, Mapping
from typing import NamedTuple, Protocol, TypeVar

from catalog.errors import Ambiguous, NotFound
from catalog.idents import column_name
from catalog.store.keys import quote_column, split_quoted_column

T = TypeVar("T")

# (model name or unique id, lower case; column name as the dialect names it) -> the columns
NameIndex = Mapping[tuple[str, str], Collection[T]]


def column_splits(text: str, dialect: str | None = None) -> list[tuple[str, str]]:
    """The (model, column) a user's column name may mean, most likely first. The model part
    is compared lower-case; the column is named as SQL of the project's dialect names it
    (:mod:`catalog.idents`): in double quotes it keeps its case where the dialect says so
    (``orders."ID"`` in Postgres), unquoted it folds. Without quotes a column may hold dots
    (``orders.a.b``): the longest model part that names a model wins."""
    text = text.strip()
    quoted = split_quoted_column(text)
    if quoted is not None:
        return [(quoted[0].lower(), column_name(quoted[1], dialect, quoted=True))] if quoted[0] else []
    splits: list[tuple[str, str]] = []
    end = len(text)
    while (dot := text.rfind(".", 0, end)) > 0:
        if dot + 1 < len(text):
            splits.append((text[:dot].lower(), column_name(text[dot + 1 :], dialect)))
        end = dot
    return splits


def require_splits(text: str, dialect: str | None) -> list[tuple[str, str]]:
    splits = column_splits(text, dialect)
    if not splits:
        raise NotFound(f"{text!r}: name a column as MODEL.COLUMN (for example orders.amount)")
    return splits


def resolve_column(
    text: str,
    dialect: str | None,
    index: Callable[[], NameIndex[T]],
    key: Callable[[T], str],
    label: Callable[[T], str],
    where: str,
    hits: Collection[T] = (),
    suggestions: Callable[[], NameReader] | None = None,
) -> T:
    """The one column ``text`` names. ``index`` gives every column by its name forms (called
    only when ``hits``, the columns a faster lookup found, are none); ``label`` names a
    column unambiguously (``model.shop.orders.amount``); ``where`` ends the message of a
    miss (``in project 'shop' (build 3)``); ``suggestions``: where the suggestions of a miss
    read the column names, when they come cheaper than ``index`` (from it otherwise)."""
    splits = require_splits(text, dialect)
    if not hits and suggestions is None:
        by_form = index()
        hits = next((by_form[s] for s in splits if s in by_form), ())
    unique = {key(c): c for c in hits}
    if len(unique) == 1:
        return next(iter(unique.values()))
    if unique:
        listed = ", ".join(sorted(label(c) for c in unique.values()))
        raise Ambiguous(f"{text!r} is ambiguous; name one of: {listed}")
    said = suggest_read(text, suggestions(), dialect) if suggestions is not None else suggest(text, names_by_model(index()), dialect)
    raise NotFound(f"no column {text!r} {where}{said}")


# model form (a model's name or unique id, lower case) -> the names of its columns
NamesByModel = Mapping[str, Collection[str]]


def names_by_model(index: NameIndex[T]) -> dict[str, list[str]]:
    """The column names of each model form of ``index``."""
    out: dict[str, list[str]] = {}
    for model, name in index:
        out.setdefault(model, []).append(name)
    return out


def suggest(text: str, names: NamesByModel, dialect: str | None = None) -> str:
    """``; did you mean ...?`` with the closest of the labels ``MODEL.COLUMN`` of ``names``,
    written so that they work when pasted back (the model part as given, lower case), else
    the columns of the model the text starts with. The labels are compared as difflib's
    ``get_close_matches`` compares them (:data:`CUTOFF`, the five closest; the first of those
    that differ only in case), only those that may be close (:func:`closest`)."""
    return _suggestion(text, closest(text.strip().lower(), names), lambda model: names.get(model, ()), dialect)


def suggest_read(text: str, reader: NameReader, dialect: str | None = None) -> str:
    """:func:`suggest` of every label ``reader`` holds, reading only those that may be
    suggested (:func:`closest_read`)."""
    return _suggestion(text, closest_read(text.strip().lower(), reader), lambda model: _labels(reader, [key for _, _, key in reader.of_models([model])]).get(model, ()), dialect)


def _suggestion(text: str, close: list[str], of_model: Callable[[str], Collection[str]], dialect: str | None) -> str:
    if close:
        return f"; did you mean {', '.join(close)}?"
    splits = column_splits(text, dialect)
    model = splits[0][0] if splits else ""
    cols = sorted({quote_column(name) for name in of_model(model)}) if model else []
    return f"; {model} has: {', '.join(cols[:20])}" if cols else ""


# (model form, column name, column key): a label a column node gives, in some build
Candidate = tuple[str, str, str]


class Pairs(NamedTuple):
    """The labels that may reach a bar, by their parts: those of a column name of ``needs``
    and a model form whose value in ``values`` is at least the name's need
    (:meth:`LabelBound.pairs`)."""

    needs: dict[str, float]  # column name -> its need
    values: dict[str, float]  # model form -> its value


class NameReader(Protocol):
    """The column names of a build kept elsewhere (a stored build), read as a miss's
    suggestions need them: the names alone first, then the labels of the few column names or
    model forms that may be suggested, and of those the few whose bound passes."""

    def vocabulary(self) -> tuple[Collection[str], Callable[[], Collection[str]]]:
        """Every model form (a model's name or unique id, lower case) of the build, and what
        gives the column names: every one the build holds (more do no harm: they are only
        compared), which may be read while the model forms are compared."""
        ...

    def named(self, names: Collection[str], pairs: Pairs | None = None) -> list[Candidate]:
        """The labels of the columns named one of ``names`` (with ``pairs``, those it keeps):
        every one the build holds, more do no harm (:meth:`labels` reads which the build holds)."""
        ...

    def of_models(self, models: Collection[str], pairs: Pairs | None = None) -> list[Candidate]:
        """The labels of the columns of the model forms ``models``, as :meth:`named` gives them."""
        ...

    def labels(self, keys: Collection[str]) -> NamesByModel:
        """The columns of the build among those of ``keys``."""
        ...


FIRST_NAMES = 64  # column names read first, the likeliest: their labels set the bar for the rest
FIRST_LABELS = 256  # of their labels, those compared first


def closest_read(word: str, reader: NameReader) -> list[str]:
    """:func:`closest` of every label ``reader`` holds, reading few. Each column name and each
    model form gets the most a label of it can score (:meth:`LabelBound.loose`, with the best
    part of each length on the other side). The best :data:`FIRST_LABELS` labels of the best
    :data:`FIRST_NAMES` names are compared, which gives a fifth best ratio (:data:`CUTOFF`
    short of five): the bar. Then the labels of the names, or of the model forms (the fewer),
    whose most reaches the bar, and of those the labels whose two parts together may reach it
    (:meth:`LabelBound.pairs`), are bounded one by one, and those that reach it compared too.
    No label left out can be among the five."""
    models, column_names = reader.vocabulary()
    bound = LabelBound(word)
    bound.score_all(list(models))
    typed = {name: quote_column(name).lower() for name in column_names()}
    bound.score_all(list(typed.values()))
    name_most = _most_of_parts(bound, typed.values(), models)
    order = sorted(typed, key=lambda name: -name_most[typed[name]])
    pending = _bounded(bound, reader.named(order[:FIRST_NAMES]), typed)
    first = sorted(pending, key=lambda key: -pending[key])[:FIRST_LABELS]
    read = _labels(reader, first)
    found = _closest(word, read)
    bar = found[-1][0] if len(found) == SUGGESTED else CUTOFF
    rest = list(itertools.takewhile(lambda name: name_most[typed[name]] >= bar, order[FIRST_NAMES:]))  # best first
    if rest:
        model_most = _most_of_parts(bound, models, typed.values())
        forms = [model for model in models if model_most[model] >= bar]
        pairs = bound.pairs(bar, {name: typed[name] for name in rest}, forms)
        pending |= _bounded(bound, reader.named(rest, pairs) if len(rest) / len(typed) <= len(forms) / len(models) else reader.of_models(forms, pairs), typed)
    done = set(first)
    more = [key for key, most in pending.items() if most >= bar and key not in done]
    if more:
        for model, columns in _labels(reader, more).items():
            read.setdefault(model, []).extend(columns)
        found = _closest(word, read)
    return [label for _, label in found]


def _bounded(bound: LabelBound, labels: list[Candidate], typed: dict[str, str]) -> dict[str, float]:
    """The most each column of ``labels`` (by key) can score, of its labels; ``typed``: column
    names as users type them, lower case."""
    most: dict[str, float] = {}
    for model, name, key in labels:
        column = typed.get(name)
        if column is None:
            column = typed[name] = quote_column(name).lower()
        loose = bound.loose(model, column)
        if loose > most.get(key, 0.0):
            most[key] = loose
    return most


def _labels(reader: NameReader, keys: Collection[str]) -> dict[str, list[str]]:
    return {model: list(columns) for model, columns in reader.labels(keys).items()} if keys else {}


def _most_of_parts(bound: LabelBound, parts: Collection[str], others: Collection[str]) -> dict[str, float]:
    """The most a label of each of ``parts`` and one of ``others`` (on the other side of its
    dot) can score: :meth:`LabelBound.loose_of` with the best of ``others`` of each length. Of
    those lengths, only one whose best common subsequence with the word is longer than that of
    every shorter one can give the most (a longer part with no more letters in common scores less)."""
    score_of = bound.score
    best: dict[int, int] = {}  # a length -> the best score of one of others that long
    for other in others:
        found = score_of(other)
        if found > best.get(len(other), -(10**9)):
            best[len(other)] = found
    frontier: list[tuple[int, int]] = []  # (length, its best score), longer common subsequences as they get longer
    for length in sorted(best):
        if not frontier or best[length] + 3 * length > frontier[-1][1] + 3 * frontier[-1][0]:
            frontier.append((length, best[length]))
    most: dict[tuple[int, int], float] = {}  # (score, length) of a part -> its most
    out: dict[str, float] = {}
    for part in parts:
        key = (score_of(part), len(part))
        found_most = most.get(key)
        if found_most is None:
            found_most = most[key] = max((bound.loose_of(*key, score, length) for length, score in frontier), default=0.0)
        out[part] = found_most
    return out


def closest(word: str, names: NamesByModel) -> list[str]:
    """The labels difflib's ``get_close_matches(word, labels, n=5, cutoff=CUTOFF)`` gives
    (compared lower case), asking difflib about them best bound first (:class:`LabelBound`)
    and stopping where no later label can be among the five."""
    return [label for _, label in _closest(word, names)]


def _closest(word: str, names: NamesByModel) -> list[tuple[float, str]]:
    """:func:`closest`'s labels with their ratios, best first."""
    bound = LabelBound(word)
    typed = {name: quote_column(name).lower() for name in set().union(*names.values())}
    bound.score_all([*names, *typed.values()])
    scored = {name: (low, bound.score(low)) for name, low in typed.items()}  # as users type it, lower case; its score
    found: list[tuple[float, str, str]] = []  # (-loose bound, model, name)
    for model, columns in names.items():
        floor = bound.need - bound.score(model)
        found += [(-bound.loose(model, scored[name][0]), model, name) for name in columns if scored[name][1] >= floor]
    found.sort()
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    best: list[tuple[float, str]] = []  # a heap of the five best (ratio, lower-case label) so far
    shown: dict[str, str] = {}  # lower-case label -> as users type it
    for loose, model, name in found:
        if len(best) == SUGGESTED and -loose < best[0][0]:
            break
        column = scored[name][0]
        low = f"{model}.{column}"
        if low in shown or bound.most(model, column) < (best[0][0] if len(best) == SUGGESTED else CUTOFF):
            continue
        shown[low] = f"{model}.{quote_column(name)}"
        matcher.set_seq1(low)
        if matcher.real_quick_ratio() >= CUTOFF and matcher.quick_ratio() >= CUTOFF and matcher.ratio() >= CUTOFF:
            heapq.heappush(best, (matcher.ratio(), low))
            if len(best) > SUGGESTED:
                heapq.heappop(best)
    return [(ratio, shown[low]) for ratio, low in heapq.nlargest(SUGGESTED, best)]


CUTOFF = 0.6  # difflib's ratio a suggestion needs
SUGGESTED = 5  # suggestions at most


class LabelBound:
    """Which labels (``model.column``, lower case) can be a close match of ``word``, decided
    from their two parts without comparing the labels themselves. difflib's ratio of two
    texts is 2 M / (their lengths), where its M matching letters are a common subsequence,
    so M is at most their longest common subsequence (LCS). That of a label and the word is
    at most the model part's LCS with the word's first k letters, plus its dot, plus the
    column part's with the rest, for the best k (:meth:`tight`); more loosely, the parts'
    LCS with the whole word (:meth:`score`, one number per part). A label whose bound falls
    short of :data:`CUTOFF` cannot be suggested; the rest are compared as difflib does."""

    def __init__(self, word: str):
        self.word = word
        self._masks = _letter_masks(word)
        self._back_masks = _letter_masks(word[::-1])
        self._dot = 1 if "." in word else 0
        self._scores: dict[str, int] = {}
        self._heads: dict[str, list[int]] = {}
        self._tails: dict[str, list[int]] = {}
        # a label passes when score(model) + score(column) >= need: CUTOFF is 3/10, in integers
        self.need = 3 * (1 + len(word)) - 10 * self._dot

    def score_all(self, parts: list[str]) -> None:
        """:meth:`score` of each of ``parts``: those of one length and in ASCII together, each in
        a lane of one large integer (:func:`_lcs_lanes`, four times as fast as one by one on
        tens of thousands of names), the others one by one."""
        size = len(self.word)
        by_length: dict[int, list[str]] = {}
        for part in set(parts) - self._scores.keys():
            if part.isascii() and size <= LANES_UP_TO:
                by_length.setdefault(len(part), []).append(part)
            else:
                self.score(part)
        # one table per byte of a lane: an ASCII letter -> that byte of its mask
        tables = [bytes((self._masks.get(chr(c), 0) >> (8 * k)) & 0xFF for c in range(256)) for k in range(size // 8 + 1)]
        for length, group in by_length.items():
            for part, lcs in zip(group, _lcs_lanes(group, length, tables, size)):
                self._scores[part] = 10 * lcs - 3 * length

    def score(self, part: str) -> int:
        """What a label's part (lower case) may add to the match, less what its length costs."""
        found = self._scores.get(part)
        if found is None:
            found = self._scores[part] = 10 * _lcs_bits(part, self._masks, len(self.word)).bit_count() - 3 * len(part)
        return found

    def loose(self, model: str, column: str) -> float:
        """The most difflib's ratio of ``model.column`` and the word can be, from :meth:`score`."""
        return self.loose_of(self.score(model), len(model), self.score(column), len(column))

    def loose_of(self, model_score: int, model_length: int, column_score: int, column_length: int) -> float:
        """:meth:`loose` of a model part and a column part of these scores and lengths (the
        same with the two parts swapped)."""
        lcs = (model_score + 3 * model_length + column_score + 3 * column_length) // 10 + self._dot
        return 2.0 * lcs / (model_length + 1 + column_length + len(self.word))

    def pairs(self, bar: float, columns: Mapping[str, str], models: Collection[str]) -> Pairs:
        """Which labels of a model form of ``models`` and a column of ``columns`` (a name -> as
        users type it, lower case) :meth:`loose` may put at ``bar`` or above. That bound is
        2 (LCS of the model + LCS of the column + dot) / (their lengths + 1 + the word's), so it
        reaches the bar where the model's value, 2 LCS - bar x its length, is at least the
        column's need, bar x (its length + 1 + the word's) - 2 (LCS + dot); the needs a little
        lower, so that no rounding leaves out a label that passes."""
        def lcs(part: str) -> int:
            return (self.score(part) + 3 * len(part)) // 10

        size = len(self.word)
        needs = {name: bar * (len(column) + 1 + size) - 2 * (lcs(column) + self._dot) - 1e-6 for name, column in columns.items()}
        return Pairs(needs, {model: 2 * lcs(model) - bar * len(model) for model in models})

    def most(self, model: str, column: str) -> float:
        """The most difflib's ratio of ``model.column`` and the word can be, with the model
        part matched in the word's first letters and the column part in the rest."""
        heads = self._heads.get(model)
        if heads is None:
            heads = self._heads[model] = _prefix_counts(_lcs_bits(model, self._masks, len(self.word)), len(self.word))
        tails = self._tails.get(column)
        if tails is None:
            tails = self._tails[column] = _prefix_counts(_lcs_bits(column[::-1], self._back_masks, len(self.word)), len(self.word))[::-1]
        most = max(map(operator.add, heads, tails)) + self._dot
        return 2.0 * most / (len(model) + 1 + len(column) + len(self.word))


def _letter_masks(word: str) -> dict[str, int]:
    masks: dict[str, int] = {}
    for i, ch in enumerate(word):
        masks[ch] = masks.get(ch, 0) | (1 << i)
    return masks


def _lcs_bits(text: str, masks: dict[str, int], size: int) -> int:
    """The longest common subsequences of ``text`` and the word of ``masks`` (``size``
    letters), bit-parallel (Allison and Dix, 1986; Hyyrö, 2004): the bits set in the
    result's lowest k count the LCS of ``text`` and the word's first k letters."""
    full = (1 << size) - 1
    s = full
    for ch in text:
        u = s & masks.get(ch, 0)
        s = ((s + u) | (s - u)) & full
    return ~s & full


POPCOUNT = bytes(bin(b).count("1") for b in range(256))  # a byte -> how many of its bits are set
LANES_UP_TO = 240  # letters of the longest word scored in lanes: a lane's count of set bits fits in a byte


def _lcs_lanes(parts: list[str], length: int, tables: list[bytes], size: int) -> list[int]:
    """The longest common subsequence of each of ``parts`` (ASCII, all ``length`` letters long)
    and the word of ``size`` letters: :func:`_lcs_bits` of every part at once. Each part has a
    lane of bytes of one large integer, one byte more than the word's bits need, so that a carry
    goes no further (no borrow crosses lanes either: what is subtracted is a part of what it is
    subtracted from). Letter by letter, the masks of the parts' k-th letters are made, a byte of
    every lane at a time, by ``bytes.translate`` with ``tables`` (one per byte of a lane: a
    letter -> that byte of its mask), and every lane goes one step."""
    width = len(tables)  # bytes of a lane
    count = len(parts)
    full = int.from_bytes(((1 << size) - 1).to_bytes(width, "little") * count, "little")
    text = "".join(parts).encode("ascii")
    letters = bytearray(width * count)
    s = full
    for k in range(length):
        column = text[k::length]  # the k-th letter of each part
        for byte, table in enumerate(tables):
            letters[byte::width] = column.translate(table)
        u = s & int.from_bytes(letters, "little")
        s = ((s + u) | (s - u)) & full
    # the bits left set in each lane: each byte's, summed over the lane's bytes (at most 8 each,
    # within a byte for a word of at most LANES_UP_TO letters)
    ones = s.to_bytes(width * count, "little").translate(POPCOUNT)
    summed = sum(int.from_bytes(ones[byte::width], "little") for byte in range(width)).to_bytes(count, "little")
    return [size - n for n in summed]


def _prefix_counts(bits: int, size: int) -> list[int]:
    """How many of ``bits``' lowest k bits are set, for k from 0 to ``size``."""
    return [(bits & ((1 << k) - 1)).bit_count() for k in range(size + 1)]
