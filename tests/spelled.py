"""Every walk of a small graph spelled out: what the walks of catalog/walks.py are tested against."""

from __future__ import annotations


def walks_from(start: str, edges: list[tuple[str, str, str]], limit: int) -> list[list[tuple[str, str, str]]]:
    """Every walk of at most ``limit`` edges (up, down, type) from ``start`` (edges may repeat: cycles)."""
    out: list[list[tuple[str, str, str]]] = []
    frontier: list[list[tuple[str, str, str]]] = [[]]
    for _ in range(limit):
        frontier = [p + [e] for p in frontier for e in edges if e[0] == (p[-1][1] if p else start)]
        out += frontier
    return out
