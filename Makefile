# Two set-up commands: `make generate` and `make test`. Both create .venv when needed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --quiet --disable-pip-version-check

.PHONY: generate test install install-test bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: $(VENV)/bin/python pyproject.toml
	$(PIP) -e .
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

test: install-test
	$(PY) -m pytest

bench: install
	$(PY) benchmarks/bench_generate.py

clean:
	rm -rf $(VENV) data build *.egg-info
