"""How much a governance report, an impact or a trace lists by default (kept apart so the CLI reads them cheaply)."""

DEFAULT_TOP = 10  # most depended-on columns
DEFAULT_MAX_ROWS = 500  # rows per list in html and md, columns of an impact or trace table
