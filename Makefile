# assay: two commands on a fresh machine.
#   make demo   set up .venv and score the bundled fixtures, printing a summary table
#   make test   set up .venv and run the test suite
#   make check  ruff + mypy strict;  make bench  the benchmarks in bench/
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.assay-installed
OUT ?= out

.PHONY: setup demo test check bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml scripts/system-deps.sh | $(PY)
	bash scripts/system-deps.sh
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	# CPU torch first (a local wheel on these machines); the torch>=2.1 range then installs nothing more
	$(PY) -m pip install -q --disable-pip-version-check 'torch==2.13.0' || echo "no local CPU torch 2.13.0: the torch>=2.1 range is resolved below"
	$(PY) -m pip install -q --disable-pip-version-check -e '.[dev]'
	$(PY) -m pip install -q --disable-pip-version-check --no-deps 'verl==0.9.1'
	# bfcl-eval pins numpy==1.26.4, networkx==3.3 and LLM SDKs; its environments and checkers need only the bfcl extra
	$(PY) -m pip install -q --disable-pip-version-check --no-deps 'bfcl-eval==2026.3.23'
	# OpenRLHF pins ray, transformers and deepspeed; its remote-reward client needs only aiohttp and pylatexenc (verl-test)
	$(PY) -m pip install -q --disable-pip-version-check --no-deps 'openrlhf==0.11.2'
	# pyrender pins PyOpenGL==3.1.0 (no OSMesa contexts); the mesh extra brings 3.1.7 and its other needs
	$(PY) -m pip install -q --disable-pip-version-check --no-deps 'pyrender==0.1.45'
	touch $(STAMP)

setup: $(STAMP)

demo: setup
	@mkdir -p $(OUT)
	cat fixtures/math/cases.jsonl fixtures/code/cases.jsonl fixtures/finance/cases.jsonl fixtures/mesh/cases.jsonl fixtures/agent/cases.jsonl > $(OUT)/demo-records.jsonl
	$(VENV)/bin/assay score $(OUT)/demo-records.jsonl -o $(OUT)/demo-verdicts.jsonl --workers 2 --progress

test: setup
	$(PY) -m pytest -q

check: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

bench: setup
	$(PY) -m pip install -q --disable-pip-version-check -e '.[bench]'
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) $(OUT) .mypy_cache .ruff_cache .pytest_cache
