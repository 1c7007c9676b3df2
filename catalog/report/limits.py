"""How much a governance report, an impact or a trace lists by default (kept apart so the CLI reads them cheaply)."""

DEFAULT_TOP = 10  # most depended-on columns
DEFAULT_MAX_ROWS = 500  # rows per list in html and md
DEFAULT_ANSWER_ROWS = 100  # columns of an impact or trace table (a terminal's worth; rich lays out 500 rows in a second)
