"""The package's imports run one way: no import cycle among the modules of ``catalog/``, nor
among its parts (a subpackage such as ``catalog.store`` counts as one part), lazy imports
inside functions included; the local server's launcher imports nothing of the store."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "catalog"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(path: Path, typing_too: bool = False) -> set[str]:
    """The catalog modules a file imports, anywhere in it but under ``if TYPE_CHECKING:``
    (there too with ``typing_too``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = set() if typing_too else {
        id(n) for node in ast.walk(tree)
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
        for stmt in node.body for n in ast.walk(stmt)
    }  # fmt: skip
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.startswith("catalog"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.add(full if full in MODULES else node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("catalog"))
    return {m for m in found if m in MODULES}


def _part(module: str) -> str:
    """``catalog.store.graph`` -> ``catalog.store``; a top-level module is a part of its own."""
    return ".".join(module.split(".")[:2])


def _graph(unit, typing_too: bool = False) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        for target in _imports(path, typing_too):
            a, b = unit(name), unit(target)
            if a != b and "catalog" not in (a, b):  # the package's __init__ holds constants only
                edges.setdefault(a, set()).add(b)
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_the_reader_sees_real_imports():
    assert "catalog.store.graph" in _imports(MODULES["catalog.store.records"])
    assert "catalog.local_neo4j" in _imports(MODULES["catalog.store.connection"])  # a lazy one counts
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle_among_modules():
    assert _cycles(_graph(lambda m: m)) == []


def test_no_import_cycle_among_the_parts_of_the_package():
    assert _cycles(_graph(_part)) == []


def test_the_local_server_launcher_imports_nothing_of_the_store():
    assert sorted(_imports(MODULES["catalog.local_neo4j"])) == ["catalog", "catalog.errors", "catalog.neo4j_memory"]
    assert sorted(_imports(MODULES["catalog.neo4j_memory"])) == ["catalog.errors"]


def test_the_analyzer_s_files_import_one_way_type_imports_included():
    """The analyzer composes its parts (a context and a SELECT's names handed down), so none
    of its files needs the analyzer back, not even for a type."""
    analyzer = _graph(lambda m: m, typing_too=True)
    inside = {a: {b for b in bs if b.startswith("catalog.analyze.")} for a, bs in analyzer.items() if a.startswith("catalog.analyze.")}
    assert _cycles(inside) == []
    # the walk of one model is used by the project's analysis only
    assert sorted(m for m, targets in inside.items() if "catalog.analyze.model" in targets) == ["catalog.analyze.project"]
