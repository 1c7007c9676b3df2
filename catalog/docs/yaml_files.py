"""Column descriptions and PII tags written into a dbt project's YAML, and nothing else changed.

A file is read with ruamel.yaml's round-trip loader, in the indentation that gives it back
byte for byte, else the closest. What ruamel.yaml writes is never written for the file's own
lines: the lines an edit adds are put among them where they go, and every other line stays as
the file has it, also what ruamel.yaml does not keep (CRLF line ends, blanks at the end of a
line, block scalars indented deeper, a last line without a line end); an addition that falls
where the two cannot be told apart is refused, not guessed. Edits add what is
missing (a column entry, a ``columns`` list, a description, a ``pii`` tag) and never replace
what is there. Comments, order, quoting, Jinja (``{{ doc('x') }}``) and blank lines of the
rest stay as they were: a comment after the last entry of a list stays with that entry, and
the blank lines that ended it move below what is added.
"""

from __future__ import annotations

import copy
import difflib
import io
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from catalog.errors import CatalogError
from catalog.idents import column_name

# (mapping, sequence, offset) indents tried in turn: the first that gives a file back unchanged is used
INDENTS = ((2, 4, 2), (2, 2, 0), (4, 4, 2), (4, 6, 4), (4, 4, 0), (3, 5, 2), (3, 3, 0))
NEW_FILE_INDENT = (2, 4, 2)
PII_TAG = "pii"
SECTIONS = {"model": "models", "snapshot": "snapshots"}


class ColumnEdit(BaseModel, frozen=True):
    """What to add to one column's YAML entry."""

    resource_type: str  # model | snapshot
    model: str  # the dbt name of the model or snapshot
    column: str  # as catalog.idents writes it: lower case, or "ID" in double quotes
    description: str | None = None  # written when the entry has none
    pii: bool = False  # tag the column pii when it is not tagged so
    version: str | None = None  # a versioned model: into that version's own columns: (None: the top-level ones)
    copy_top: bool = False  # a new entry in the version's list starts as a copy of the top-level entry


class YamlChange(BaseModel, frozen=True):
    """One YAML file's text before (None: a new file) and after the edits."""

    path: str  # relative to the project folder, with forward slashes
    before: str | None
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after


def _yaml(indent: tuple[int, int, int]) -> Any:
    from ruamel.yaml import YAML

    y = YAML()
    y.preserve_quotes = True
    y.width = 1 << 20  # never fold a long line
    y.indent(mapping=indent[0], sequence=indent[1], offset=indent[2])
    return y


def _dump(y: Any, doc: Any) -> str:
    out = io.StringIO()
    y.dump(doc, out)
    return out.getvalue()


def _load(path: Path, text: str) -> tuple[Any, Any, str]:
    """The YAML object that writes the file back, the document and what it writes: ``text``
    itself where an indentation gives it back byte for byte, else the closest (``_merged``
    then keeps the file's own lines)."""
    from ruamel.yaml import YAMLError

    plain = _plain(text)
    closest: tuple[int, Any, Any, str] | None = None
    for indent in INDENTS:
        y = _yaml(indent)
        try:
            doc = y.load(plain)
        except YAMLError as e:
            first = str(e).strip().splitlines()
            raise CatalogError(f"{path}: not valid YAML ({first[0] if first else type(e).__name__})") from e
        out = _dump(y, doc)
        ours = _lines(plain)
        if out == text or _lines(out) == ours:  # byte for byte, or but for line ends and blanks at their end
            return y, doc, out
        # lines of keys and list items kept as they are (block scalars' text is never written
        # anew, so its indentation tells nothing)
        same = sum(1 for m in _align(plain, out).get_matching_blocks() for line in ours[m.a : m.a + m.size] if _KEY.match(line))
        if closest is None or same > closest[0]:
            closest = (same, y, doc, out)
    assert closest is not None
    return closest[1:]


_KEY = re.compile(r"^\s*(?:- |-$|[^\s#'\"][^:#]*:(?:\s|$)|['\"][^'\"]*['\"]:(?:\s|$))")


def _plain(text: str) -> str:
    """``text`` with LF line ends, the last line's included (what ruamel.yaml writes)."""
    text = text.replace("\r\n", "\n")
    return text + "\n" if text and not text.endswith("\n") else text


def _lines(text: str) -> list[str]:
    """The lines of LF-ended ``text``, without their blanks at the end."""
    return [line.rstrip(" \t\r") for line in text.split("\n")[:-1]]


def _align(a: str, b: str) -> difflib.SequenceMatcher:
    """The lines two texts share, in order (frequent lines, ``tests:``, only where they extend a
    match of others, which keeps a file of thousands of lines quick)."""
    return difflib.SequenceMatcher(None, _lines(a), _lines(b))


def edit_yaml_file(project_dir: Path, relative: str, edits: list[ColumnEdit], dialect: str, new_file: bool) -> YamlChange:
    """``relative``'s text with ``edits`` applied (the file is not written); a ``new_file``
    that does not exist yet starts as ``version: 2``."""
    path = project_dir / relative
    if path.exists():
        try:
            with open(path, encoding="utf-8", newline="") as f:  # its line ends as they are
                before: str | None = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise CatalogError(f"{path}: cannot read it ({getattr(e, 'strerror', None) or e})") from e
        y, doc, base = _load(path, before)  # type: ignore[arg-type]
    elif new_file:
        from ruamel.yaml.comments import CommentedMap

        before, y, doc, base = None, _yaml(NEW_FILE_INDENT), CommentedMap([("version", 2)]), ""
    else:
        raise CatalogError(f"{path}: the manifest names this YAML file, but it is not there (run dbt parse again)")
    if doc is None:
        from ruamel.yaml.comments import CommentedMap

        doc = CommentedMap()
    if not hasattr(doc, "insert"):
        raise CatalogError(f"{path}: the file is not a YAML mapping (dbt's properties files are)")
    config_style = _uses_config(doc)
    for edit in edits:
        entry = _column_entry(path, doc, edit, dialect)
        if edit.description is not None and not str(entry.get("description") or "").strip():
            _set(entry, "description", _text(edit.description), position=1)
        if edit.pii:
            _tag_pii(entry, config_style)
    after = _dump(y, doc)
    if before is None:  # a blank line under the version, as dbt's own files have it
        after = after.replace("version: 2\n", "version: 2\n\n", 1)
    elif base != before:
        merged = _merged(before, base, after)
        if merged is None:
            raise CatalogError(
                f"{path}: cannot be edited without changing lines no edit touches (its indentation or layout is "
                "not one ruamel.yaml writes back as it is); add the descriptions by hand"
            )
        after = merged
    return YamlChange(path=relative, before=before, after=after)


def _merged(original: str, base: str, edited: str) -> str | None:
    """The file ``original`` with the lines ruamel.yaml's edit added to its own text ``base``
    (giving ``edited``), each added where it goes among the file's own lines, which all stay as
    they are: line ends (added lines end as the file's do, CRLF when they all do), blanks at
    the end, block scalars as indented, a last line without a line end. None when an addition
    falls where ``base`` and the file differ, or an edit changes a line they do not share."""
    lines = original.split("\n")  # each with the CR of its CRLF
    final_newline = lines[-1] == ""
    ended = lines[:-1]  # the lines followed by a line end
    if final_newline:
        lines.pop()
    cr = "\r" if ended and all(line.endswith("\r") for line in ended) else ""
    # base line i is file line mapped[i] where they agree; a gap before base line i (or at its
    # end) is the gap before file line gaps[i]
    mapped: dict[int, int] = {}
    gaps: dict[int, int] = {}
    for op, i1, i2, j1, j2 in _align(_plain(original), base).get_opcodes():
        if op == "equal":
            for k in range(i2 - i1):
                mapped[j1 + k] = i1 + k
                gaps.setdefault(j1 + k, i1 + k)
            gaps.setdefault(j2, i2)
        else:  # a gap where the file has lines base lacks: right after the file's line before them
            gaps.setdefault(j1, i1)
            gaps.setdefault(j2, i2)
    added: dict[int, list[str]] = defaultdict(list)  # file gap -> lines added there
    replaced: dict[int, list[str]] = {}  # file line -> the lines that take its place
    for op, i1, i2, j1, j2 in _align(base, edited).get_opcodes():
        if op == "equal":
            continue
        new = [line + cr for line in edited.split("\n")[j1:j2]]
        if op == "insert":
            if i1 not in gaps:
                return None
            added[gaps[i1]] += new
            continue
        if any(i not in mapped for i in range(i1, i2)) or i1 == i2:
            return None
        for i in range(i1, i2):
            replaced[mapped[i]] = []
        replaced[mapped[i1]] = new
    out: list[str] = []
    unended = None  # where the file's last line is in ``out``, when it has no line end and stays
    for n in range(len(lines) + 1):
        out += added.get(n, [])
        if n < len(lines):
            out += replaced.get(n, [lines[n]])
            if n == len(lines) - 1 and n not in replaced:
                unended = len(out) - 1
    if final_newline:
        return "\n".join(out) + "\n"
    last = len(out) - 1
    if unended is not None and unended < last:
        out[unended] += cr  # lines follow it now
    if unended != last and cr:
        out[last] = out[last][: -len(cr)]  # an added line is the last: no line end, as the file's was
    return "\n".join(out)


# ---------------------------------------------------------------------------- finding entries
def _column_entry(path: Path, doc: Any, edit: ColumnEdit, dialect: str) -> Any:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    section = SECTIONS[edit.resource_type]
    if doc.get(section) is None:
        _set(doc, section, CommentedSeq())
    entries = doc[section]
    if not isinstance(entries, list):
        raise CatalogError(f"{path}: {section} is not a list")
    model = next((m for m in entries if isinstance(m, dict) and m.get("name") == edit.model), None)
    if model is None:
        model = CommentedMap([("name", edit.model)])
        _append(entries, model)
    if edit.version is None:
        columns = _columns(path, model, f"{section} {edit.model}")
    else:
        columns = _columns(path, _version(path, model, edit), f"{section} {edit.model} version {edit.version}")
    found = _find(columns, edit.column, dialect)
    if found is not None:
        return found
    top = model.get("columns")
    source = _find(top, edit.column, dialect) if edit.copy_top and isinstance(top, list) else None
    if source is not None:
        entry = _plain_copy(source)
    else:
        entry = CommentedMap([("name", edit.column.strip('"'))])
        if edit.column.startswith('"'):
            entry["quote"] = True
    _append(columns, entry)
    return entry


def _columns(path: Path, holder: Any, what: str) -> Any:
    """``holder``'s ``columns:`` list, added when it has none."""
    from ruamel.yaml.comments import CommentedSeq

    if holder.get("columns") is None:
        _set(holder, "columns", CommentedSeq())
    columns = holder["columns"]
    if not isinstance(columns, list):
        raise CatalogError(f"{path}: {what}: columns is not a list")
    return columns


def _find(columns: Any, column: str, dialect: str) -> Any:
    for c in columns:
        if isinstance(c, dict) and isinstance(c.get("name"), str):
            if column_name(c["name"], dialect, quoted=bool(c.get("quote"))) == column:
                return c
    return None


def _version(path: Path, model: Any, edit: ColumnEdit) -> Any:
    """The ``versions:`` entry of ``edit``'s version."""
    for v in model.get("versions") or []:
        if isinstance(v, dict) and "v" in v and str(v["v"]) == edit.version:
            return v
    raise CatalogError(f"{path}: models {edit.model} has no version v: {edit.version} (run dbt parse again)")


def _plain_copy(node: Any) -> Any:
    """A copy of a YAML node without its comments (they stay with the original)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(node, CommentedMap):
        out = CommentedMap((k, _plain_copy(v)) for k, v in node.items())
    elif isinstance(node, CommentedSeq):
        out = CommentedSeq(_plain_copy(v) for v in node)
    else:
        return copy.copy(node)
    if node.fa.flow_style():
        out.fa.set_flow_style()
    return out


def _uses_config(doc: Any) -> bool:
    """Whether the file's columns keep tags and meta under ``config`` (dbt 1.10's place)."""
    for section in SECTIONS.values():
        for m in doc.get(section) or []:
            for c in (m.get("columns") or []) if isinstance(m, dict) else []:
                if isinstance(c, dict) and isinstance(c.get("config"), dict):
                    return True
                if isinstance(c, dict) and ("tags" in c or "meta" in c):
                    return False
    return True


def _tag_pii(entry: Any, config_style: bool) -> None:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    def flow(*tags: Any) -> Any:
        seq = CommentedSeq(tags)
        seq.fa.set_flow_style()
        return seq

    config = entry.get("config")
    if isinstance(config, dict) and ("tags" in config or "tags" not in entry):
        holder = config
    elif "tags" not in entry and config_style:
        _set(entry, "config", CommentedMap([("tags", flow(PII_TAG))]))  # whole, so a comment below moves below it
        return
    else:
        holder = entry
    tags = holder.get("tags")
    if tags is None:
        _set(holder, "tags", flow(PII_TAG))
    elif isinstance(tags, str):
        if tags.lower() != PII_TAG:
            holder["tags"] = flow(tags, PII_TAG)
    elif isinstance(tags, list) and PII_TAG not in [str(t).lower() for t in tags]:
        _append(tags, PII_TAG)


def _text(description: str) -> Any:
    if "\n" in description:
        from ruamel.yaml.scalarstring import LiteralScalarString

        return LiteralScalarString(description.rstrip("\n") + "\n")
    return description


# ---------------------------------------------------------------------------- adding, comments kept in place
def _set(mapping: Any, key: str, value: Any, position: int | None = None) -> None:
    """Add ``key`` to ``mapping`` (at ``position``, else last)."""
    at = len(mapping) if position is None or position >= len(mapping) else position
    if at < len(mapping):
        mapping.insert(at, key, value)
        return
    before = _last_holder(mapping)
    mapping[key] = value
    _move_tail(before, _last_holder(mapping), _column(mapping))


def _append(seq: Any, value: Any) -> None:
    before = _last_holder(seq)
    seq.append(value)
    _move_tail(before, _last_holder(seq), _column(seq))


def _column(node: Any) -> int:
    """The column ``node`` starts at in its file (a sequence: its dashes'); 0 for a new node."""
    lc = getattr(node, "lc", None)
    return (lc.col if lc is not None else None) or 0


def _last_holder(node: Any) -> tuple[Any, Any, int] | None:
    """Where the comment after ``node``'s last line is kept: (container, key, slot)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    holder = None
    while isinstance(node, (CommentedMap, CommentedSeq)) and len(node):
        if isinstance(node, CommentedMap):
            key = list(node.keys())[-1]
            holder, node = (node, key, 2), node[key]
        else:
            holder, node = (node, len(node) - 1, 0), node[-1]
        if getattr(node, "fa", None) is not None and node.fa.flow_style():
            break  # a flow collection ends on its own line: the comment is its container's
    return holder


def _move_tail(before: tuple[Any, Any, int] | None, after: tuple[Any, Any, int] | None, indent: int) -> None:
    """The blank lines (and the comments left of ``indent`` they lead to) that ended the old
    last line now end the new one; the comment lines right under the old last line, at
    ``indent`` or right of it, stay there."""
    if before is None or after is None or before[:2] == after[:2]:
        return
    container, key, slot = before
    items = container.ca.items.get(key)
    if not items or len(items) <= slot or items[slot] is None:
        return
    token = items[slot]
    value = token.value
    if value.startswith("\n"):
        prefix, rest = "\n", value[1:]
    else:  # a comment at the end of the last line itself
        end = value.find("\n")
        if end < 0:
            return
        prefix, rest = value[: end + 1], value[end + 1 :]
    lines = rest.split("\n")
    keep = 0
    for line in lines:
        stripped = line.lstrip(" ")
        if not stripped.startswith("#") or len(line) - len(stripped) < indent:
            break
        keep += 1
    head, tail = lines[:keep], lines[keep:]
    if not any(tail) and len(tail) <= 1:
        return  # nothing but the end of the last line
    token.value = prefix + "".join(f"{line}\n" for line in head)
    moved = copy.copy(token)
    moved.value = "\n" + "\n".join(tail)
    target, tkey, tslot = after
    slots = target.ca.items.setdefault(tkey, [None] * 4)
    while len(slots) <= tslot:
        slots.append(None)
    slots[tslot] = moved


# ---------------------------------------------------------------------------- showing
def unified_diff(change: YamlChange) -> str:
    """``git diff``'s form of one change: ``a/`` and ``b/`` paths, ``/dev/null`` for a new file."""
    old = (change.before or "").splitlines(keepends=True)
    new = change.after.splitlines(keepends=True)
    lines = difflib.unified_diff(
        old, new, fromfile="/dev/null" if change.before is None else f"a/{change.path}", tofile=f"b/{change.path}"
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
