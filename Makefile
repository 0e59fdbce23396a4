# Two set-up commands: `make generate` and `make test`. Both create .venv when needed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --quiet --disable-pip-version-check

.PHONY: generate test install install-test bench clean

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

test: install-test
	$(PY) -m pytest

bench: install
	$(PY) benchmarks/bench_generate.py

clean:
	rm -rf $(VENV) data build *.egg-info
