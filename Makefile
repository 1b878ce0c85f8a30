# Quick start: `make demo` runs the main job, `make test` runs the tests, `make docs` builds
# the user guide (MkDocs, strict: a broken link fails) into site/.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP_RUN  := $(VENV)/.installed-run
STAMP_TEST := $(VENV)/.installed-test
STAMP_DOCS := $(VENV)/.installed-docs

.PHONY: demo tutorial test lint docs bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

# `notebook`: the kernel and runner of the tutorial (`make tutorial`), so the README's features
# all work after `make demo`
$(STAMP_RUN): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[notebook]'
	touch $@

$(STAMP_TEST): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[test]'
	touch $@ $(STAMP_RUN)

$(STAMP_DOCS): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[docs]'
	touch $@

# The main job: compile gemm for the default preset (tile, DMA copies, pipelining), simulate it
# with real data, check the result against numpy, print the report and draw the timeline.
demo: $(STAMP_RUN)
	mkdir -p out
	$(VENV)/bin/accelsim run gemm:M=256,N=256,K=256 --target sim --config default --check \
	  --timeline out/gemm_timeline.png --trace out/gemm_trace.json

# The tutorial notebook run top to bottom; out/tutorial.ipynb keeps its outputs and plot.
tutorial: $(STAMP_RUN)
	mkdir -p out
	cp examples/tutorial.ipynb out/tutorial.ipynb
	$(VENV)/bin/jupyter execute --inplace out/tutorial.ipynb

test: $(STAMP_TEST)
	$(PY) -m pytest -q

lint: $(STAMP_TEST)
	$(VENV)/bin/ruff check .

docs: $(STAMP_DOCS)
	$(VENV)/bin/mkdocs build --strict

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis site
