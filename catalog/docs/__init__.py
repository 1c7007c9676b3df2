"""``catalog docs``: descriptions and PII tags written back into a dbt project's YAML along
the column lineage (:mod:`catalog.docs.plan` decides, :mod:`catalog.docs.yaml_files` edits)."""
