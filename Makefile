# The two commands of the README:
#   make demo   start a local Neo4j, build the bundled example, show an impact analysis
#   make test   run the whole test suite (starts a local Neo4j if none is configured) and
#               build the documentation site strictly; reads ../shared (the dbt corpus)
# Both create the virtualenv .venv and install the package first. Needs python3 (3.10+),
# and for Neo4j: java 17+ and mvn (or NEO4J_URI pointing at a running server).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
EXAMPLE := examples/coffee_shop

.PHONY: demo test install browser neovim clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null || \
	  { echo "catalog needs Python 3.10 or later as $(PYTHON) (or give one: make PYTHON=python3.12 ...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	@# setuptools explains every editable install in a boxed warning that reads like a failure
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/pip install --quiet -e ".[test,fast,docs,lsp]"
	touch $@

# With NEO4J_URI set, the demo uses that server and starts none (no java or mvn needed).
demo: install
	@if [ -n "$$NEO4J_URI" ]; then echo "Using the Neo4j server at $$NEO4J_URI (NEO4J_URI)"; \
	  else $(BIN)/catalog neo4j start; fi
	$(BIN)/catalog build $(EXAMPLE)
	$(BIN)/catalog impact stg_orders.order_id --with-conditions --project coffee_shop
	$(BIN)/catalog trace customers.lifetime_value --project coffee_shop
	@if [ -z "$$NEO4J_URI" ]; then \
	  echo; \
	  echo "Explore the graph in Neo4j Browser at the Browser address below: log in as the User shown,"; \
	  echo "with the password in the file it names (cat it; it is readable only by you)."; \
	  $(BIN)/catalog neo4j status; \
	  echo "Stop the server with: $(BIN)/catalog neo4j stop"; fi

test: install browser neovim
	@[ -d ../shared ] || echo "../shared (the dbt corpus) is not beside the repository: the tests that read it will skip"
	$(BIN)/pytest

# The governance report's test opens the HTML in a real headless Chromium (Debian's package).
# Installed only where it is missing and apt-get can run (as root); otherwise that test skips.
browser:
	@command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || \
	  { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) ; } || \
	  echo "chromium not installed: the HTML report test will skip"

# `catalog lsp`'s editor test runs a real headless Neovim (Debian's package), installed the same way.
neovim:
	@command -v nvim >/dev/null 2>&1 || \
	  { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim >/dev/null) ; } || \
	  echo "neovim not installed: the editor test of catalog lsp will skip"

clean:
	rm -rf $(VENV) .pytest_cache site
