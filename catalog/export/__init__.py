"""Exports of the lineage to other tools' formats."""
