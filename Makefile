# The two commands of the README:
#   make demo   start a local Neo4j, build the bundled example, show an impact analysis
#   make test   run the whole test suite (starts a local Neo4j if none is configured)
# Both create the virtualenv .venv and install the package first. Needs python3 (3.10+),
# and for Neo4j: java 17+ and mvn (or NEO4J_URI pointing at a running server).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
EXAMPLE := examples/coffee_shop

.PHONY: demo test install browser neovim clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test,fast,lsp]"
	touch $@

demo: install
	$(BIN)/catalog neo4j start
	$(BIN)/catalog build $(EXAMPLE)
	$(BIN)/catalog impact stg_orders.order_id --with-conditions --project coffee_shop
	$(BIN)/catalog trace customers.lifetime_value --project coffee_shop
	@echo
	@echo "Explore the graph in Neo4j Browser at the Browser address below: log in as the User shown,"
	@echo "with the password in the file it names (cat it; it is readable only by you)."
	$(BIN)/catalog neo4j status
	@echo "Stop the server with: $(BIN)/catalog neo4j stop"

test: install browser neovim
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
	rm -rf $(VENV) .pytest_cache
