# Quick start: `make demo` runs the main job, `make test` runs the tests.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP_RUN  := $(VENV)/.installed-run
STAMP_TEST := $(VENV)/.installed-test

.PHONY: demo test lint bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(STAMP_RUN): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e .
	touch $@

$(STAMP_TEST): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[test]'
	touch $@ $(STAMP_RUN)

demo: $(STAMP_RUN)
	$(VENV)/bin/accelsim opt workloads/mlir/gemm.mlir --affine-loop-tile="tile-sizes=32,32,32"

test: $(STAMP_TEST)
	$(PY) -m pytest -q

lint: $(STAMP_TEST)
	$(VENV)/bin/ruff check .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
