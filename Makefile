# Two set-up commands: `make generate` and `make test`. Both create .venv when needed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --quiet --disable-pip-version-check

.PHONY: generate test test-fast docs install install-test bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

# An editable install finds the package through an import hook that Python asks only after
# searching sys.path, so a folder named clutrr in the working directory (this checkout, seen
# from the folder above it) would be imported instead, as an empty namespace package. A
# sys.path entry holding a link to the package lets the path search find the real one.
$(VENV)/.installed: $(VENV)/bin/python pyproject.toml Makefile
	$(PIP) -e .
	mkdir -p $(VENV)/package-link && ln -sfn "$(CURDIR)/clutrr" $(VENV)/package-link/clutrr
	$(PY) -c "import pathlib, sys, sysconfig; pathlib.Path(sysconfig.get_path('purelib'), 'clutrr-package-link.pth').write_text(str(pathlib.Path(sys.argv[1]).resolve()) + '\n')" $(VENV)/package-link
	touch $@

# torch is installed first and pinned, so nothing pulls a CUDA build.
$(VENV)/.installed-test: $(VENV)/.installed
	$(PIP) torch==2.13.0
	$(PIP) -e '.[test]'
	touch $@

install: $(VENV)/.installed

install-test: $(VENV)/.installed-test

generate: install
	$(PY) generate.py --out data/clutrr --force

# Two xdist workers, each taking whole test modules (the Ray modules together): see
# pytest_xdist_make_scheduler in tests/conftest.py.
TEST_WORKERS ?= 2
PARALLEL := -n $(TEST_WORKERS) --dist loadfile

# The suite's budget is 10 minutes: the run ends with its 25 slowest tests, to see where it goes.
test: install-test
	$(PY) -m pytest $(PARALLEL) --durations=25

# The quick part of the suite (under a minute): every test module but the slow ones listed in
# tests/conftest.py (SLOW_MODULES). Run `make test` before submitting.
test-fast: install-test
	$(PY) -m pytest --fast $(PARALLEL)

# The docs as a site, built strictly (a broken link fails): build/site/index.html
docs: install-test
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict

bench: install
	$(PY) benchmarks/bench_generate.py

clean:
	rm -rf $(VENV) data build *.egg-info
